#!/usr/bin/env python3
"""Frozen weights against trainable ones: the training step of fmlp's
module and of Hugging Face's LlamaMLP (eager and torch.compile'd) over the
same weights, module against module, eagerly, back to back.

Per (D, H, T) and implementation, two settings:
  trainable  every parameter requires grad (as bench_sweep's "train");
  frozen     no parameter requires grad, x does (a frozen block inside a
             model whose earlier layers train: only dx is asked for).
Each is timed as the forward alone (under grad mode: what the backward
needs is kept) and as forward + backward (x.grad and every .grad set to
None first); the backward's time is their difference. The ratio asked by
issue 25: the frozen backward over the trainable one (fmlp should skip the
weight-gradient GEMMs, a third of the step's FLOPs, as autograd does for
HF's module).

  FMLP_CACHE_DIR=... python3 bench/bench_frozen.py [--shapes 4096x11008] [--tokens 8192]
"""
import argparse
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_sweep  # noqa: E402  (same directory: make_modules, Timer)


def time_ms(timer, fn, rounds):
    calls = timer.calls_per_sample(fn)
    return statistics.median(statistics.median(timer.samples(fn, calls, 3, 2.0))
                             for _ in range(rounds))


def run(d, h, t, args, timer):
    device = torch.device("cuda")
    modules, original, x, dy = bench_sweep.make_modules(
        d, h, t, device, torch.bfloat16, ["fmlp", "hf_eager", "hf_compile"])
    params = list(original.parameters())
    rows = []
    for frozen in (False, True):
        for p in params:
            p.requires_grad_(not frozen)
        torch._dynamo.reset()  # compiled graphs follow requires_grad
        modules_now = dict(modules)
        modules_now["hf_compile"] = torch.compile(original, dynamic=False)
        for impl, module in modules_now.items():
            def forward(m=module):
                x.grad = None
                for p in params:
                    p.grad = None
                return m(x)

            def step(m=module):
                forward(m).backward(dy)
            for _ in range(2):
                step()
            f, s = time_ms(timer, forward, args.rounds), time_ms(timer, step, args.rounds)
            rows.append((impl, "frozen" if frozen else "trainable", f, s, s - f))
            print(f"  {impl:10s} {rows[-1][1]:9s} forward {f:8.3f} ms  step {s:8.3f} ms  "
                  f"backward {s - f:8.3f} ms", flush=True)
    by = {(impl, setting): b for impl, setting, _, _, b in rows}
    for impl in modules:
        print(f"  {impl:10s} frozen backward / trainable backward: "
              f"{by[(impl, 'frozen')] / by[(impl, 'trainable')]:.3f}", flush=True)
    steps = {(impl, setting): s for impl, setting, _, s, _ in rows}
    for setting in ("trainable", "frozen"):
        print(f"  fmlp / hf_compile step, {setting}: "
              f"{steps[('fmlp', setting)] / steps[('hf_compile', setting)]:.3f}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shapes", default="4096x11008,1024x2816")
    p.add_argument("--tokens", default="8192")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    timer = bench_sweep.Timer(torch.device("cuda"), 50.0, 50, False)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; bf16; ms per call, "
          "medians of per-round medians", flush=True)
    for shape in args.shapes.split(","):
        d, h = (int(v) for v in shape.split("x"))
        for t in (int(v) for v in args.tokens.split(",")):
            print(f"(D, H) = ({d}, {h}), T = {t}", flush=True)
            run(d, h, t, args, timer)


if __name__ == "__main__":
    main()
