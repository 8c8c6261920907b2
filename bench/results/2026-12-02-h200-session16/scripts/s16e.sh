#!/usr/bin/env bash
# Session 16, call 5: the mma_sync kernels as committed (k-tiles of 64 on
# the H200, the cp.async pieces' addresses stepped along k from ones
# computed once). Bundles:
#   DTYPES="bf16 f16" FMLP_COMPILE_FLAGS=--strategy=mma_sync test/GPU/make-bundles.sh .device/bundles-mma
# and call 4's .device/bundles-mma64 (the same tiles, addresses computed per
# k-tile) for the A/B.
# 1. fmlp-gpu-block-test on .device/bundles-mma; memcheck and racecheck.
# 2. bench/bench_strategies.py at T = 8192: wgmma, mma_sync (now), mma_sync
#    of call 4, simt, beside cuBLAS.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
B=.device/bundles-mma; test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 60 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
run gpu.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 17 129 257 1000 2597
run gpu.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 17
run gpu.log $B/mlp-bf16-64-128.bundle bf16 64 128 1 17 37 4096
run gpu.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 37 4096
run gpu.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 2597
for v in gu-c0 u-c0 x-c0; do run gpu.log $B/mlp-bf16-1024-2816-$v.bundle bf16 1024 2816 2597; done
for v in agu-c1024 x-c1024; do run gpu.log $B/mlp-bf16-1024-2816-$v.bundle bf16 1024 2816 2049; done
run gpu.log $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 129
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED" "$R/gpu.log" | sort | uniq -c
for tool in memcheck racecheck; do
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-bf16-64-128.bundle bf16 64 128 129 > "$R/$tool-64-128.log" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|failure" "$R/$tool-64-128.log" | tail -2
done
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
left=$(( 225 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_strategies.py $PWD/build-gpu/lib/libfmlp_runtime.so \
  wgmma=.device/bundles mma_sync=$B mma_sync_call4=.device/bundles-mma64 simt=.device/bundles-simt \
  --rounds 3 --out "$R" > "$R/strategies.log" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; tail -20 "$R/strategies.log" | cut -d'|' -f1-4,9-14,20-22
