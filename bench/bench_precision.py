#!/usr/bin/env python3
"""fp32 blocks per precision, module against module: the training step
(forward + backward, x's and every parameter's gradient set to None each
call) of fmlp's module at each precision (ieee, tf32x3, tf32) beside
Hugging Face's LlamaMLP eager at PyTorch's 'highest' (strict fp32) and
'high' (TF32), over the same weights, eagerly, in one run; medians of
interleaved rounds (bench_sweep's timer).

  FMLP_CACHE_DIR=... python3 bench/bench_precision.py [--shapes 1024x2816,4096x11008]
      [--tokens 8192] [--rounds 3] [--out DIR]
"""
import argparse
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_sweep  # noqa: E402  (same directory: make_modules, module_calls, Timer)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="1024x2816,4096x11008")
    p.add_argument("--tokens", type=int, default=8192)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", default=None)
    args = p.parse_args()
    device = torch.device("cuda")
    timer = bench_sweep.Timer(device, 2.0, 50, False)
    previous = torch.get_float32_matmul_precision()
    lines = [f"# fp32 training step per precision (T = {args.tokens}, {torch.cuda.get_device_name()}, "
             f"eager, medians of {args.rounds} rounds)", "",
             "| (D, H) | HF highest ms | HF high ms | fmlp ieee ms | fmlp tf32x3 ms | fmlp tf32 ms "
             "| ieee / HF highest | tf32x3 / HF highest | tf32 / HF high |",
             "|---|---|---|---|---|---|---|---|---|"]
    for shape in args.shapes.split(","):
        d, h = map(int, shape.split("x"))
        modules, original, x, dy = bench_sweep.make_modules(d, h, args.tokens, device,
                                                            torch.float32, ["fmlp", "hf_eager"])
        train = bench_sweep.module_calls(modules, original, x, dy)
        fused = modules["fmlp"]
        # (label, fp32 matmul setting, fmlp precision or None for HF)
        cases = [("HF highest", "highest", None), ("HF high", "high", None),
                 ("fmlp ieee", "highest", "ieee"), ("fmlp tf32x3", "highest", "tf32x3"),
                 ("fmlp tf32", "high", "tf32")]
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
        lines.append(f"| ({d}, {h}) | {ms['HF highest']:.2f} | {ms['HF high']:.2f} | "
                     f"{ms['fmlp ieee']:.2f} | {ms['fmlp tf32x3']:.2f} | {ms['fmlp tf32']:.2f} | "
                     f"{ms['fmlp ieee'] / ms['HF highest']:.2f} | "
                     f"{ms['fmlp tf32x3'] / ms['HF highest']:.2f} | "
                     f"{ms['fmlp tf32'] / ms['HF high']:.2f} |")
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out, "precision.md").write_text(text)


if __name__ == "__main__":
    main()
