#!/usr/bin/env python3
"""How the weight stream's access pattern sets its bandwidth: a read of a
[N, K] bf16 matrix (K1's Wg;Wu at (4096, 11008): N = 22016, K = 4096; K2's
Wd: N = 4096, K = 11008) by programs of R rows, each program walking K in
steps of W elements per row (a [R, W] tile a step, W * 2 bytes contiguous
per row), split into S programs along K, as fmlp's small_tokens kernels read
(R = 16 or 32 rows a block, 64 bytes a row a step, the 8 warps of a block
on 8 ranges of K) and with longer runs per row. Sums what it reads (the
result is kept). CUDA events around graph replays, medians.

  python3 bench/read_patterns.py
"""
import torch
import triton
import triton.language as tl

from read_roofline import timed  # same directory


@triton.jit
def read_rows(w_ptr, out_ptr, N, K, KS, R: tl.constexpr, W: tl.constexpr):
    rows = tl.program_id(0) * R + tl.arange(0, R)
    k0 = tl.program_id(1) * KS
    acc = tl.zeros([R, W], dtype=tl.float32)
    for k in range(k0, k0 + KS, W):
        cols = k + tl.arange(0, W)
        acc += tl.load(w_ptr + rows[:, None] * K + cols[None, :],
                       mask=(cols[None, :] < K), other=0.0).to(tl.float32)
    tl.store(out_ptr + tl.program_id(1) * N + rows, tl.sum(acc, 1))


def main():
    for name, (n, k) in (("K1 Wg;Wu", (22016, 4096)), ("K2 Wd", (4096, 11008))):
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(64 * n, device="cuda")
        for r, width, splits, warps in ((32, 32, 1, 8), (16, 32, 1, 8), (16, 32, 8, 1),
                                        (32, 32, 8, 1), (16, 256, 1, 8), (16, 256, 8, 2),
                                        (32, 256, 1, 8), (16, 512, 1, 8), (8, 512, 1, 4),
                                        (4, 1024, 1, 4), (16, 128, 8, 2), (32, 128, 4, 4)):
            ks = triton.cdiv(triton.cdiv(k, splits), width) * width
            grid = (n // r, splits)
            fn = lambda: read_rows[grid](w, out, n, k, ks, R=r, W=width, num_warps=warps)  # noqa: E731
            us = timed(fn)
            print(f"{name}: rows {r:3d}, {width * 2:5d} B a row a step, K in {splits} "
                  f"programs, {warps} warps, {grid[0] * grid[1]:6d} programs: {us:6.1f} us, "
                  f"{n * k * 2 / us / 1e6:.2f} TB/s", flush=True)


if __name__ == "__main__":
    main()
