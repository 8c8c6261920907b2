#!/usr/bin/env bash
# Prepared in session 19, not run (no device time left): small_tokens
# kernels for T <= 32 (--fmlp-small-tokens-max=32; four token tiles of 8,
# 128 registers, no spill on sm_90a and sm_80; the default T <= 16 kernels'
# PTX is byte-identical to session 19's verified bundles). Why: at
# (1024, 2816), T = 17..32, K1 runs on 22 WGMMA tiles of 128 x 128 for 12.5
# us where the small_tokens kernel takes 4.0 us at T = 16 (call 4), and the
# no-grad forward is 1.40x torch.compile's time at T = 32 (call 3).
# Make the bundles here first (from the repository root):
#   DTYPES="bf16 f16" bash test/GPU/make-bundles.sh .device/bundles-default
#   DTYPES="bf16 f16" FMLP_COMPILE_FLAGS=--fmlp-small-tokens-max=32 \
#     bash test/GPU/make-bundles.sh .device/bundles-small32
# and carry .device/include, .device/bundles-default, .device/bundles-small32.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
B=.device/bundles-small32
run() { local log=$1; shift; timeout 60 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
for t in 17 32 33; do run gpu-small32.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 $t & done; wait
run gpu-small32.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 16 17 24 31 32 33 37 129
run gpu-small32.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 31 32 33
run gpu-small32.log $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 129
grep -E "failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R"/gpu-small32.log | sort | uniq -c
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 31 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/$tool.log" | tail -1
done
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
for side in default small32; do
  timeout 50 python3 bench/kernel_times.py .device/bundles-$side $FMLP_RUNTIME_LIB \
    --tokens 16,17,24,32 --calls 10 > "$R/kernel-times-$side.txt" 2>&1
  echo "kernel times $side rc=$? $(( $(date +%s) - s )) s"
done
grep -E "^D=" "$R"/kernel-times-*.txt
timeout 100 python3 bench/compare_bundles.py .device/bundles-default $B $FMLP_RUNTIME_LIB \
  --tokens 17,24,32 --entries-only --rounds 5 > "$R/compare-eager.txt" 2>&1
echo "compare rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare-eager.txt"
