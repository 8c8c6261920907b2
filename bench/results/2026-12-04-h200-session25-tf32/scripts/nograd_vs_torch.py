#!/usr/bin/env python3
"""The no-grad forward at T tokens, fp32, in one run, interleaved rounds:
PyTorch eager with TF32 (torch.backends.cuda.matmul.allow_tf32 = True;
F.linear on nn.Linear-layout weights), fmlp's tf32 bundles of each
directory given (raw launches of forward_nograd into a preallocated y),
and cuBLAS TF32's two GEMMs alone (x Wgu^T, A Wd^T: the forward's GEMM
floor). Medians of bench_mlp.median_ms per round, then of the rounds.

  python3 nograd_vs_torch.py RUNTIME_LIB NAME=BUNDLES... [--tokens 8192]
      [--shapes 1024x2816,4096x11008] [--rounds 5]
"""
import argparse
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../"))
from bench_mlp import launcher, median_ms  # noqa: E402
from fmlp import runtime  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("runtime")
    p.add_argument("bundles", nargs="+")
    p.add_argument("--tokens", type=int, default=8192)
    p.add_argument("--shapes", default="1024x2816,4096x11008")
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    os.environ["FMLP_RUNTIME_LIB"] = args.runtime
    torch.backends.cuda.matmul.allow_tf32 = True
    t = args.tokens
    for shape in args.shapes.split(","):
        d, h = map(int, shape.split("x"))
        g = torch.Generator(device="cuda").manual_seed(0)
        x = torch.randn(t, d, device="cuda", generator=g)
        wg, wu = (torch.randn(h, d, device="cuda", generator=g) * d ** -0.5 for _ in range(2))
        wd = torch.randn(d, h, device="cuda", generator=g) * h ** -0.5
        wgu = torch.cat([wg, wu])
        a = torch.randn(t, h, device="cuda", generator=g)
        calls = {
            "torch TF32 eager": lambda: F.linear(F.silu(F.linear(x, wg)) * F.linear(x, wu), wd),
            "cuBLAS TF32 x Wgu^T + A Wd^T": lambda: (F.linear(x, wgu), F.linear(a, wd)),
        }
        kept = []
        for spec in args.bundles:
            name, directory = spec.split("=", 1)
            bundle = runtime.Bundle(f"{directory}/mlp-f32-{d}-{h}.bundle")
            bundle.load()
            kept.append(bundle)
            y = torch.empty_like(x)
            entry = bundle.entry("forward_nograd")
            calls[f"fmlp {name}"] = (lambda e=entry, y=y: launcher(e)([x, wg, wu, wd, y]))
        with torch.no_grad():
            samples = {n: [] for n in calls}
            for _ in range(args.rounds):
                for n, f in calls.items():
                    samples[n].append(median_ms(f))
        ms = {n: statistics.median(v) for n, v in samples.items()}
        base = ms["torch TF32 eager"]
        flops = 6 * t * d * h
        print(f"D={d} H={h} T={t} f32 no-grad forward, median ms of {args.rounds} rounds")
        for n, v in ms.items():
            print(f"  {n:34s} {v:8.3f} ms  {flops / v / 1e9:6.0f} TFLOP/s  "
                  f"torch/this {base / v:5.2f}")


if __name__ == "__main__":
    main()
