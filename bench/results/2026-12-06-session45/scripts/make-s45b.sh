#!/usr/bin/env bash
# Session 45 (issue 23): s45b.sh's bundles, by BOTH (make-s45a.sh's third
# compiler: main + the loads ahead + tf32x3's groups of 4 over T):
#   .device/s45b/tf32x3  the Llama shapes (tf32 is make-s45a.sh's .device/s45/ahead/tf32: groups of 4 are tf32x3's only), compare_bundles.py's names
#   .device/s45b/bf16    bf16 at (4096, 11008), for Nsight Compute of its
#                        gate_up (item 98's lead: A from registers)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
: "${BOTH:?}"
set=$(mktemp -d)
rm -rf .device/s45b; mkdir -p .device/s45b/tf32x3
DTYPES=f32 bash test/GPU/make-bundles.sh "$set" > /dev/null 2>&1 || true
for p in tf32x3; do
  for shape in 1024-2816 4096-11008; do
    "$BOTH" "$set/mlp-f32-$shape.mlir" --chip=sm_90a --precision=$p \
      -o ".device/s45b/$p/mlp-f32-$shape.bundle" --report=false
  done
done
mkdir -p .device/s45b/bf16
DTYPES=bf16 bash test/GPU/make-bundles.sh "$set" > /dev/null 2>&1 || true
cp -r "$set/mlp-bf16-4096-11008.bundle" .device/s45b/bf16/
rm -rf "$set"
du -sh .device/s45b
