#!/usr/bin/env python3
"""Each kernel of the SwiGLU block per strategy, beside cuBLAS's GEMM of the
same shape, in one run: raw launches against raw cuBLAS calls (torch.mm on
tensors of the kernel's layouts), medians of interleaved rounds.

  python3 bench/bench_strategies.py RUNTIME_LIB NAME=BUNDLES [NAME=BUNDLES ...]
      [--tokens 8192] [--dtype bf16] [--rounds 5] [--out DIR]
      [--torch-precision highest|high]

Each BUNDLES directory holds mlp-DTYPE-D-H.bundle for (1024, 2816) and
(4096, 11008) (test/GPU/make-bundles.sh, e.g. with
FMLP_COMPILE_FLAGS=--strategy=mma_sync); NAME labels its column (wgmma,
mma_sync, simt). Per kernel it prints the time, TFLOP/s (2 M N K / time),
cuBLAS's time over the kernel's ("x cuBLAS": 1 is cuBLAS's speed), and
each strategy's speed over the last one's (the SIMT kernels, when listed
last). With --dtype f32, cuBLAS's GEMMs run at --torch-precision
(torch.set_float32_matmul_precision: highest is strict fp32, high TF32),
and NAME may label a precision (tf32=..., tf32x3=..., ieee=...). Writes
strategies.md (strategies-f32-PRECISION.md for f32) to --out.
"""
import argparse
import os
import re
import statistics

import torch

from bench_mlp import median_ms  # noqa: E402  (same directory; puts python/ on the path)
from compare_bundles import DTYPES, kernels_of  # noqa: E402


def role(name):
    """The kernel's op, whatever the strategy's suffix: gate_up, down, ..."""
    m = re.match(r"mlp_(?:forward|backward)_k\d+_([a-z_]+?)(?:_mma_sync|_small_tokens)?(?:_upto\d+.*)?$", name)
    return m.group(1) if m else None


def cublas_gemms(d, h, t, dtype):
    """op -> (M, N, K, a cuBLAS call computing that GEMM in the kernel's
    operand layouts: x [T, D], nn.Linear weights [out, in])."""
    g = torch.Generator(device="cuda").manual_seed(1)
    r = lambda *s: torch.randn(*s, device="cuda", dtype=dtype, generator=g)
    x, dy, a, dgu = r(t, d), r(t, d), r(t, h), r(t, 2 * h)
    wgu, wd = r(2 * h, d), r(d, h)
    return {
        "gate_up": (t, 2 * h, d, lambda: torch.mm(x, wgu.t())),
        "down": (t, d, h, lambda: torch.mm(a, wd.t())),
        "down_grad": (t, h, d, lambda: torch.mm(dy, wd)),
        "input_grad": (t, d, 2 * h, lambda: torch.mm(dgu, wgu)),
        "gate_up_weight_grad": (2 * h, d, t, lambda: torch.mm(dgu.t(), x)),
        "down_weight_grad": (d, h, t, lambda: torch.mm(dy.t(), a)),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("runtime")
    p.add_argument("strategies", nargs="+", help="NAME=BUNDLES")
    p.add_argument("--tokens", type=int, default=8192)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    p.add_argument("--shapes", default="1024x2816,4096x11008")
    p.add_argument("--out", default=None)
    p.add_argument("--torch-precision", choices=["highest", "high"], default="highest")
    args = p.parse_args()
    torch.set_float32_matmul_precision(args.torch_precision)
    os.environ["FMLP_RUNTIME_LIB"] = args.runtime
    names = [s.split("=", 1)[0] for s in args.strategies]
    t = args.tokens
    cublas = ("cuBLAS" if args.dtype != "f32" else
              f"cuBLAS ({'strict fp32' if args.torch_precision == 'highest' else 'TF32'})")
    lines = [f"# Kernels per strategy beside {cublas} ({args.dtype}, T = {t}, "
             f"{torch.cuda.get_device_name()}, medians of {args.rounds} interleaved rounds)", ""]
    for shape in args.shapes.split(","):
        d, h = map(int, shape.split("x"))
        kept, kernels = [], {}
        for spec in args.strategies:
            name, directory = spec.split("=", 1)
            bundle, launches, _ = kernels_of(directory, args.dtype, d, h, t)
            kept.append(bundle)
            kernels[name] = {role(k): f for k, f in launches.items() if role(k)}
        gemms = cublas_gemms(d, h, t, DTYPES[args.dtype])
        header = ["kernel", "M x N x K", "cuBLAS ms", "TFLOP/s"]
        for n in names:
            header += [f"{n} ms", f"{n} TFLOP/s", f"{n} x cuBLAS"]
        if len(names) > 1:
            header += [f"{n} / {names[-1]} speed" for n in names[:-1]]
        lines += [f"## (D, H) = ({d}, {h})", "", "| " + " | ".join(header) + " |",
                  "|" + "---|" * len(header)]
        for op, (m, n_, k, call) in gemms.items():
            samples = {"cublas": []}
            samples.update({n: [] for n in names})
            for _ in range(args.rounds):
                samples["cublas"].append(median_ms(call))
                for n in names:
                    if op in kernels[n]:
                        samples[n].append(median_ms(kernels[n][op]))
            ms = {key: statistics.median(v) for key, v in samples.items() if v}
            tflops = lambda key: 2 * m * n_ * k / (ms[key] * 1e-3) / 1e12
            row = [op, f"{m} x {n_} x {k}", f"{ms['cublas']:.3f}", f"{tflops('cublas'):.0f}"]
            for n in names:
                row += ([f"{ms[n]:.3f}", f"{tflops(n):.0f}", f"{ms['cublas'] / ms[n]:.2f}"]
                        if n in ms else ["-", "-", "-"])
            if len(names) > 1:
                row += [f"{ms[names[-1]] / ms[n]:.1f}x" if n in ms and names[-1] in ms else "-"
                        for n in names[:-1]]
            lines.append("| " + " | ".join(row) + " |")
            print(lines[-1], flush=True)
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.out:
        name = ("strategies.md" if args.dtype != "f32"
                else f"strategies-f32-{args.torch_precision}.md")
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, name), "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
