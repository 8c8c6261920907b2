#!/usr/bin/env bash
# Session 20, call 3 (issue 22): the tree as it lands. Bundles made here:
#   .device/bundles-new  test/GPU/make-bundles.sh, DTYPES="bf16 f16" (the
#                        WGMMA token variants of call 2 byte for byte, plus
#                        small_tokens kernels of 32 tokens for T = 17..32 at
#                        (1024, 2816) and (1088, 704))
#   .device/cache        python/tests/make-gpu-cache.sh, DTYPES=bf16
# 1. fmlp-gpu-block-test around T = 32 (both small_tokens kernels), f16,
#    edge shape, chunked; memcheck at T = 300, racecheck at T = 32.
# 2. python/tests/gpu_modules.py modules (bias, gelu, multipliers at T = 1,
#    3, 16, 17, 32, 33, 300).
# 3. bench/kernel_times.py at T = 16, 17, 24, 32, 33 against call 1's
#    default (main) bundles.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
B=.device/bundles-new
run() { local log=$1; shift; timeout 100 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
run gpu-small.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 15 16 17 24 31 32 33 37 64 &
run gpu-small.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 16 17 32 33 &
run gpu-small.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 16 17 32 33 &
run gpu-small.log $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 17 32 100 &
run gpu-small.log $B/mlp-bf16-1024-2816-x-c0.bundle bf16 1024 2816 17 32 33 &
wait
grep -hE "failure\(s\)|FAIL|DID NOT" "$R"/gpu-small.log | sort | uniq -c
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 300 > "$R/memcheck.log" 2>&1
echo "memcheck rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY" "$R/memcheck.log" | tail -1
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 32 > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(( $(date +%s) - s )) s"; grep -E "RACECHECK SUMMARY" "$R/racecheck.log" | tail -1
export PYTHONPATH=$PWD/python:$PWD/bench FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 200 python3 python/tests/gpu_modules.py modules > "$R/gpu-modules.log" 2>&1
echo "modules rc=$? $(grep -c '^pass' "$R/gpu-modules.log") pass $(grep -c '^FAIL' "$R/gpu-modules.log") FAIL $(( $(date +%s) - s )) s"
grep '^FAIL' "$R/gpu-modules.log" | head -8; tail -2 "$R/gpu-modules.log"
timeout 60 python3 bench/kernel_times.py $B $FMLP_RUNTIME_LIB --shapes 1024x2816 --tokens 16,17,24,32,33 --calls 10 > "$R/kt-small.txt" 2>&1
echo "kernel times rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=" "$R/kt-small.txt"
