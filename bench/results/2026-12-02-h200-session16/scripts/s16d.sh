#!/usr/bin/env bash
# Session 16, call 4: mma_sync with k-tiles of 64 (half the block barriers
# and cp.async rounds per MMA; 4 stages of 48 KiB on the H200) against 32.
#   DTYPES="bf16 f16" FMLP_COMPILE_FLAGS="--strategy=mma_sync --fmlp-mma-sync-tile-k=64" \
#     test/GPU/make-bundles.sh .device/bundles-mma64
# (the other bundles as in s16a.sh).
# 1. fmlp-gpu-block-test on the k64 bundles; racecheck at (64, 128).
# 2. bench/bench_strategies.py at T = 8192: wgmma, mma_sync (k 32),
#    mma_sync_k64, simt, beside cuBLAS.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
B=.device/bundles-mma64; test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 100 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
run gpu.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 17 129 257 2597
run gpu.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 17
run gpu.log $B/mlp-bf16-64-128.bundle bf16 64 128 1 17 4096
run gpu.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 37 4096
run gpu.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 2597
run gpu.log $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 129
run gpu.log $B/mlp-bf16-1024-2816-u-c1024.bundle bf16 1024 2816 2049
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED" "$R/gpu.log" | sort | uniq -c
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 3 $test $B/mlp-bf16-64-128.bundle bf16 64 128 129 > "$R/racecheck-k64.log" 2>&1
echo "racecheck rc=$? $(( $(date +%s) - s )) s"; grep -E "RACECHECK SUMMARY|failure" "$R/racecheck-k64.log" | tail -2
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
left=$(( 440 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_strategies.py $PWD/build-gpu/lib/libfmlp_runtime.so \
  wgmma=.device/bundles mma_sync=.device/bundles-mma mma_sync_k64=$B simt=.device/bundles-simt \
  --rounds 3 --out "$R" > "$R/strategies.log" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; tail -20 "$R/strategies.log" | cut -d'|' -f1-4,9-11,12-14,18-20
