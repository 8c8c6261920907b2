#!/usr/bin/env bash
# Session 16, call 1: the mma_sync strategy on the H200. Bundles made here:
#   DTYPES="bf16 f16" FMLP_COMPILE_FLAGS=--strategy=mma_sync test/GPU/make-bundles.sh .device/bundles-mma
#   DTYPES=bf16 test/GPU/make-bundles.sh .device/bundles            (wgmma, the default)
#   fmlp-compile mlp-bf16-D-H.mlir --strategy=simt -> .device/bundles-simt
# 1. fmlp-gpu-block-test on the mma_sync bundles: bf16 and f16, both
#    shapes, the edge shapes, the memory-policy variants (chunked too).
# 2. compute-sanitizer memcheck and racecheck at T = 129 (mma_sync, and the
#    save=x bundle in chunks of 64).
# 3. bench/bench_strategies.py at T = 8192: each kernel per strategy
#    (wgmma, mma_sync, simt) beside cuBLAS.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - s )) s"
B=.device/bundles-mma; test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 150 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
run gpu.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 17 37 128 129 256 257 1000 2597 4096
run gpu.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 1 17 129 257 4096
run gpu.log $B/mlp-bf16-64-128.bundle bf16 64 128 1 16 17 37 4096
run gpu.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 1 16 17 37 4096
run gpu.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 1 17 129 2597
run gpu.log $B/mlp-f16-4096-11008.bundle f16 4096 11008 17 257
for v in gu-c0 u-c0 x-c0; do run gpu.log $B/mlp-bf16-1024-2816-$v.bundle bf16 1024 2816 0 17 2597; done
for v in agu-c1024 gu-c1024 u-c1024 x-c1024; do run gpu.log $B/mlp-bf16-1024-2816-$v.bundle bf16 1024 2816 1000 2049 2597; done
run gpu.log $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 129
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED" "$R/gpu.log" | sort | uniq -c | head -30
for tool in memcheck racecheck; do
  for b in mlp-bf16-1024-2816 mlp-bf16-1024-2816-x-c64; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/$b.bundle bf16 1024 2816 129 \
      > "$R/$tool-$b.log" 2>&1
    echo "$tool $b rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|failure" "$R/$tool-$b.log" | tail -2
  done
done
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
left=$(( 570 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_strategies.py $PWD/build-gpu/lib/libfmlp_runtime.so \
  wgmma=.device/bundles mma_sync=$B simt=.device/bundles-simt --rounds 3 --out "$R" > "$R/strategies.log" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; tail -22 "$R/strategies.log"
