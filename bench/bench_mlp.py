#!/usr/bin/env python3
"""Times fmlp's bundles on the GPU against cuBLAS (torch.matmul), PyTorch
eager and torch.compile of the same SwiGLU MLP, all in one run
(../shared/PERFORMANCE.md's method: CUDA events, warm-up, median).

  python3 bench/bench_mlp.py BUNDLES RUNTIME_LIB [--out FILE]

BUNDLES holds mlp-bf16-D-H.bundle from test/GPU/make-bundles.sh; RUNTIME_LIB
is libfmlp_runtime.so. fmlp is called through its C API (ctypes) on torch's
current stream with torch-allocated buffers.
"""
import argparse
import ctypes
import json
import re
import statistics

import torch
import torch.nn.functional as F

MAX_RANK = 8
DTYPES = {torch.float32: 0, torch.bfloat16: 1, torch.float16: 2}


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("sizes", ctypes.c_int64 * MAX_RANK),
                ("strides", ctypes.c_int64 * MAX_RANK)]


def describe(t):
    d = Tensor()
    d.data = t.data_ptr()
    d.dtype = DTYPES[t.dtype]
    d.rank = t.dim()
    for i, (s, st) in enumerate(zip(t.shape, t.stride())):
        d.sizes[i], d.strides[i] = s, st
    return d


class Bundle:
    def __init__(self, lib, path):
        self.lib = lib
        self.handle = ctypes.c_void_p()
        self.check(lib.fmlp_bundle_open(path.encode(), ctypes.byref(self.handle)))
        self.check(lib.fmlp_bundle_load(self.handle))

    def check(self, status):
        if status != 0:
            raise RuntimeError(self.lib.fmlp_last_error().decode())

    def entry(self, name):
        index = ctypes.c_int()
        self.check(self.lib.fmlp_entry_find(self.handle, name.encode(), ctypes.byref(index)))
        return index.value

    def launch(self, entry, tensors):
        array = (Tensor * len(tensors))(*[describe(t) for t in tensors])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        self.check(self.lib.fmlp_launch(self.handle, entry, array, len(tensors), stream))

    def kernels(self, entry):
        return [self.lib.fmlp_kernel_name(self.handle, entry, k).decode()
                for k in range(self.lib.fmlp_kernel_count(self.handle, entry))]

    def launch_kernel(self, entry, kernel, tensors):
        """One kernel of an entry point alone (for its time only)."""
        array = (Tensor * len(tensors))(*[describe(t) for t in tensors])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        self.check(self.lib.fmlp_launch_kernel(self.handle, entry, kernel, array,
                                               len(tensors), stream))


def load_runtime(path):
    lib = ctypes.CDLL(path)
    lib.fmlp_last_error.restype = ctypes.c_char_p
    lib.fmlp_bundle_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.fmlp_bundle_load.argtypes = [ctypes.c_void_p]
    lib.fmlp_entry_find.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
    lib.fmlp_launch.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    lib.fmlp_kernel_count.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.fmlp_kernel_name.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    lib.fmlp_kernel_name.restype = ctypes.c_char_p
    lib.fmlp_launch_kernel.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                       ctypes.c_int, ctypes.c_void_p]
    return lib


# Which cuBLAS GEMM each kernel replaces, by the kernel op in its name.
KERNEL_GEMM = {"gate_up": "K1 x@Wgu^T", "down": "K2 A@Wd^T", "down_grad": "K3 dY@Wd",
               "input_grad": "K4 dGU@Wgu", "gate_up_weight_grad": "K5 dGU^T@x",
               "down_weight_grad": "K6 dY^T@A"}


def gemm_of(kernel):
    match = re.search(r"_k\d+_(\w+)$", kernel)  # <entry>_k<index>_<op>
    return KERNEL_GEMM.get(match.group(1)) if match else None


def median_ms(fn, warmup=3, reps=10):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


class SwiGLU(torch.nn.Module):
    """LlamaMLP's math: down(silu(gate(x)) * up(x))."""

    def __init__(self, wg, wu, wd):
        super().__init__()
        self.wg, self.wu, self.wd = (torch.nn.Parameter(w) for w in (wg, wu, wd))

    def forward(self, x):
        return F.linear(F.silu(F.linear(x, self.wg)) * F.linear(x, self.wu), self.wd)


