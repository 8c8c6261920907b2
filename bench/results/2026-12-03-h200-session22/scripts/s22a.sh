#!/usr/bin/env bash
# Session 22, call 1: mma_sync main loop with 32-bit shared addresses
# (--nvptx-short-ptr) and with the next k-tile's copies spread over the
# k-steps (--fmlp-mma-sync-interleave-copies); the WGMMA kernels with
# 32-bit shared addresses; SIMT kernels of a contraction shorter than a
# k-tile (D = 12). Bundles (bf16, make-bundles.sh) made here:
#   .device/b-mma     --strategy=mma_sync            (main)
#   .device/b-mma-s   --strategy=mma_sync --nvptx-short-ptr
#   .device/b-mma-si  --strategy=mma_sync --nvptx-short-ptr --fmlp-mma-sync-interleave-copies
#   .device/b-wg      (main, WGMMA)
#   .device/b-wg-s    --nvptx-short-ptr
#   .device/b-tiny    D = 12, H = 40, bf16 and f32 (fmlp-compile defaults)
# 1. fmlp-gpu-block-test on the new bundles; memcheck and racecheck once.
# 2. bench/bench_strategies.py at T = 8192 (raw launches against cuBLAS).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 60 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
for n in mma-s mma-si wg-s; do
  B=.device/b-$n
  run gpu-$n.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 17 129 257 2597
  run gpu-$n.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 1 17 257
  run gpu-$n.log $B/mlp-bf16-64-128.bundle bf16 64 128 1 17 4096
  run gpu-$n.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 37 4096
  run gpu-$n.log $B/mlp-bf16-1024-2816-x-c1024.bundle bf16 1024 2816 2049
  run gpu-$n.log $B/mlp-bf16-1024-2816-u-c1024.bundle bf16 1024 2816 2049
  grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED" "$R/gpu-$n.log" | sort | uniq -c
done
run gpu-tiny.log .device/b-tiny/mlp-bf16-12-40.bundle bf16 12 40 1 17 129 1000
run gpu-tiny.log .device/b-tiny/mlp-f32-12-40.bundle f32 12 40 1 17 129 1000 --contraction=highest
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED" "$R/gpu-tiny.log" | sort | uniq -c
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 $test .device/b-mma-si/mlp-bf16-64-128.bundle bf16 64 128 129 > "$R/memcheck-mma-si.log" 2>&1
echo "memcheck rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY" "$R/memcheck-mma-si.log" | tail -1
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 3 $test .device/b-mma-si/mlp-bf16-64-128.bundle bf16 64 128 129 > "$R/racecheck-mma-si.log" 2>&1
echo "racecheck rc=$? $(( $(date +%s) - s )) s"; grep -E "RACECHECK SUMMARY" "$R/racecheck-mma-si.log" | tail -1
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
left=$(( 560 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_strategies.py $PWD/build-gpu/lib/libfmlp_runtime.so \
  wgmma=.device/b-wg wgmma_short=.device/b-wg-s mma_short=.device/b-mma-s \
  mma_short_il=.device/b-mma-si mma=.device/b-mma \
  --rounds 3 --out "$R" > "$R/strategies.log" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; tail -16 "$R/strategies.log"
