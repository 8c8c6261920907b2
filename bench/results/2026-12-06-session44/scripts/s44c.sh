#!/usr/bin/env bash
# Session 44, call 3 (issue 24; carry .device/s44c, .device/include;
# make-s44c.sh): the 16-bit mma_sync kernels with two blocks a
# multiprocessor (four warps a scheduler) against one: raw launches at
# T = 8192, both Llama shapes; the block tests of the two-block bundles;
# racecheck.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/none || exit 1
V=.device/s44c lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 200 python3 bench/compare_bundles.py $V/mma1 $V/mma2 $lib --dtype bf16 --bitwise \
  --tokens 8192 --rounds 3 --shapes 4096x11008,1024x2816 > "$R/mma1-vs-mma2.log" 2>&1
echo "mma1 vs mma2 rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A|same bits" "$R/mma1-vs-mma2.log"
run() { timeout 150 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
run $V/mma2/mlp-bf16-64-128.bundle bf16 64 128 1 16 17 37 300 4096
run $V/mma2/mlp-bf16-1088-704.bundle bf16 1088 704 1 129 2049
run $V/mma2/mlp-bf16-1024-2816.bundle bf16 1024 2816 17 255 2597
run $V/mma2/mlp-bf16-4096-11008.bundle bf16 4096 11008 257
L=$R/blocks.log
echo "blocks: pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 3 $t $V/mma2/mlp-bf16-64-128.bundle bf16 64 128 300 \
  > "$R/racecheck.log" 2>&1
echo "racecheck mma2 rc=$? $(grep -E 'SUMMARY' "$R/racecheck.log") $(( $(date +%s) - s )) s"
