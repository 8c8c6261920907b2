#!/usr/bin/env python3
"""Times fmlp's bundles on the GPU, raw launches into preallocated buffers,
against raw torch calls doing the same work: cuBLAS (torch.matmul) per
GEMM, K1's and K3's jobs unfused as torch.compile makes them (cuBLAS beside
a Triton elementwise kernel), and the whole no-grad forward and training
step unfused from those pieces, all in one run
(../shared/PERFORMANCE.md's method: CUDA events, warm-up, median; each
sample a run of back-to-back calls, see median_ms), in
rounds that take every candidate in turn (the GPU's clock drifts by 10-15 %
between measurements minutes apart; each figure is the median of its
per-round medians).

  python3 bench/bench_mlp.py BUNDLES RUNTIME_LIB [--out FILE]

BUNDLES holds mlp-bf16-D-H.bundle from test/GPU/make-bundles.sh; RUNTIME_LIB
is libfmlp_runtime.so. fmlp is called through its C API (python/fmlp's
ctypes binding) on torch's current stream with torch-allocated buffers.

Like for like (PERFORMANCE.md): raw launches here are compared with raw
calls only, never with a module through autograd. The modules (fmlp's
against Hugging Face's, eager, torch.compile and graph-replayed, gradients
set to None each step) are bench_sweep.py's.
"""
import argparse
import json
import os
import re
import statistics
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from fmlp import runtime  # noqa: E402  (the package's binding of the C API)
from fmlp.ops import describe  # noqa: E402


def shape_at(argument, t):
    """An entry argument's shape at T = t (the manifest's -1 rows are T)."""
    return tuple(t if s == -1 else s for s in argument["shape"])


def saved_buffer(entry, t, dtype, device="cuda"):
    """The forward's saved activations at T = t, as wide as the bundle's
    memory policy makes them (the manifest's `saved` argument: 3 H at
    save=agu, 2 H at gu, H at u; none at x)."""
    for a in entry.arguments:
        if a["name"] == "saved":
            return torch.empty(shape_at(a, t), device=device, dtype=dtype)
    raise ValueError(f"{entry.kind}: no saved activations (save=x): not timed here")


def launcher(entry):
    """Launches `entry` (or one of its kernels) on torch's current stream.
    The tensors are the entry's first arguments (x first); those past them
    must be workspaces (a split-K kernel's split_k_workspace), made here
    once per shape (-1 rows: x's) and kept on the entry; zeroed, so that a
    split-K kernel launched alone (per-kernel timings) finds its counters
    zero, as it leaves them."""
    if not hasattr(entry, "scratch"):
        entry.scratch = {}

    def launch(tensors, kernel=None):
        tensors = list(tensors)
        for a in entry.arguments[len(tensors):]:
            if a["role"] != "workspace":
                raise ValueError(f"{entry.kind}: argument {a['name']} not given")
            shape = shape_at(a, tensors[0].shape[0])
            if (a["name"], shape) not in entry.scratch:
                entry.scratch[(a["name"], shape)] = torch.zeros(
                    shape, device=tensors[0].device, dtype=tensors[0].dtype)
            tensors.append(entry.scratch[(a["name"], shape)])
        described = [describe(t) for t in tensors]
        stream = torch.cuda.current_stream().cuda_stream
        if kernel is None:
            entry.launch(described, stream)
        else:
            entry.launch_kernel(kernel, described, stream)
    return launch


# Which cuBLAS GEMM each kernel replaces, by the kernel op in its name.
KERNEL_GEMM = {"gate_up": "K1 x@Wgu^T", "down": "K2 A@Wd^T", "down_grad": "K3 dY@Wd",
               "input_grad": "K4 dGU@Wgu", "gate_up_weight_grad": "K5 dGU^T@x",
               "down_weight_grad": "K6 dY^T@A"}


