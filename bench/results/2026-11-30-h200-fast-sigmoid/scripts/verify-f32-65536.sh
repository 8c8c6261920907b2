#!/usr/bin/env bash
# Device: the last cell of issue 5's matrix on main's final kernels ($1):
# f32 (IEEE SIMT) at T = 65536, both shapes ((4096, 11008) judged at sampled
# tokens and hidden units, as bf16 and f16 are there).
cd "$(dirname "$0")/.."
B=$1 R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null 2>&1 && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for shape in "1024 2816" "4096 11008"; do
  read -r d h <<< "$shape"
  timeout 240 $T $B/mlp-f32-$d-$h.bundle f32 $d $h 65536 >> $R/gpu-test-f32-65536.log 2>&1; echo "rc=$? f32 $d $h $(( $(date +%s) - s )) s"
done
grep -E "failure\(s\)|FAIL|CONTROL PASSED" $R/gpu-test-f32-65536.log
