#!/usr/bin/env python3
"""Device time of each kernel of a bundle's no-grad forward and training
step at several T, from CUDA's activity records (torch.profiler), with the
bytes of weights each reads per microsecond (GB/s) where it reads them all
(K1, K2, K3, K4). Kernels are timed where they run, back to back inside
their entry point, not launched alone.

  python3 bench/kernel_times.py BUNDLES RUNTIME_LIB [--tokens 1,16,64]
      [--shapes 1024x2816,4096x11008] [--dtype bf16] [--calls 20]
      [--modules fmlp,hf_compile] [--precision tf32x3] [--matmul-precision highest]

BUNDLES holds mlp-DTYPE-D-H.bundle (test/GPU/make-bundles.sh). --modules
profiles modules instead, called as bench/bench_sweep.py times them (its
implementations: fmlp's module with the package's default policy from
FMLP_CACHE_DIR, HF's LlamaMLP eager or compiled): every kernel a call
launches, the bundle's and PyTorch's (gradient buffers, copies) alike.
"""
import argparse
import collections
import os

import torch
from torch.profiler import ProfilerActivity, profile

from bench_mlp import median_ms  # noqa: E402  (same directory)
from compare_bundles import DTYPES, kernels_of  # noqa: E402  (same directory)

# The weights a kernel reads whole, in units of D H elements, by the kernel
# op in its name (K1 reads Wg and Wu; K4 Wg and Wu; K2 and K3 Wd).
WEIGHT_READS = {"gate_up_weight_grad": 0, "down_weight_grad": 0,
                "gate_up": 2, "down_grad": 1, "down": 1, "input_grad": 2}


def weights_read(kernel, d, h, element_bytes):
    if kernel.endswith("_zero_counters"):  # a split-K variant's counter fill
        return 0
    for op, units in WEIGHT_READS.items():  # longest names first
        if op in kernel:
            return units * d * h * element_bytes
    return 0


def kernel_times(fn, calls):
    """Mean device microseconds per call of each kernel `fn` launches, and
    the span from the first call's first kernel's start to the last call's
    last kernel's end over the number of calls: a call's time including
    the gaps between kernels and between calls (beside the kernels' sum:
    those gaps, or the kernels' overlap on lanes); 0 without kernels."""
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    times = collections.defaultdict(float)
    order = []
    first, last = float("inf"), float("-inf")
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        if event.name not in times:
            order.append(event.name)
        times[event.name] += event.device_time / calls
        first = min(first, event.time_range.start)
        last = max(last, event.time_range.end)
    return [(name, times[name]) for name in order], max(0.0, last - first) / calls


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bundles")
    p.add_argument("runtime")
    p.add_argument("--tokens", default="1,16,64,128,256")
    p.add_argument("--shapes", default="1024x2816,4096x11008")
    p.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--modules", default="",
                   help="implementations of bench_sweep.py to profile instead of BUNDLES")
    p.add_argument("--precision", default=None, choices=["highest", "ieee", "tf32x3", "tf32"],
                   help="with --modules and --dtype f32: fmlp's module precision (else "
                        "PyTorch's setting, as the package does)")
    p.add_argument("--matmul-precision", default=None, choices=["highest", "high", "medium"],
                   help="torch.set_float32_matmul_precision for the run (HF's fp32 GEMMs)")
    args = p.parse_args()
    os.environ["FMLP_RUNTIME_LIB"] = args.runtime
    element_bytes = torch.tensor([], dtype=DTYPES[args.dtype]).element_size()
    if args.matmul_precision:
        torch.set_float32_matmul_precision(args.matmul_precision)
    print(f"{args.bundles}, {args.dtype}, {torch.cuda.get_device_name()}: "
          f"mean device us per call of each kernel over {args.calls} calls")
    for shape in args.shapes.split(","):
        d, h = map(int, shape.split("x"))
        for t in map(int, args.tokens.split(",")):
            if args.modules:
                from bench_sweep import make_modules, module_calls
                modules, original, x, dy = make_modules(d, h, t, torch.device("cuda"),
                                                        DTYPES[args.dtype],
                                                        args.modules.split(","))
                for impl, module in modules.items():
                    if impl.startswith("fmlp"):
                        getattr(module, "_orig_mod", module).precision = args.precision
                calls = module_calls(modules, original, x, dy)
                entries = {f"{impl} {'no-grad forward' if mode == 'nograd' else 'step'}": fn
                           for (mode, impl), fn in calls.items()}
            else:
                _, entries, _ = kernels_of(args.bundles, args.dtype, d, h, t)
            names = sorted(entries) if args.modules else \
                ("no-grad forward", "step (forward + backward)")
            for entry in names:
                rows, span = kernel_times(entries[entry], args.calls)
                total = sum(us for _, us in rows)
                wall = 1e3 * median_ms(entries[entry], warmup=1, reps=5)
                print(f"D={d} H={h} T={t} {entry}: {total:.1f} us in kernels, "
                      f"{span:.1f} us a call from the first kernel's start to the last's "
                      f"end, {wall:.1f} us a call by events (unprofiled; bench_mlp.median_ms)")
                for name, us in rows:
                    weights = weights_read(name, d, h, element_bytes)
                    rate = f"{weights / us / 1e3:7.0f} GB/s" if weights else ""
                    print(f"    {us:8.1f} us {rate:>12s}  {name}")


if __name__ == "__main__":
    main()
