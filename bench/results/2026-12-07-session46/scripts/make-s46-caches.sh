#!/usr/bin/env bash
# Session 46: the caches s46d.sh, s46e.sh and s46f.sh carry, from
# python/tests/make-gpu-cache.sh's (by this tree's fmlp-compile):
#   .device/g46s  less the benchmarks' memory-policy, tensor-parallel, f16,
#                 (4096, 11008) and f32 ieee bundles (the 64 MB carry limit)
#   .device/p46   its (1024, 2816) f32 bundles at each precision, with and
#                 without biases, and (s46f.sh) the (64, 128) tf32 bundle of
#                 gpu_modules.py's tf32-by-tf32x3 control
set -euo pipefail
cd "$(dirname "$0")/../../../.."
bash python/tests/make-gpu-cache.sh .device/g46 > /dev/null
rm -f .device/g46/*.mlir; rm -rf .device/g46s .device/p46; mkdir -p .device/g46s .device/p46
for b in .device/g46/*.bundle; do
  n=$(basename "$b")
  if ! grep -qE 'savex|saveu|chunk|h1376|h2752|h5504|h1408|d1024-h704|-sm_90a\.bundle$|-f32-.*savegu\.bundle$|d4096|-f16-' <<<"$n"; then
    cp -r "$b" .device/g46s/
  fi
done
cp -r .device/g46/fmlp0.3.0-d1024-h2816-f32-silu-sm_90a-*savegu*.bundle \
  .device/g46/fmlp0.3.0-d64-h128-f32-silu-sm_90a-savegu-tf32.bundle .device/p46/
du -sh .device/g46s .device/p46
