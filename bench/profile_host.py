#!/usr/bin/env python3
"""Where an eager call of fmlp's module spends its host time (issue 22's
lean host path): the same module call as bench_sweep.py (FusedGatedMLP
over a LlamaMLP's own Linear modules, bf16), no-grad and a training step,
timed on the host's clock per call (the GPU is far from busy at small T),
beside Hugging Face's LlamaMLP eager, then one cProfile of each fmlp call
kind: the functions with the most own time and the most cumulative time.
The no-grad call is also timed by layer (the runtime call alone, fmlp's
Python without it, the op, the module), and a step with frozen weights.
bench/profile_host_cpu.py times the Python side without a GPU.

  python3 bench/profile_host.py [--d 1024] [--h 2816] [--tokens 1] [--calls 2000]

Needs a GPU, torch, transformers, and the bundle in FMLP_CACHE_DIR
(python/tests/make-gpu-cache.sh).
"""
import argparse
import cProfile
import io
import pstats
import time

import torch

import fmlp
from bench_sweep import make_modules, module_calls  # same directory


# The names in the printed lines (those of the recorded runs' greps).
LABELS = {"nograd": "no-grad", "train": "train", "fmlp": "fmlp", "hf_eager": "HF eager"}


def host_us(call, calls):
    """Median over 5 rounds of the host time per call (us), the stream
    drained once per round (not per call: the host's own cost is wanted)."""
    rounds = []
    for _ in range(5):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            call()
        host = time.perf_counter() - start
        torch.cuda.synchronize()
        rounds.append(host / calls * 1e6)
    return sorted(rounds)[2]


def dispatch(fused, x, calls):
    """The no-grad op's host time by layer: the runtime call alone
    (ctypes -> fmlp_launch: its checks, tensor maps, cuLaunchKernel, with
    the tensor descriptions of a previous call), the op's body without that
    call (fmlp's Python: allocation, descriptions written in place), the
    op's body, the op through torch's dispatcher
    (torch.ops.fmlp.forward_nograd, a torch.library op), and the module
    call (guard, cached bundle lookup, then the op)."""
    from fmlp import ops
    params = [p.detach() for p in (fused.gate_proj.weight, fused.up_proj.weight,
                                   fused.down_proj.weight)]
    rows = x.detach().reshape(-1, fused.hidden_size)
    bundle = fused._bundle(rows, params)
    plan = ops._plan(bundle, "forward_nograd", rows)
    kept = plan.run(rows, ops._named(params, rows))  # the buffers the descriptions name
    arguments = ops.parameters(params)
    tensors, launch = plan._tensors(), plan._launch
    stream = torch._C._cuda_getCurrentRawStream(rows.get_device())

    def body_without_launch():
        plan._launch = lambda tensors, stream: None
        try:
            ops._forward_nograd(bundle, rows, *arguments)
        finally:
            plan._launch = launch
    layers = (
        ("the runtime call alone (fmlp_launch)", lambda: launch(tensors, stream)),
        ("the op's body, runtime call stubbed", body_without_launch),
        ("the op's body", lambda: ops._forward_nograd(bundle, rows, *arguments)),
        ("the op (dispatcher)", lambda: torch.ops.fmlp.forward_nograd(bundle, rows, *arguments)),
        ("the module call", lambda: fused(rows)),
    )
    with torch.no_grad():
        for label, call in layers:
            for _ in range(50):
                call()
            print(f"no-grad by layer: {label:40s} host {host_us(call, calls):8.1f} us per call")
    del kept


def frozen_step(fused, x, dy, calls):
    """A training step's host time with every weight frozen (x requires
    grad): the backward computes dX alone, its weight-gradient kernels
    skipped (issue 25)."""
    params = list(fused.parameters())
    for p in params:
        p.requires_grad_(False)
    xx = x.detach().clone().requires_grad_(True)

    def call():
        xx.grad = None
        fused(xx).backward(dy)
    try:
        for _ in range(50):
            call()
        print(f"train, frozen weights: fmlp host {host_us(call, calls):8.1f} us per call")
    finally:
        for p in params:
            p.requires_grad_(True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--d", type=int, default=1024)
    p.add_argument("--h", type=int, default=2816)
    p.add_argument("--tokens", type=int, default=1)
    p.add_argument("--calls", type=int, default=2000)
    args = p.parse_args()
    # The modules and calls of bench_sweep.py (same weights, same call path).
    modules, original, x, dy = make_modules(args.d, args.h, args.tokens, torch.device("cuda"),
                                            torch.bfloat16, ["fmlp", "hf_eager"])
    fused = modules["fmlp"]
    calls = module_calls(modules, original, x, dy)

    print(f"D={args.d} H={args.h} T={args.tokens} bf16, {torch.cuda.get_device_name()}, "
          f"torch {torch.__version__}, fmlp {fmlp.__version__}")
    for mode in ("nograd", "train"):
        for impl in ("fmlp", "hf_eager"):
            call = calls[mode, impl]
            for _ in range(50):
                call()
            print(f"{LABELS[mode]:8s} {LABELS[impl]:9s} host "
                  f"{host_us(call, args.calls):8.1f} us per call")
    dispatch(fused, x, args.calls)
    frozen_step(fused, x, dy, args.calls)
    for mode in ("nograd", "train"):
        call = calls[mode, "fmlp"]
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(args.calls):
            call()
        profile.disable()
        torch.cuda.synchronize()
        for key in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats(key).print_stats(18)
            print(f"\n== fmlp {LABELS[mode]}: cProfile of {args.calls} calls, by {key}")
            print("\n".join(line for line in out.getvalue().splitlines()
                            if line.strip())[:6000])


if __name__ == "__main__":
    main()
