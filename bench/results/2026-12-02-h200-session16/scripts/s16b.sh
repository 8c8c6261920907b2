#!/usr/bin/env bash
# Session 16, call 2: the mma_sync kernels at 128 x 256 tiles (8 warps of
# 64 x 64, one block per multiprocessor, 4 stages; call 1 had 128 x 128,
# warps of 64 x 32, two blocks). Bundles as in s16a.sh, and
# .device/bundles-mma3 (--fmlp-mma-sync-stages=3, bf16 defaults).
# 1. fmlp-gpu-block-test on the mma_sync bundles (bf16, f16, edge shapes,
#    variants), T small enough for the host reference.
# 2. memcheck and racecheck at (64, 128), T = 129 and (1024, 2816), T = 17.
# 3. bench/bench_strategies.py at T = 8192: wgmma, mma_sync (4 and 3
#    stages), simt, beside cuBLAS.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - s )) s"
B=.device/bundles-mma; test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 100 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
run gpu.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 17 37 128 129 256 257 1000 2597 4096
run gpu.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 17 257 1000
run gpu.log $B/mlp-bf16-64-128.bundle bf16 64 128 1 16 17 37 4096
run gpu.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 1 16 17 37 4096
run gpu.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 129 2597
run gpu.log $B/mlp-f16-4096-11008.bundle f16 4096 11008 257
for v in gu-c0 u-c0 x-c0; do run gpu.log $B/mlp-bf16-1024-2816-$v.bundle bf16 1024 2816 17 2597; done
for v in agu-c1024 gu-c1024 u-c1024 x-c1024; do run gpu.log $B/mlp-bf16-1024-2816-$v.bundle bf16 1024 2816 1000 2049; done
run gpu.log $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 129
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED" "$R/gpu.log" | sort | uniq -c | head -30
for tool in memcheck racecheck; do
  for args in "mlp-bf16-64-128 64 128 129" "mlp-bf16-1024-2816 1024 2816 17"; do
    set -- $args
    timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/$1.bundle bf16 $2 $3 $4 \
      > "$R/$tool-$1.log" 2>&1
    echo "$tool $args rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|failure" "$R/$tool-$1.log" | tail -2
  done
done
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
left=$(( 575 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_strategies.py $PWD/build-gpu/lib/libfmlp_runtime.so \
  wgmma=.device/bundles mma_sync=$B mma_sync_3stages=.device/bundles-mma3 simt=.device/bundles-simt \
  --rounds 3 --out "$R" > "$R/strategies.log" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; tail -22 "$R/strategies.log"
