#!/usr/bin/env bash
# Session 50, call 2 (make-s50a.sh's and make-s50b.sh's bundles; carry
# .device/s50 without its tests, .device/s50b, .device/include): the
# TMA-staged mma_sync kernels with a producer warp and/or grouped tiles.
# 1. each bf16 kernel per variant beside cuBLAS (then the sm_120 question:
#    k-tiles of 64 in 2 or 3 TMA stages against 32 in 4 cp.async ones), raw launches, T = 8192
#    (bench_strategies.py; mma_sync, the cp.async kernels, listed last);
# 2. the mbarrier-released kernels judged by the block tests; racecheck and
#    memcheck once (a new synchronization).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/s50 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so S=.device/s50 P=.device/s50b B=.device/s50b/tests test=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
timeout 240 python3 bench/bench_strategies.py $lib mma_tma=$S/mma_tma mma_tma_g=$P/mma_tma_g mma_rel=$P/mma_rel \
  mma_rel_g=$P/mma_rel_g mma_sync=$S/mma_sync --tokens 8192 --rounds 5 --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"
python3 - "$R/strategies.md" <<'PY'
import sys
for line in open(sys.argv[1]):
    if not line.startswith("| "): continue
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if cells[0] == "kernel": head = cells; print("| kernel | " + " | ".join(c for c in head if c.endswith("x cuBLAS")) + " |"); continue
    print("| " + cells[0] + " | " + " | ".join(c for h, c in zip(head, cells) if h.endswith("x cuBLAS")) + " |")
PY
timeout 150 python3 bench/bench_strategies.py $lib x64_tma2=$P/x64_tma2 x64_tma3=$P/x64_tma3 x32_cpa4=$P/x32_cpa4 \
  --tokens 8192 --rounds 5 --out "$R/sm120" > "$R/strategies-sm120.txt" 2>&1
echo "strategies-sm120 rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| " "$R/sm120/strategies.md" | cut -d'|' -f2,9-
block() {  # LOG BUNDLE DTYPE D H T...
  local log=$1; shift
  timeout 150 $test "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s" >> "$R/$log"
}
block blocks.txt $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 17 33 37 64 65 129 257 2597 4096
block blocks.txt $B/mlp-bf16-64-128.bundle bf16 64 128 17 37 4096
block blocks.txt $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 37 4096
block blocks.txt $B/mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 37
echo "blocks $(( $(date +%s) - s )) s: $(grep -c ' pass$' $R/blocks.txt) pass, $(grep -c 'failed as it must' $R/blocks.txt) controls failed as they must, $(grep -cE 'FAIL|CONTROL PASSED' $R/blocks.txt) failures"
grep -E "FAIL|CONTROL PASSED| rc=[1-9]" $R/blocks.txt | head -20
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 \
    > "$R/$tool.txt" 2>&1; echo "$tool rc=$? $(( $(date +%s) - s )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.txt)"
done
# The shared TMA tile loader (make-s50c.sh): the WGMMA and mma_sync kernels
# of the current compiler, T around A's 32-row boxes and the ranges.
C=.device/s50c
for v in wgmma mma; do
  block blocks-c.txt $C/$v/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 17 33 37 64 65 129 257 2597 4096
  block blocks-c.txt $C/$v/mlp-f16-1024-2816.bundle f16 1024 2816 33 65 2597
  block blocks-c.txt $C/$v/mlp-bf16-1088-704.bundle bf16 1088 704 17 37 4096
  block blocks-c.txt $C/$v/mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 65
done
echo "blocks-c $(( $(date +%s) - s )) s: $(grep -c ' pass$' $R/blocks-c.txt) pass, $(grep -c 'failed as it must' $R/blocks-c.txt) controls failed as they must, $(grep -cE 'FAIL|CONTROL PASSED' $R/blocks-c.txt) failures"
grep -E "FAIL|CONTROL PASSED| rc=[1-9]" $R/blocks-c.txt | head -20
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 3 $test $C/mma/mlp-bf16-1024-2816.bundle bf16 1024 2816 33 \
  > "$R/racecheck-c.txt" 2>&1; echo "racecheck-c rc=$? $(( $(date +%s) - s )) s: $(grep -E 'RACECHECK SUMMARY' $R/racecheck-c.txt)"
