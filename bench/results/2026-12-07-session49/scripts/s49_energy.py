#!/usr/bin/env python3
"""Session 49, call 10: the training step's time, SM clock, board power and
energy (mean W x time) per implementation, interleaved rounds of ~1 s of
back-to-back steps each (long enough for the power cap to act), bf16 and
fp32 (tf32: fmlp's module at `tf32`, HF at 'high').

  python3 s49_energy.py [--shapes 4096x11008] [--tokens 8192] [--rounds 5]
      [--dtypes bf16,f32] [--fp32-precision tf32|tf32x3|highest]
"""
import argparse
import statistics
import time

import torch

import bench_sweep
import gpu_clock


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default="4096x11008,1024x2816")
    p.add_argument("--tokens", type=int, default=8192)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--dtypes", default="bf16,f32")
    p.add_argument("--fp32-precision", default="tf32", choices=["tf32", "tf32x3", "highest"],
                   help="fmlp's f32 module precision; HF runs at 'high' for tf32, else 'highest'")
    args = p.parse_args()
    device = torch.device("cuda")
    print(f"{torch.cuda.get_device_name()}: training step (gradients reset), T = {args.tokens}, "
          f"{args.rounds} rounds of ~{args.seconds} s a case")
    # Calls 10 and 11 ran this with the column "capped" (reasons 0x4, 0x8 or
    # 0x80 flagged); gpu_clock.py now counts the power reasons alone.
    print("| (D, H) | dtype | case | ms a step | mean SM MHz | mean W | J a step | power flag |")
    print("|---|---|---|---|---|---|---|---|")
    with gpu_clock.ClockSampler(gpu_clock.nvidia_smi_id(torch.cuda.current_device())) as clocks:
        for shape in args.shapes.split(","):
            d, h = map(int, shape.split("x"))
            cases = {"bf16": (torch.bfloat16, ["fmlp", "hf_compile"]),
                     "f32": (torch.float32, ["fmlp", "hf_eager"])}
            for dtype, impls in (cases[name] for name in args.dtypes.split(",")):
                torch.set_float32_matmul_precision(
                    "high" if args.fp32_precision == "tf32" else "highest")
                modules, original, x, dy = bench_sweep.make_modules(d, h, args.tokens, device,
                                                                    dtype, impls)
                if dtype == torch.float32:
                    modules["fmlp"].precision = args.fp32_precision
                calls = bench_sweep.module_calls(modules, original, x, dy)
                times = {i: [] for i in impls}
                spans = {i: [] for i in impls}
                for impl in impls:  # warm-up (compile)
                    for _ in range(3):
                        calls[("train", impl)]()
                torch.cuda.synchronize()
                for _ in range(args.rounds):
                    for impl in impls:
                        call = calls[("train", impl)]
                        start_event = torch.cuda.Event(enable_timing=True)
                        end_event = torch.cuda.Event(enable_timing=True)
                        n, begun = 0, time.time()
                        start_event.record()
                        while time.time() - begun < args.seconds:
                            call()
                            n += 1
                        end_event.record()
                        end_event.synchronize()
                        times[impl].append(start_event.elapsed_time(end_event) / n)
                        spans[impl].append((begun, time.time()))
                        time.sleep(0.3)  # let the board cool between cases alike
                for impl in impls:
                    ms = statistics.median(times[impl])
                    seen = clocks.summary(spans[impl]) or {"mhz": 0, "watts": 0, "power_flag": 0}
                    label = impl if dtype == torch.bfloat16 else \
                        f"{impl} {args.fp32_precision if impl == 'fmlp' else torch.get_float32_matmul_precision()}"
                    print(f"| ({d}, {h}) | {str(dtype)[6:]} | {label} | {ms:.3f} | {seen['mhz']:.0f} "
                          f"| {seen['watts']:.0f} | {seen['watts'] * ms / 1e3:.3f} "
                          f"| {100 * seen['power_flag']:.0f} % |", flush=True)
                del modules, original, x, dy, calls
                torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
