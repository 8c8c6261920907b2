#!/usr/bin/env bash
# Device: the rest of the issue's correctness matrix on main's final kernels
# ($1): f32 (IEEE SIMT) at both shapes, and T = 65536 at bf16 and f16.
cd "$(dirname "$0")/.."
B=$1 R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null 2>&1 && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
run() { # LIMIT LOG DTYPE D H T...
  local limit=$1 log=$2; shift 2
  timeout $limit $T $B/mlp-$1-$2-$3.bundle "$@" >> $R/$log 2>&1; local rc=$?
  echo "rc=$rc ($*) $(( $(date +%s) - s )) s"; grep -E "failure\(s\)" $R/$log | tail -1
}
run 120 gpu-test-f32.log f32 1024 2816 0 1 37 2597 4096
run 200 gpu-test-f32.log f32 4096 11008 0 1 37 4096
run 120 gpu-test-65536.log bf16 1024 2816 65536
run 200 gpu-test-65536.log bf16 4096 11008 65536
run 120 gpu-test-65536.log f16 1024 2816 65536
