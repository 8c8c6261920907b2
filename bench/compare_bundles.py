#!/usr/bin/env python3
"""A/B of two compilers' bundles in one run: per-kernel and forward +
backward times of the SwiGLU bundles of one dtype (bf16 unless --dtype) in
two directories (from test/GPU/make-bundles.sh), measured alternately (A,
B, A, B, ...) so that clock and thermal drift fall on both alike; medians
of the rounds.

  python3 bench/compare_bundles.py BUNDLES_A BUNDLES_B RUNTIME_LIB [--tokens 8192[,T...]]
      [--dtype bf16] [--shapes 1024x2816,4096x11008] [--entries-only]

--entries-only times the no-grad forward and the training step alone (not
each kernel). --bitwise then runs each side's training step once more on
the same inputs, its outputs poisoned (NaN) first, and says whether A's and
B's outputs (y, dx, dWg, dWu, dWd) are the same bits: for A/B runs of
changes that must not change a result.
"""
import argparse
import os
import statistics

import torch

from bench_mlp import launcher, median_ms, saved_buffer  # noqa: E402  (same directory; puts python/ on the path)
from fmlp.ops import DTYPES as DTYPE_NAMES  # noqa: E402

# The bundle's dtype name -> torch's dtype (the package's table, inverted).
DTYPES = {name: dtype for dtype, name in DTYPE_NAMES.items()}


def kernels_of(directory, dtype_name, d, h, t):
    """The bundle, name -> a function launching it at T = t, and the
    training step's outputs (y, dx, dWg, dWu, dWd)."""
    from fmlp import runtime
    g = torch.Generator(device="cuda").manual_seed(0)
    dtype = DTYPES[dtype_name]
    x, dy = (torch.randn(t, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
    bundle = runtime.Bundle(f"{directory}/mlp-{dtype_name}-{d}-{h}.bundle")
    bundle.load()  # into torch's context, current since x was made
    fwd, bwd = bundle.entry("forward"), bundle.entry("backward")
    nograd = bundle.entry("forward_nograd")
    # The weights as the bundle stores them: [out, in], or [in, out].
    shapes = {a["name"]: a["shape"] for a in fwd.arguments}
    wg, wu = (torch.randn(*shapes["gate"], device="cuda", dtype=dtype, generator=g) * 0.02
              for _ in range(2))
    wd = torch.randn(*shapes["down"], device="cuda", dtype=dtype, generator=g) * 0.02
    y, dx, saved = torch.empty_like(x), torch.empty_like(x), saved_buffer(fwd, t, dtype)
    dw = [torch.empty_like(wg), torch.empty_like(wu), torch.empty_like(wd)]
    forward_args = [x, wg, wu, wd, y, saved]
    backward_args = [x, wg, wu, wd, dy, dx, *dw, saved]
    launcher(fwd)(forward_args)
    out = {}
    for entry, args in ((fwd, forward_args), (bwd, backward_args)):
        for k, name in entry.kernels_at(t):
            out[name] = (lambda e=entry, a=args, k=k: launcher(e)(a, kernel=k))
    out["step (forward + backward)"] = lambda: (launcher(fwd)(forward_args),
                                                launcher(bwd)(backward_args))
    out["no-grad forward"] = lambda: launcher(nograd)([x, wg, wu, wd, y])
    return bundle, out, [y, dx, *dw]


def same_bits(step_a, outputs_a, step_b, outputs_b):
    """Each output's name -> whether A's and B's steps write the same bits
    (poisoned first, so that an output a side leaves unwritten differs)."""
    for step, outputs in ((step_a, outputs_a), (step_b, outputs_b)):
        for tensor in outputs:
            tensor.fill_(float("nan"))
        step()
    torch.cuda.synchronize()
    names = ("y", "dx", "dWg", "dWu", "dWd")
    return {name: torch.equal(a.view(torch.int32 if a.element_size() == 4 else torch.int16),
                              b.view(torch.int32 if b.element_size() == 4 else torch.int16))
            for name, a, b in zip(names, outputs_a, outputs_b)}


ENTRIES = ("step (forward + backward)", "no-grad forward")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("runtime")
    p.add_argument("--tokens", default="8192", help="T, or several: 1,16,64")
    p.add_argument("--shapes", default="1024x2816,4096x11008")
    p.add_argument("--entries-only", action="store_true")
    p.add_argument("--bitwise", action="store_true",
                   help="check that A's and B's training steps write the same bits")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    args = p.parse_args()
    os.environ["FMLP_RUNTIME_LIB"] = args.runtime
    shapes = [tuple(map(int, shape.split("x"))) for shape in args.shapes.split(",")]
    for (d, h), t in ((shape, int(t)) for shape in shapes for t in args.tokens.split(",")):
        keep_a, a, outputs_a = kernels_of(args.a, args.dtype, d, h, t)
        keep_b, b, outputs_b = kernels_of(args.b, args.dtype, d, h, t)
        if args.entries_only:
            a = {n: f for n, f in a.items() if n in ENTRIES}
            b = {n: f for n, f in b.items() if n in ENTRIES}
        print(f"D={d} H={h} T={t} {args.dtype}: "
              f"median ms, A = {args.a}, B = {args.b}")
        # Kernels of one side only (another variant, e.g. a split-K one and
        # the fill that zeroes its counters) are timed alone.
        for name in list(a) + [n for n in b if n not in a]:
            ta, tb = [], []
            for _ in range(args.rounds):
                if name in a:
                    ta.append(median_ms(a[name]))
                if name in b:
                    tb.append(median_ms(b[name]))
            if ta and tb:
                ma, mb = statistics.median(ta), statistics.median(tb)
                print(f"  {name:40s} A {ma:8.4f}  B {mb:8.4f}  B/A {mb / ma:.3f}", flush=True)
            else:
                side, times = ("A", ta) if ta else ("B", tb)
                print(f"  {name:40s} {side} {statistics.median(times):8.4f} ({side} only)", flush=True)
        if args.bitwise:
            step = "step (forward + backward)"
            same = same_bits(a[step], outputs_a, b[step], outputs_b)
            print("  same bits: " + ", ".join(f"{n} {'yes' if v else 'NO'}" for n, v in same.items()),
                  flush=True)

if __name__ == "__main__":
    main()
