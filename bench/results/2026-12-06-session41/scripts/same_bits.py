#!/usr/bin/env python3
"""Session 41 (issue 23): two bundles that must multiply the same values in
the same order give the same bits. For each shape and T, the forward (y and the saved
activations), the backward (dx and the weight gradients, from the forward's
saved activations) and the no-grad forward (y) of B against A on the same
random inputs, outputs poisoned with NaN before each run; CONTROL (a bundle
that computes differently, e.g. truncating tf32) must differ from A at
every T, or the comparison could not see a kernel that skipped the
rounding. (Session 39's same_bits.py with the directories as arguments.)

  python3 same_bits.py A B CONTROL --tokens 1,16,... --shapes 1024x2816
"""
import argparse
import sys

import torch

from bench_mlp import launcher  # noqa: E402 (bench/ on PYTHONPATH)
from fmlp import runtime


def outputs(directory, d, h, inputs):
    bundle = runtime.Bundle(f"{directory}/mlp-f32-{d}-{h}.bundle")
    bundle.load()
    x, wg, wu, wd = inputs
    t = x.shape[0]
    y = torch.full_like(x, float("nan"))
    saved = torch.full((t, 3 * h), float("nan"), device="cuda")
    launcher(bundle.entry("forward"))([x, wg, wu, wd, y, saved])
    dy = torch.randn(x.shape, device="cuda", generator=torch.Generator(device="cuda").manual_seed(t + 1))
    dx = torch.full_like(x, float("nan"))
    dw = [torch.full_like(w, float("nan")) for w in (wg, wu, wd)]
    forward_saved = saved.clone()  # the backward writes dG, dU over it
    launcher(bundle.entry("backward"))([x, wg, wu, wd, dy, dx, *dw, saved])
    y_nograd = torch.full_like(x, float("nan"))
    launcher(bundle.entry("forward_nograd"))([x, wg, wu, wd, y_nograd])
    torch.cuda.synchronize()
    return {"y": y, "saved": forward_saved, "dx": dx, "dWg": dw[0], "dWu": dw[1],
            "dWd": dw[2], "y (no-grad)": y_nograd}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("control")
    p.add_argument("--tokens", default="1,257,513,2049")
    p.add_argument("--shapes", default="1024x2816,4096x11008")
    args = p.parse_args()
    same = differ = failures = 0
    for shape in args.shapes.split(","):
        d, h = map(int, shape.split("x"))
        for t in map(int, args.tokens.split(",")):
            g = torch.Generator(device="cuda").manual_seed(t)
            x = torch.randn(t, d, device="cuda", generator=g)
            wg, wu = (torch.randn(h, d, device="cuda", generator=g) * d ** -0.5 for _ in range(2))
            wd = torch.randn(d, h, device="cuda", generator=g) * h ** -0.5
            a, b, ctl = (outputs(k, d, h, (x, wg, wu, wd))
                         for k in (args.a, args.b, args.control))
            for name in a:
                finite = bool(torch.isfinite(a[name]).all() and torch.isfinite(b[name]).all())
                equal = finite and torch.equal(a[name], b[name])
                control = not torch.equal(a[name], ctl[name])
                same += equal
                differ += control
                failures += (not equal) + (not control)
                print(f"D={d} H={h} T={t:5d} {name:12s} B == A: "
                      f"{'yes' if equal else 'NO (FAIL)'}"
                      f"{'' if finite else ' (non-finite)'}; "
                      f"max |B - A| {float((b[name] - a[name]).abs().max()):.3g}; "
                      f"control differs: "
                      f"{'yes' if control else 'NO (CONTROL PASSED)'}", flush=True)
    print(f"{same} same, {differ} controls differing, {failures} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
