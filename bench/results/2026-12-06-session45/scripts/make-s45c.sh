#!/usr/bin/env bash
# Session 45 (issue 23): s45c.sh's bundles: `tf32` at the Llama shapes by
# BOTH (make-s45a.sh) with the operands rounded (the default) and left to
# the tensor core to truncate (--fmlp-tf32-round-operands=false: K1's A
# then read from shared memory by the WGMMA, no copies of the weights):
#   .device/s45c/{round,trunc}
set -euo pipefail
cd "$(dirname "$0")/../../../.."
: "${BOTH:?}"
set=$(mktemp -d)
rm -rf .device/s45c; mkdir -p .device/s45c/{round,trunc}
DTYPES=f32 bash test/GPU/make-bundles.sh "$set" > /dev/null 2>&1 || true
for shape in 4096-11008; do  # one shape: the 64 MiB carry limit
  "$BOTH" "$set/mlp-f32-$shape.mlir" --chip=sm_90a --precision=tf32 \
    -o ".device/s45c/round/mlp-f32-$shape.bundle" --report=false
  "$BOTH" "$set/mlp-f32-$shape.mlir" --chip=sm_90a --precision=tf32 --fmlp-tf32-round-operands=false \
    -o ".device/s45c/trunc/mlp-f32-$shape.bundle" --report=false
done
rm -rf "$set"
du -sh .device/s45c/*
