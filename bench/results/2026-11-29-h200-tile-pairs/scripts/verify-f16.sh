#!/usr/bin/env bash
# Device: f16 at (4096, 11008) on main's final kernels ($1), T = 0, 1, 37,
# 4096 and 65536.
cd "$(dirname "$0")/.."
B=$1 R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null 2>&1 && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
timeout 150 $T $B/mlp-f16-4096-11008.bundle f16 4096 11008 0 1 37 4096 >> $R/gpu-test-f16-4096.log 2>&1; echo "rc=$? $(( $(date +%s) - s )) s"
timeout 200 $T $B/mlp-f16-4096-11008.bundle f16 4096 11008 65536 >> $R/gpu-test-f16-4096.log 2>&1; echo "rc=$? $(( $(date +%s) - s )) s"
grep -E "failure\(s\)" $R/gpu-test-f16-4096.log
