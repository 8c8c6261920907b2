#!/usr/bin/env bash
# Session 22, call 2: the mma_sync main loop with the next k-tile's copies
# spread over the first 2 or 3 k-steps (--fmlp-mma-sync-copy-steps; 64-bit
# shared addresses, which call 1 found no slower), against main's (all
# copies before the first step) and call 1's short-pointer interleave.
#   .device/b-c2, b-c3  DTYPES=bf16 FMLP_COMPILE_FLAGS="--strategy=mma_sync
#                       --fmlp-mma-sync-copy-steps=N" make-bundles.sh
#   .device/b-mma, b-mma-si, b-wg   as in s22a.sh
# 1. fmlp-gpu-block-test on b-c2 and b-c3; racecheck once.
# 2. bench/bench_strategies.py at T = 8192, 5 rounds.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 60 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
for n in c2 c3; do
  B=.device/b-$n
  run gpu-$n.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 17 129 257 2597
  run gpu-$n.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 17
  run gpu-$n.log $B/mlp-bf16-64-128.bundle bf16 64 128 1 17 4096
  run gpu-$n.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 37 4096
  run gpu-$n.log $B/mlp-bf16-1024-2816-x-c1024.bundle bf16 1024 2816 2049
  run gpu-$n.log $B/mlp-bf16-1024-2816-u-c1024.bundle bf16 1024 2816 2049
  grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED" "$R/gpu-$n.log" | sort | uniq -c
done
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 3 $test .device/b-c2/mlp-bf16-64-128.bundle bf16 64 128 129 > "$R/racecheck-c2.log" 2>&1
echo "racecheck rc=$? $(( $(date +%s) - s )) s"; grep -E "RACECHECK SUMMARY" "$R/racecheck-c2.log" | tail -1
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
left=$(( 560 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_strategies.py $PWD/build-gpu/lib/libfmlp_runtime.so \
  wgmma=.device/b-wg copy2=.device/b-c2 copy3=.device/b-c3 short_il4=.device/b-mma-si \
  mma=.device/b-mma --rounds 5 --out "$R" > "$R/strategies.log" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; tail -16 "$R/strategies.log"