def kernel_op(kernel):
    """The kernel op in a kernel's name, <entry>_k<index>_<op>."""
    match = re.search(r"_k\d+_(\w+)$", kernel)
    return match.group(1) if match else None


def gemm_of(kernel):
    return KERNEL_GEMM.get(kernel_op(kernel))


# The fused kernels whose job an unfused implementation does as a GEMM and
# an elementwise kernel: kernel op -> the name of that job's timing.
KERNEL_UNFUSED = {"gate_up": "K1 job", "down_grad": "K3 job"}


def unfused_of(kernel):
    return KERNEL_UNFUSED.get(kernel_op(kernel))


def median_ms(fn, warmup=3, reps=10, busy_ms=2.0):
    """Median over `reps` samples of fn's time per call. A sample times a
    run of back-to-back calls lasting about `busy_ms` on the GPU, as the
    kernels of a training step run: the host's work for a call (Python,
    ctypes, tensor-map encoding; cuBLAS's and eager's dispatch alike)
    overlaps the previous call's GPU work. Timed alone between two events,
    a 0.1-ms kernel would carry all of its launch's host time."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    calls = max(1, min(50, round(busy_ms / max(start.elapsed_time(end), 1e-3))))
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def gate_up_unfused(x, wgu):
    """K1's job unfused: G and U by one GEMM, then A = silu(G) U."""
    gu = x @ wgu.t()
    g, u = gu.chunk(2, dim=-1)
    return F.silu(g) * u, gu


def down_grad_unfused(dy, wd, g, u):
    """K3's job unfused: dA = dY Wd, then dGU = [dG, dU] with
    dG = dA U silu'(G) and dU = dA silu(G), silu'(g) = s (1 + g (1 - s)),
    s = sigmoid(g) (one [T, 2H] result, as fmlp's K3 writes dG and dU side
    by side for K4 and K5)."""
    da = dy @ wd
    s = torch.sigmoid(g)
    return torch.cat([da * u * s * (1 + g * (1 - s)), da * g * s], dim=-1)


def unfused_step(x, dy, wgu, wd, gate_up_job, down_grad_job):
    """A training step's work as an unfused implementation does it, in raw
    calls (no autograd): K1's job, y = A Wd^T, K3's job, then
    dX = dGU Wgu, dWgu = dGU^T X, dWd = dY^T A. Returns y, dX, dWgu, dWd."""
    a, gu = gate_up_job(x, wgu)
    y = a @ wd.t()
    g, u = gu.chunk(2, dim=-1)
    dgu = down_grad_job(dy, wd, g, u)
    return y, dgu @ wgu, dgu.t() @ x, dy.t() @ a


def unfused_nograd(x, wgu, wd, gate_up_job):
    """The no-grad forward unfused, in raw calls: K1's job, then A Wd^T."""
    return gate_up_job(x, wgu)[0] @ wd.t()


