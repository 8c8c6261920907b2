#!/usr/bin/env python3
"""Session 39 (issue 23): a tf32 WGMMA kernel that rounds the weights in its
stages (KernelConfig::roundsInStages) multiplies the same rounded operands in
the same order as the one that reads fmlp-round-tf32-weights' rounded
copies: their outputs must be the same bits. For each shape and T, the
forward (y and the saved activations) and the no-grad forward (y) of
stages/ against copies/ (session 38's bundles: copies at every T), on the
same random inputs, outputs poisoned with NaN before each run. The control:
trunc/ (--fmlp-tf32-round-operands=false, the tensor core truncating the
weights) must differ from copies/ at every T, or the comparison could not
see a kernel that skipped the rounding.

  python3 same_bits.py DIR --tokens 1,16,... --shapes 1024x2816,4096x11008
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
    y_nograd = torch.full_like(x, float("nan"))
    launcher(bundle.entry("forward_nograd"))([x, wg, wu, wd, y_nograd])
    torch.cuda.synchronize()
    return {"y": y, "saved": saved, "y (no-grad)": y_nograd}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--tokens", default="1,16,128,129,256,257,512,513,2048,2049")
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
            got = {k: outputs(f"{args.dir}/{k}", d, h, (x, wg, wu, wd))
                   for k in ("copies", "stages", "trunc")}
            for name in got["copies"]:
                c, s, tr = (got[k][name] for k in ("copies", "stages", "trunc"))
                finite = bool(torch.isfinite(c).all() and torch.isfinite(s).all())
                equal = finite and torch.equal(c, s)
                control = not torch.equal(c, tr)
                same += equal
                differ += control
                failures += (not equal) + (not control)
                print(f"D={d} H={h} T={t:5d} {name:12s} stages == copies: "
                      f"{'yes' if equal else 'NO (FAIL)'}"
                      f"{'' if finite else ' (non-finite)'}; "
                      f"max |stages - copies| {float((s - c).abs().max()):.3g}; "
                      f"truncating differs (control): "
                      f"{'yes' if control else 'NO (CONTROL PASSED)'}", flush=True)
    print(f"{same} same, {differ} controls differing, {failures} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
