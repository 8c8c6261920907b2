#!/usr/bin/env bash
# Session 44 (issue 24): the bundles s44c.sh reads: bf16 on the mma_sync
# strategy on sm_90a, one block a multiprocessor (the default) against two
# (--fmlp-mma-sync-blocks-per-multiprocessor=2: 128 columns, at most 128
# registers a thread, half the shared memory; k-tiles of 64-byte rows, as
# 128-byte ones spill 4 B in (4096, 11008)'s input_grad at 128 registers):
#   .device/s44c/mma1  --strategy=mma_sync
#   .device/s44c/mma2  --strategy=mma_sync --fmlp-mma-sync-blocks-per-multiprocessor=2
#                      --fmlp-mma-sync-tile-k-bytes=64
set -euo pipefail
cd "$(dirname "$0")/../../../.."
compile=build/bin/fmlp-compile set=$(mktemp -d)
rm -rf .device/s44c; mkdir -p .device/s44c/mma1 .device/s44c/mma2
DTYPES=bf16 bash test/GPU/make-bundles.sh "$set" > /dev/null
for shape in 64-128 1088-704 1024-2816 4096-11008; do
  $compile "$set/mlp-bf16-$shape.mlir" --chip=sm_90a --strategy=mma_sync \
    -o ".device/s44c/mma1/mlp-bf16-$shape.bundle" --report=false
  $compile "$set/mlp-bf16-$shape.mlir" --chip=sm_90a --strategy=mma_sync \
    --fmlp-mma-sync-blocks-per-multiprocessor=2 --fmlp-mma-sync-tile-k-bytes=64 \
    -o ".device/s44c/mma2/mlp-bf16-$shape.bundle" --report=false
done
rm -rf "$set"
grep -hE "Used" .device/s44c/mma2/*/ptxas.log | awk '{print $5}' | sort -n | uniq -c | tr '\n' ' '; echo "registers (mma2)"
du -sh .device/s44c/*