def bench_shape(bundles, d, h, t, dtype=torch.bfloat16, rounds=5):
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(0)
    x = torch.randn(t, d, device=dev, dtype=dtype, generator=g)
    dy = torch.randn(t, d, device=dev, dtype=dtype, generator=g)
    wg, wu = (torch.randn(h, d, device=dev, dtype=dtype, generator=g) * 0.02 for _ in range(2))
    wd = torch.randn(d, h, device=dev, dtype=dtype, generator=g) * 0.02
    bundle = runtime.Bundle(f"{bundles}/mlp-bf16-{d}-{h}.bundle")
    bundle.load()
    fwd, bwd, nograd = (bundle.entry(kind) for kind in ("forward", "backward", "forward_nograd"))
    y, dx = torch.empty_like(x), torch.empty_like(x)
    saved = saved_buffer(fwd, t, dtype, dev)
    workspace = torch.empty(t, h, device=dev, dtype=dtype)
    dwg, dwu, dwd = torch.empty_like(wg), torch.empty_like(wu), torch.empty_like(wd)

    def f_forward():
        launcher(fwd)([x, wg, wu, wd, y, saved])

    def f_nograd():
        launcher(nograd)([x, wg, wu, wd, y, workspace])

    def f_step():
        f_forward()
        launcher(bwd)([x, wg, wu, wd, dy, dx, dwg, dwu, dwd, saved])

    r = {"D": d, "H": h, "T": t}
    forward_args = [x, wg, wu, wd, y, saved]
    backward_args = [x, wg, wu, wd, dy, dx, dwg, dwu, dwd, saved]
    f_forward()  # saved holds activations for the backward's kernels
    # Everything timed, by name: fmlp's kernels and entry points, cuBLAS on
    # each GEMM of an unfused implementation, eager and torch.compile.
    timed = {}
    for entry, args in ((fwd, forward_args), (bwd, backward_args)):
        # The kernels a launch at this T runs (a variant for other T is
        # refused by launch_kernel).
        for k, name in entry.kernels_at(t):
            timed["kernel " + name] = (lambda e=entry, a=args, k=k: launcher(e)(a, kernel=k))
    timed.update({"fmlp_forward": f_forward, "fmlp_nograd": f_nograd, "fmlp_step": f_step})
    wgu = torch.cat([wg, wu])
    a = torch.randn(t, h, device=dev, dtype=dtype, generator=g)
    dgu = torch.randn(t, 2 * h, device=dev, dtype=dtype, generator=g)
    gemms = {
        "K1 x@Wgu^T": lambda: x @ wgu.t(),
        "K2 A@Wd^T": lambda: a @ wd.t(),
        "K3 dY@Wd": lambda: dy @ wd,
        "K4 dGU@Wgu": lambda: dgu @ wgu,
        "K5 dGU^T@x": lambda: dgu.t() @ x,
        "K6 dY^T@A": lambda: dy.t() @ a,
    }
    timed.update({"cublas " + name: fn for name, fn in gemms.items()})
    # K1's and K3's jobs as torch.compile does them unfused: cuBLAS's GEMM
    # beside one generated (Triton) elementwise kernel, the hand-written
    # pairing fmlp replaces. Their GEMMs alone are the cuBLAS rows above.
    # The whole no-grad forward and training step unfused, from those
    # pieces, as raw calls: the like-for-like counterparts of fmlp_nograd
    # and fmlp_step (torch allocates their outputs from its caching
    # allocator; fmlp's go into preallocated buffers).
    g_saved, u_saved = (torch.randn(t, h, device=dev, dtype=dtype, generator=g) for _ in range(2))
    gate_up_job, down_grad_job = torch.compile(gate_up_unfused), torch.compile(down_grad_unfused)
    timed["unfused K1 job"] = lambda: gate_up_job(x, wgu)
    timed["unfused K3 job"] = lambda: down_grad_job(dy, wd, g_saved, u_saved)
    timed["unfused_nograd"] = lambda: unfused_nograd(x, wgu, wd, gate_up_job)
    timed["unfused_step"] = lambda: unfused_step(x, dy, wgu, wd, gate_up_job, down_grad_job)
    # Rounds over everything in turn, so that clock and thermal drift (10-15 %
    # between calls on the H200) fall on fmlp and its baselines alike; the
    # median of each one's per-round medians.
    samples = {name: [] for name in timed}
    for _ in range(rounds):
        for name, fn in timed.items():
            samples[name].append(median_ms(fn, warmup=1, reps=5))
    ms = {name: statistics.median(v) for name, v in samples.items()}
    r["fmlp_kernel_ms"] = {n.removeprefix("kernel "): v for n, v in ms.items() if n.startswith("kernel ")}
    r["cublas_ms"] = {n.removeprefix("cublas "): v for n, v in ms.items() if n.startswith("cublas ")}
    r["unfused_ms"] = {n.removeprefix("unfused "): v for n, v in ms.items() if n.startswith("unfused ")}
    for name in ("fmlp_forward", "fmlp_nograd", "fmlp_step", "unfused_nograd", "unfused_step"):
        r[name + "_ms"] = ms[name]
    r["fmlp_backward_ms"] = r["fmlp_step_ms"] - r["fmlp_forward_ms"]
    r["gemm_floor_ms"] = sum(r["cublas_ms"].values())
    r["cublas_forward_ms"] = r["cublas_ms"]["K1 x@Wgu^T"] + r["cublas_ms"]["K2 A@Wd^T"]
    r["fmlp_saved_bytes"] = saved.numel() * saved.element_size()
    r["fmlp_nograd_workspace_bytes"] = workspace.numel() * workspace.element_size()
    flop_step, flop_fwd = 18 * t * d * h, 6 * t * d * h
    r["fmlp_step_tflops"] = flop_step / r["fmlp_step_ms"] / 1e9
    r["fmlp_forward_tflops"] = flop_fwd / r["fmlp_forward_ms"] / 1e9
    return r


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bundles")
    p.add_argument("runtime")
    p.add_argument("--out", default=None)
    p.add_argument("--tokens", default="8192,32768")
    args = p.parse_args()
    os.environ["FMLP_RUNTIME_LIB"] = args.runtime
    torch.cuda.init()
    rows = []
    for d, h in ((1024, 2816), (4096, 11008)):
        for t in (int(v) for v in args.tokens.split(",")):
            r = bench_shape(args.bundles, d, h, t)
            rows.append(r)
            c = r["cublas_ms"]
            print(f"D={d} H={h} T={t} bf16 (medians, ms; ratio > 1: fmlp slower)")
            print(f"  forward   fmlp {r['fmlp_forward_ms']:.3f} ({r['fmlp_forward_tflops']:.0f} TFLOP/s)"
                  f"  cuBLAS K1+K2 GEMMs {r['cublas_forward_ms']:.3f}  ratio {r['fmlp_forward_ms'] / r['cublas_forward_ms']:.2f}")
            print(f"  no-grad   fmlp {r['fmlp_nograd_ms']:.3f}  unfused (K1 job + cuBLAS K2, raw)"
                  f" {r['unfused_nograd_ms']:.3f}  ratio {r['fmlp_nograd_ms'] / r['unfused_nograd_ms']:.2f}")
            print(f"  step      fmlp {r['fmlp_step_ms']:.3f} ({r['fmlp_step_tflops']:.0f} TFLOP/s)"
                  f"  unfused (jobs + cuBLAS, raw) {r['unfused_step_ms']:.3f}"
                  f"  ratio {r['fmlp_step_ms'] / r['unfused_step_ms']:.2f}"
                  f"  GEMM floor {r['gemm_floor_ms']:.3f}  ratio {r['fmlp_step_ms'] / r['gemm_floor_ms']:.2f}")
            print("  cuBLAS per GEMM: " + ", ".join(f"{k} {v:.3f}" for k, v in c.items()))
            print("  fmlp per kernel (ratio to its cuBLAS GEMM): " + ", ".join(
                f"{k} {v:.3f} ({v / c[gemm_of(k)]:.2f})" if gemm_of(k) else f"{k} {v:.3f}"
                for k, v in r["fmlp_kernel_ms"].items()))
            u = r["unfused_ms"]
            print("  fused kernel against its job unfused (torch.compile: cuBLAS + Triton): " + ", ".join(
                f"{k} {v:.3f} vs {u[unfused_of(k)]:.3f} ({v / u[unfused_of(k)]:.2f})"
                for k, v in r["fmlp_kernel_ms"].items() if unfused_of(k)))
            print(f"  memory: fmlp saved {r['fmlp_saved_bytes'] / 2**20:.0f} MiB, no-grad workspace "
                  f"{r['fmlp_nograd_workspace_bytes'] / 2**20:.0f} MiB", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
