#!/usr/bin/env bash
# Session 19, call 2: a K-major A whose rows are T arrives in boxes of 64
# rows (of 32, 16: --fmlp-wgmma-token-rows-per-box), a box wholly past T not
# loaded (call 1: TMA's zero fill of rows past T made K2 at T = 64 take 48 us
# where T = 128 took 34). Bundles made here:
#   .device/bundles-before  main at 2dd96a8 (boxes of 128 rows)
#   .device/bundles-box64   this tree (DTYPES="bf16 f16", every shape and
#                           bf16 memory-policy variant)
#   .device/bundles-box32, -box16   the two GPU-test shapes, bf16
# 1. fmlp-gpu-block-test on box64 and box32 around the T ranges (T = 37 and
#    64: the second box of a tile past T), edge shapes, chunked bundles;
#    memcheck and racecheck.
# 2. bench/kernel_times.py on each set, T = 1 .. 256 and 8192.
# 3. bench/compare_bundles.py, before against box64, entries only, eager.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 100 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
B=.device/bundles-box64
run gpu-box64.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 16 17 37 63 64 65 127 128 129 255 256 257 2597
run gpu-box64.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 17 37 64 65
run gpu-box64.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 129 257
run gpu-box64.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 64 65 129 257
run gpu-box64.log $B/mlp-bf16-64-128.bundle bf16 64 128 1 17 37 65 257 4096
run gpu-box64.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 65 129 257
run gpu-box64.log $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 37 129
run gpu-box64.log $B/mlp-bf16-1024-2816-u-c1024.bundle bf16 1024 2816 17 1000 2049
run gpu-box64.log $B/mlp-bf16-1024-2816-gu-c0.bundle bf16 1024 2816 17 37
run gpu-box32.log .device/bundles-box32/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 17 31 33 37 64 65 129 257
grep -E "failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R"/gpu-box*.log | sort | uniq -c
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 65 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/$tool.log" | tail -1
done
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
for side in before box64 box32 box16; do
  timeout 60 python3 bench/kernel_times.py .device/bundles-$side $FMLP_RUNTIME_LIB \
    --tokens 32,64,128,256,8192 --calls 10 > "$R/kernel-times-$side.txt" 2>&1
  echo "kernel times $side rc=$? $(( $(date +%s) - s )) s"
done
grep -E "^D=" "$R"/kernel-times-*.txt
timeout 120 python3 bench/compare_bundles.py .device/bundles-before $B $FMLP_RUNTIME_LIB \
  --tokens 32,64,256,8192 --entries-only --rounds 5 > "$R/compare-eager.txt" 2>&1
echo "compare rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare-eager.txt"
