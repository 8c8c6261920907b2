#!/usr/bin/env python3
"""Launches every kernel of one bundle (bf16 unless --dtype) twice, forward
then backward, for a profiler to pick one of them (ncu --kernel-name ...
--launch-skip 1).

  python3 bench/kernel_probe.py BUNDLES D H [--tokens 8192] [--dtype bf16]

BUNDLES holds mlp-DTYPE-D-H.bundle (test/GPU/make-bundles.sh); the runtime
library is FMLP_RUNTIME_LIB.
"""
import argparse

import torch

from compare_bundles import DTYPES, kernels_of  # noqa: E402  (same directory)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bundles")
    p.add_argument("d", type=int)
    p.add_argument("h", type=int)
    p.add_argument("--tokens", type=int, default=8192)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="bf16")
    args = p.parse_args()
    _, kernels, _ = kernels_of(args.bundles, args.dtype, args.d, args.h, args.tokens)
    for _ in range(2):
        for name, launch in kernels.items():
            if not name.startswith("step"):
                launch()
    torch.cuda.synchronize()
    print("done")


if __name__ == "__main__":
    main()
