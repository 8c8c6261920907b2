#!/usr/bin/env bash
# Device, call B of the session's final kernels ($1): the cells call A left,
# T = 65536 (sampled where the float64 reference would not fit) and f16 at
# (4096, 11008), most needed first.
cd "$(dirname "$0")/.."
B=$1 R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for a in "bf16 1024 2816 65536" "f16 1024 2816 65536" "bf16 4096 11008 65536" "f16 4096 11008 1 37 4096 65536" "f32 1024 2816 65536" "f32 4096 11008 4096 65536"; do
  read -r dt d h rest <<< "$a"
  timeout 200 $T $B/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test-b.log 2>&1; rc=$?; echo "rc=$rc ($a) $(( $(date +%s) - s )) s"
  grep -E "failure\(s\)" $R/gpu-test-b.log | tail -1
done
