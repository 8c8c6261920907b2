#!/usr/bin/env bash
# Session 19, call 1: K1 split over K for T <= 128 (and <= 256 at D = 1024),
# the split kernels' partials skipped for a part of 64 rows past T.
# Bundles made here (test/GPU/make-bundles.sh):
#   .device/bundles-before  main at 2dd96a8 (bf16, the two GPU-test shapes)
#   .device/bundles-split   this tree (DTYPES="bf16 f16", every shape and
#                           bf16 memory-policy variant)
# 1. fmlp-gpu-block-test on the new bundles around every T range (K1's split
#    variants at 17..128 and 129..256, T = 37 and 64 leave the second part
#    of 64 rows empty), the edge shapes, a chunked bundle; memcheck and
#    racecheck.
# 2. bench/kernel_times.py on both bundle sets: each kernel's device time
#    inside its entry point, T = 1 .. 256.
# 3. bench/compare_bundles.py, A = before, B = split, entries only, eager.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 120 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
B=.device/bundles-split
run gpu-split.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 16 17 37 63 64 65 127 128 129 255 256 257 2597
run gpu-split.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 1 17 37 64 65 128 129 257
run gpu-split.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 64 65 129 257
run gpu-split.log $B/mlp-f16-4096-11008.bundle f16 4096 11008 17 65 128
run gpu-split.log $B/mlp-bf16-64-128.bundle bf16 64 128 1 17 37 65 257
run gpu-split.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 65 129 257
run gpu-split.log $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 37 129
run gpu-split.log $B/mlp-bf16-1024-2816-gu-c1024.bundle bf16 1024 2816 17 1000 2049
grep -E "failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R"/gpu-split.log | sort | uniq -c
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 65 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/$tool.log" | tail -1
done
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
for side in before split; do
  timeout 100 python3 bench/kernel_times.py .device/bundles-$side $FMLP_RUNTIME_LIB \
    --tokens 1,16,32,64,128,256 > "$R/kernel-times-$side.txt" 2>&1
  echo "kernel times $side rc=$? $(( $(date +%s) - s )) s"
done
grep -E "^D=|gate_up" "$R"/kernel-times-*.txt | grep -v weight_grad | head -80
timeout 150 python3 bench/compare_bundles.py .device/bundles-before $B $FMLP_RUNTIME_LIB \
  --tokens 32,64,128,256 --entries-only --rounds 5 > "$R/compare-eager.txt" 2>&1
echo "compare rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare-eager.txt"
