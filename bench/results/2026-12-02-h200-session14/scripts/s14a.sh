#!/usr/bin/env bash
# Session 14, call 1: narrower WGMMA tiles for a few hundred tokens.
# Bundles (bf16, test/GPU/make-bundles.sh with DTYPES=bf16 and
# FMLP_COMPILE_FLAGS="--fmlp-wgmma-tile-n=N", branch gu-k3's compiler) in
# .device/ab-{A,N64,N128}: A the rule (K1 128 per accumulator, K2 256),
# N64 / N128 every WGMMA kernel at that width.
# 1. fmlp-gpu-block-test judges the N64 and N128 bundles (both shapes, and
#    the edge shapes) at T around the WGMMA kernels' range.
# 2. bench/compare_bundles.py A against N64 and N128 at T = 64, 256, 1024.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test lib=$PWD/build-gpu/lib/libfmlp_runtime.so
for v in N64 N128; do
  b=.device/ab-$v
  timeout 200 $test $b/mlp-bf16-1024-2816.bundle bf16 1024 2816 17 37 64 256 2597 > "$R/test-$v-1024.log" 2>&1; echo "$v 1024 rc=$?"
  timeout 200 $test $b/mlp-bf16-4096-11008.bundle bf16 4096 11008 17 64 256 > "$R/test-$v-4096.log" 2>&1; echo "$v 4096 rc=$?"
  timeout 100 $test $b/mlp-bf16-64-128.bundle bf16 64 128 17 37 256 > "$R/test-$v-64.log" 2>&1; echo "$v 64 rc=$?"
  timeout 100 $test $b/mlp-bf16-1088-704.bundle bf16 1088 704 17 37 256 > "$R/test-$v-1088.log" 2>&1; echo "$v 1088 rc=$?"
  tail -2 "$R/test-$v-1024.log"
  echo "tests $v done $(( $(date +%s) - s )) s"
done
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
for t in 64 256 1024; do
  for v in N64 N128; do
    timeout 100 python3 bench/compare_bundles.py .device/ab-A .device/ab-$v $lib --tokens $t --rounds 5 > "$R/ab-A-$v-T$t.log" 2>&1
    cat "$R/ab-A-$v-T$t.log" | cut -c1-110
    echo "A/$v T=$t done $(( $(date +%s) - s )) s"
  done
done
