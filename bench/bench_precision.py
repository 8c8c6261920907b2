#!/usr/bin/env python3
"""fp32 blocks per precision, module against module: the training step
(forward + backward, x's and every parameter's gradient set to None each
call) of fmlp's module at each precision (highest, ieee, tf32x3, tf32) beside
Hugging Face's LlamaMLP eager at PyTorch's 'highest' (strict fp32) and
'high' (TF32), over the same weights, eagerly, in one run; medians of
interleaved rounds (bench_sweep's timer).

  FMLP_CACHE_DIR=... python3 bench/bench_precision.py [--shapes 1024x2816,4096x11008]
      [--tokens 8192] [--rounds 3] [--modes highest,ieee,tf32x3,tf32] [--out DIR]
"""
import argparse
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_sweep  # noqa: E402  (same directory: make_modules, module_calls, Timer)


# fmlp's precision -> the PyTorch setting it is compared with.
BASELINE = {"highest": "highest", "ieee": "highest", "tf32x3": "highest", "tf32": "high"}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="1024x2816,4096x11008")
    p.add_argument("--tokens", type=int, default=8192)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--modes", default="highest,ieee,tf32x3,tf32",
                   help="fmlp's precisions to time (each beside its PyTorch setting)")
    p.add_argument("--out", default=None)
    args = p.parse_args()
    modes = args.modes.split(",")
    settings = list(dict.fromkeys(BASELINE[m] for m in modes))
    device = torch.device("cuda")
    timer = bench_sweep.Timer(device, 2.0, 50, False)
    previous = torch.get_float32_matmul_precision()
    columns = ([f"HF {s} ms" for s in settings] + [f"fmlp {m} ms" for m in modes] +
               [f"{m} / HF {BASELINE[m]}" for m in modes])
    lines = [f"# fp32 training step per precision (T = {args.tokens}, {torch.cuda.get_device_name()}, "
             f"eager, medians of {args.rounds} rounds)", "",
             "| (D, H) | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for shape in args.shapes.split(","):
        d, h = map(int, shape.split("x"))
        modules, original, x, dy = bench_sweep.make_modules(d, h, args.tokens, device,
                                                            torch.float32, ["fmlp", "hf_eager"])
        train = bench_sweep.module_calls(modules, original, x, dy)
        fused = modules["fmlp"]
        # (label, fp32 matmul setting, fmlp precision or None for HF)
        cases = ([(f"HF {s}", s, None) for s in settings] +
                 [(f"fmlp {m}", BASELINE[m], m) for m in modes])
        samples = {label: [] for label, _, _ in cases}
        try:
            for _ in range(args.rounds):
                for label, setting, precision in cases:
                    torch.set_float32_matmul_precision(setting)
                    fused.precision = precision
                    call = train[("train", "fmlp" if precision else "hf_eager")]
                    calls = timer.calls_per_sample(call)
                    samples[label].append(statistics.median(timer.samples(call, calls, 3, 2.0)))
        finally:
            torch.set_float32_matmul_precision(previous)
        ms = {k: statistics.median(v) for k, v in samples.items()}
        cells = ([f"{ms['HF ' + s]:.2f}" for s in settings] +
                 [f"{ms['fmlp ' + m]:.2f}" for m in modes] +
                 [f"{ms['fmlp ' + m] / ms['HF ' + BASELINE[m]]:.2f}" for m in modes])
        lines.append(f"| ({d}, {h}) | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        Path(args.out, "precision.md").write_text(text)


if __name__ == "__main__":
    main()