def bench_shape(lib, bundles, d, h, t, dtype=torch.bfloat16):
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(0)
    x = torch.randn(t, d, device=dev, dtype=dtype, generator=g)
    dy = torch.randn(t, d, device=dev, dtype=dtype, generator=g)
    wg, wu = (torch.randn(h, d, device=dev, dtype=dtype, generator=g) * 0.02 for _ in range(2))
    wd = torch.randn(d, h, device=dev, dtype=dtype, generator=g) * 0.02
    bundle = Bundle(lib, f"{bundles}/mlp-bf16-{d}-{h}.bundle")
    fwd, bwd, nograd = bundle.entry("forward"), bundle.entry("backward"), bundle.entry("forward_nograd")
    y, dx = torch.empty_like(x), torch.empty_like(x)
    saved = torch.empty(t, 3 * h, device=dev, dtype=dtype)
    workspace = torch.empty(t, h, device=dev, dtype=dtype)
    dwg, dwu, dwd = torch.empty_like(wg), torch.empty_like(wu), torch.empty_like(wd)

    def f_forward():
        bundle.launch(fwd, [x, wg, wu, wd, y, saved])

    def f_nograd():
        bundle.launch(nograd, [x, wg, wu, wd, y, workspace])

    def f_step():
        f_forward()
        bundle.launch(bwd, [x, wg, wu, wd, dy, dx, dwg, dwu, dwd, saved])

    r = {"D": d, "H": h, "T": t}
    forward_args = [x, wg, wu, wd, y, saved]
    backward_args = [x, wg, wu, wd, dy, dx, dwg, dwu, dwd, saved]
    f_forward()  # saved holds activations for the backward's kernels
    r["fmlp_kernel_ms"] = {}
    for entry, args in ((fwd, forward_args), (bwd, backward_args)):
        for k, name in enumerate(bundle.kernels(entry)):
            r["fmlp_kernel_ms"][name] = median_ms(
                lambda: bundle.launch_kernel(entry, k, args))
    r["fmlp_forward_ms"] = median_ms(f_forward)
    r["fmlp_nograd_ms"] = median_ms(f_nograd)
    r["fmlp_step_ms"] = median_ms(f_step)
    r["fmlp_backward_ms"] = r["fmlp_step_ms"] - r["fmlp_forward_ms"]

    # cuBLAS on each GEMM of an unfused implementation.
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
    r["cublas_ms"] = {name: median_ms(fn) for name, fn in gemms.items()}
    r["gemm_floor_ms"] = sum(r["cublas_ms"].values())
    r["cublas_forward_ms"] = r["cublas_ms"]["K1 x@Wgu^T"] + r["cublas_ms"]["K2 A@Wd^T"]

    module = SwiGLU(wg.clone(), wu.clone(), wd.clone())
    xg = x.clone().requires_grad_(True)

    def eager_step():
        module(xg).backward(dy)

    def eager_nograd():
        with torch.no_grad():
            module(x)

    compiled = torch.compile(module)

    def compiled_step():
        compiled(xg).backward(dy)

    def compiled_nograd():
        with torch.no_grad():
            compiled(x)

    for name, fn in (("eager_step", eager_step), ("eager_nograd", eager_nograd),
                     ("compile_step", compiled_step), ("compile_nograd", compiled_nograd)):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        r[name + "_ms"] = median_ms(fn)
        r[name + "_peak_extra_bytes"] = torch.cuda.max_memory_allocated() - base
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
    lib = load_runtime(args.runtime)
    torch.cuda.init()
    rows = []
    for d, h in ((1024, 2816), (4096, 11008)):
        for t in (int(v) for v in args.tokens.split(",")):
            r = bench_shape(lib, args.bundles, d, h, t)
            rows.append(r)
            c = r["cublas_ms"]
            print(f"D={d} H={h} T={t} bf16 (medians, ms; ratio > 1: fmlp slower)")
            print(f"  forward   fmlp {r['fmlp_forward_ms']:.3f} ({r['fmlp_forward_tflops']:.0f} TFLOP/s)"
                  f"  cuBLAS K1+K2 GEMMs {r['cublas_forward_ms']:.3f}  ratio {r['fmlp_forward_ms'] / r['cublas_forward_ms']:.2f}")
            print(f"  no-grad   fmlp {r['fmlp_nograd_ms']:.3f}  eager {r['eager_nograd_ms']:.3f}"
                  f"  compile {r['compile_nograd_ms']:.3f}  ratio to compile {r['fmlp_nograd_ms'] / r['compile_nograd_ms']:.2f}")
            print(f"  step      fmlp {r['fmlp_step_ms']:.3f} ({r['fmlp_step_tflops']:.0f} TFLOP/s)"
                  f"  eager {r['eager_step_ms']:.3f}  compile {r['compile_step_ms']:.3f}"
                  f"  GEMM floor {r['gemm_floor_ms']:.3f}  ratio to compile {r['fmlp_step_ms'] / r['compile_step_ms']:.2f}")
            print("  cuBLAS per GEMM: " + ", ".join(f"{k} {v:.3f}" for k, v in c.items()))
            print("  fmlp per kernel (ratio to its cuBLAS GEMM): " + ", ".join(
                f"{k} {v:.3f} ({v / c[gemm_of(k)]:.2f})" if gemm_of(k) else f"{k} {v:.3f}"
                for k, v in r["fmlp_kernel_ms"].items()))
            print(f"  memory: fmlp saved {r['fmlp_saved_bytes'] / 2**20:.0f} MiB, no-grad workspace "
                  f"{r['fmlp_nograd_workspace_bytes'] / 2**20:.0f} MiB; eager step peak extra "
                  f"{r['eager_step_peak_extra_bytes'] / 2**20:.0f} MiB, compile step peak extra "
                  f"{r['compile_step_peak_extra_bytes'] / 2**20:.0f} MiB", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
