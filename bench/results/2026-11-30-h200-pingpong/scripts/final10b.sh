#!/usr/bin/env bash
# Device, call B on main's kernels ($1): T = 65536 (sampled where the
# float64 reference would not fit), the dtypes given ($2..., default bf16 f16).
cd "$(dirname "$0")/.."
B=$1 R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test; s=$(date +%s); shift
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for dt in ${@:-bf16 f16}; do for shape in "1024 2816" "4096 11008"; do
  read -r d h <<< "$shape"
  timeout 240 $T $B/mlp-$dt-$d-$h.bundle $dt $d $h 65536 >> $R/gpu-test-65536.log 2>&1; rc=$?; echo "rc=$rc ($dt $d $h 65536) $(( $(date +%s) - s )) s"
  grep -E "failure\(s\)" $R/gpu-test-65536.log | tail -1
done; done
