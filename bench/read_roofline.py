#!/usr/bin/env python3
"""What a read of the weights costs on this GPU, beside fmlp's no-grad
forward at (4096, 11008), T = 1 and 16 in the same run: the achievable read
bandwidth (torch's reduction and a Triton read kernel in four shapes) for
K1's 180 MB (Wg, Wu) and K2's 90 MB (Wd), both kernels back to back (the
read floor of a two-kernel forward), and a 1 GiB copy (what bench_sweep.py
calls the weight floor's bandwidth). CUDA events around graph replays,
medians of 50.

  FMLP_CACHE_DIR=... FMLP_RUNTIME_LIB=... python3 bench/read_roofline.py
"""
import statistics

import torch
import triton
import triton.language as tl


@triton.jit
def read_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    base = pid * BLOCK * ITERS
    for i in range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(out_ptr + pid, tl.sum(acc))


def timed(fn, samples=50, replays=20):
    """us per call: fn captured in a CUDA graph, `replays` replays back to
    back between two events, the median of `samples`."""
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    ts = []
    for _ in range(samples):
        s, e = torch.cuda.Event(True), torch.cuda.Event(True)
        s.record()
        for _ in range(replays):
            g.replay()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1e3 / replays)
    return statistics.median(ts)


def main():
    k1 = torch.randn(2 * 11008, 4096, device="cuda", dtype=torch.bfloat16)
    k2 = torch.randn(4096, 11008, device="cuda", dtype=torch.bfloat16)
    out = torch.empty(1 << 20, device="cuda")

    def tri(x, block=4096, iters=8):
        """A read of all of x by programs of block x iters elements."""
        n = x.numel()
        grid = triton.cdiv(n, block * iters)
        return lambda: read_sum[(grid,)](x, out, n, BLOCK=block, ITERS=iters)

    for name, x in (("K1's 180 MB", k1), ("K2's 90 MB", k2)):
        nbytes = x.numel() * 2
        for label, fn in (("torch sum", lambda x=x: x.sum(dtype=torch.float32)),
                          ("triton read 4096x8", tri(x)), ("triton read 8192x4", tri(x, 8192, 4)),
                          ("triton read 2048x16", tri(x, 2048, 16)),
                          ("triton read 1024x32", tri(x, 1024, 32))):
            us = timed(fn)
            print(f"{name}: {label}: {us:.1f} us, {nbytes / us / 1e6:.2f} TB/s", flush=True)
    both = lambda: (tri(k1, 2048, 16)(), tri(k2, 2048, 16)())
    us = timed(both)
    print(f"both (2048x16), two kernels back to back: {us:.1f} us, {(k1.numel() + k2.numel()) * 2 / us / 1e6:.2f} TB/s")
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    us = timed(lambda: dst.copy_(src))
    print(f"copy 1 GiB: {us:.1f} us, {2 * src.numel() / us / 1e6:.2f} TB/s read+written")
    import fmlp
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaMLP
    config = LlamaConfig(hidden_size=4096, intermediate_size=11008, hidden_act="silu")
    with torch.device("cuda"):
        mlp = fmlp.FusedGatedMLP.wrap(LlamaMLP(config).to(torch.bfloat16), config)
    for t in (1, 16):
        x = torch.randn(t, 4096, device="cuda", dtype=torch.bfloat16)
        with torch.no_grad():
            us = timed(lambda: mlp(x))
        print(f"fmlp no-grad forward T={t}: {us:.1f} us, {3 * 4096 * 11008 * 2 / us / 1e6:.2f} TB/s of weights")


if __name__ == "__main__":
    main()
