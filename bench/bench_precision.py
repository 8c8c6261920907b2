#!/usr/bin/env python3
"""fp32 blocks per precision, module against module: the training step
(forward + backward, x's and every parameter's gradient set to None each
call) of fmlp's module at each precision (highest, ieee, tf32x3, tf32) beside
Hugging Face's LlamaMLP eager at PyTorch's 'highest' (strict fp32) and
'high' (TF32), over the same weights, eagerly, in one run; medians of
interleaved rounds (bench_sweep's timer), with the SM clock and board power
each case ran at (gpu_clock.py).

  FMLP_CACHE_DIR=... python3 bench/bench_precision.py [--shapes 1024x2816,4096x11008]
      [--tokens 8192] [--rounds 3] [--modes highest,ieee,tf32x3,tf32] [--out DIR]
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_sweep  # noqa: E402  (same directory: make_modules, module_calls, Timer)
import gpu_clock  # noqa: E402


# fmlp's precision -> the PyTorch setting it is compared with.
BASELINE = {"highest": "highest", "ieee": "highest", "tf32x3": "highest", "tf32": "high"}


def time_shape(d, h, args, modes, settings, timer, clocks):
    """One table row of times and ratios for (D, H), and the clock rows
    (gpu_clock.ClockSampler's summary over each case's samples)."""
    device = torch.device("cuda")
    modules, original, x, dy = bench_sweep.make_modules(d, h, args.tokens, device,
                                                        torch.float32, ["fmlp", "hf_eager"])
    train = bench_sweep.module_calls(modules, original, x, dy)
    fused = modules["fmlp"]
    # (label, fp32 matmul setting, fmlp precision or None for HF)
    cases = ([(f"HF {s}", s, None) for s in settings] +
             [(f"fmlp {m}", BASELINE[m], m) for m in modes])
    samples = {label: [] for label, _, _ in cases}
    intervals = {label: [] for label, _, _ in cases}
    previous = torch.get_float32_matmul_precision()
    try:
        for _ in range(args.rounds):
            for label, setting, precision in cases:
                torch.set_float32_matmul_precision(setting)
                fused.precision = precision
                call = train[("train", "fmlp" if precision else "hf_eager")]
                calls = timer.calls_per_sample(call)
                start = time.time()
                samples[label].append(statistics.median(timer.samples(call, calls, 3, 2.0)))
                intervals[label].append((start, time.time()))
    finally:
        torch.set_float32_matmul_precision(previous)
    ms = {k: statistics.median(v) for k, v in samples.items()}
    cells = ([f"{ms['HF ' + s]:.2f}" for s in settings] +
             [f"{ms['fmlp ' + m]:.2f}" for m in modes] +
             [f"{ms['fmlp ' + m] / ms['HF ' + BASELINE[m]]:.2f}" for m in modes])
    row = f"| ({d}, {h}) | " + " | ".join(cells) + " |"
    clock_rows = []
    for label, _, _ in cases:
        seen = clocks.summary(intervals[label])
        clock_rows.append(f"| ({d}, {h}) | {label} | " + (
            f"{seen['mhz']:.0f} | {seen['watts']:.0f} | {100 * seen['power_flag']:.0f} % "
            f"| {seen['samples']} |" if seen else "n/a | n/a | n/a | 0 |"))
    return row, clock_rows


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
    timer = bench_sweep.Timer(torch.device("cuda"), 2.0, 50, False)
    columns = ([f"HF {s} ms" for s in settings] + [f"fmlp {m} ms" for m in modes] +
               [f"{m} / HF {BASELINE[m]}" for m in modes])
    lines = [f"# fp32 training step per precision (T = {args.tokens}, {torch.cuda.get_device_name()}, "
             f"eager, medians of {args.rounds} rounds)", "",
             "| (D, H) | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    clock_rows = []
    # The clock each case ran at: the tensor-core fp32 modes draw the board
    # to its power cap, strict fp32's SIMT GEMMs do not (NOTES item 102).
    with gpu_clock.ClockSampler(gpu_clock.nvidia_smi_id(torch.cuda.current_device())) as clocks:
        for shape in args.shapes.split(","):
            d, h = map(int, shape.split("x"))
            row, rows = time_shape(d, h, args, modes, settings, timer, clocks)
            lines.append(row)
            clock_rows += rows
            print(row, flush=True)
    if clocks.samples:
        lines += ["", "SM clock and board power while each case was timed (nvidia-smi every "
                  "100 ms; power flag: the share of samples with the power cap among the "
                  "clock's event reasons, set whenever the limit trims the clock at all; "
                  "a case of few samples ran for less than a second):", "",
                  "| (D, H) | case | mean SM MHz | mean W | power flag | samples |",
                  "|---|---|---|---|---|---|"] + clock_rows
    elif clocks.failure:
        lines += ["", f"No clock samples: {clocks.failure}"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        Path(args.out, "precision.md").write_text(text)


if __name__ == "__main__":
    main()
