#!/usr/bin/env bash
# Session 27 (issue 24): the mma_sync main loop with the block barrier
# where CUTLASS's multistage loop has it (after the last k-step's fragments
# are loaded; the next tile's step-0 fragments carried across the back
# edge; the next tile's copies after step 0's MMAs). Bundles (fmlp-compile
# --strategy=mma_sync, made here):
#   .device/mma-new  this tree: bf16 (1024, 2816), (4096, 11008), the edge
#                    shapes (64, 128), (1088, 704); f16 (1024, 2816); bf16
#                    save=u in chunks of 1024
#   .device/mma-old  main before the change (ca0c273's MmaSyncGemm.cpp)
# 1. fmlp-gpu-block-test on the new bundles; memcheck and racecheck.
# 2. bench/bench_strategies.py at T = 8192 (raw launches against cuBLAS).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local limit=$1 log=$2; shift 2; timeout $limit "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
B=.device/mma-new
run 90 gpu-mma.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 17 129 257 2597
run 90 gpu-mma.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 17
run 60 gpu-mma.log $B/mlp-bf16-64-128.bundle bf16 64 128 1 17 129 4096
run 60 gpu-mma.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 37 4096
run 60 gpu-mma.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 2597
run 60 gpu-mma.log $B/mlp-bf16-1024-2816-u-c1024.bundle bf16 1024 2816 2049
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED" "$R/gpu-mma.log" | sort | uniq -c
echo "pass: $(grep -c ' pass$' $R/gpu-mma.log), controls failed as they must: $(grep -c 'failed as it must' $R/gpu-mma.log)"
for tool in memcheck racecheck; do
  for shape in "64 128 129" "1088 704 129"; do
    set -- $shape
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-bf16-$1-$2.bundle bf16 $1 $2 $3 > "$R/$tool-$1-$2.log" 2>&1
    echo "$tool $shape rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/$tool-$1-$2.log" | tail -1
  done
done
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
left=$(( 570 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_strategies.py $PWD/build-gpu/lib/libfmlp_runtime.so \
  mma_new=.device/mma-new mma_old=.device/mma-old --rounds 5 --out "$R" > "$R/strategies.log" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; tail -22 "$R/strategies.log"
