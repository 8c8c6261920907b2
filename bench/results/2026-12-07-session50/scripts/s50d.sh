#!/usr/bin/env bash
# Session 50, the last call (device time nearly spent by refused starts):
# 1. the shared TMA tile loader on the GPU (make-s50c.sh's bundles, this
#    tree's compiler at 9c29f76; 0c43917's PTX is the same): WGMMA (the default strategy) and
#    mma_sync, T around A's 32-row boxes and the ranges;
# 2. make-s50b.sh's variants beside cuBLAS, raw launches, T = 8192: slots
#    released on mbarriers and/or grouped tiles, against call 1's TMA and
#    cp.async kernels; then the sm_120 question (k-tiles of 64 in 2 or 3
#    TMA stages against sm_120's 32 in 4 cp.async ones).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/s50 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so S=.device/s50 P=.device/s50b C=.device/s50c test=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
block() {  # LOG BUNDLE DTYPE D H T...
  local log=$1; shift
  timeout 60 $test "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s" >> "$R/$log"
}
for v in wgmma mma; do
  block blocks-c.txt $C/$v/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 33 65 2597
  block blocks-c.txt $C/$v/mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 65
done
block blocks-c.txt $C/wgmma/mlp-f16-1024-2816.bundle f16 1024 2816 33
echo "blocks-c $(( $(date +%s) - s )) s: $(grep -c ' pass$' $R/blocks-c.txt) pass, $(grep -c 'failed as it must' $R/blocks-c.txt) controls failed as they must, $(grep -cE 'FAIL|CONTROL PASSED' $R/blocks-c.txt) failures"
grep -E "FAIL|CONTROL PASSED| rc=[1-9]" $R/blocks-c.txt | head -10
timeout 90 python3 bench/bench_strategies.py $lib mma_tma=$S/mma_tma mma_tma_g=$P/mma_tma_g mma_rel=$P/mma_rel \
  mma_rel_g=$P/mma_rel_g mma_sync=$S/mma_sync --tokens 8192 --rounds 3 --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"
x_cublas() {  # the "x cuBLAS" columns of a strategies.md
  python3 - "$1" <<'PY'
import sys
for line in open(sys.argv[1]):
    if not line.startswith("| "): continue
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if cells[0] == "kernel": head = cells; print("| kernel | " + " | ".join(c for c in head if c.endswith("x cuBLAS")) + " |"); continue
    if cells[0].startswith("-"): continue
    print("| " + cells[0] + " | " + " | ".join(c for h, c in zip(head, cells) if h.endswith("x cuBLAS")) + " |")
PY
}
x_cublas "$R/strategies.md"
timeout 60 python3 bench/bench_strategies.py $lib x64_tma2=$P/x64_tma2 x64_tma3=$P/x64_tma3 x32_cpa4=$P/x32_cpa4 \
  --tokens 8192 --rounds 3 --out "$R/sm120" > "$R/strategies-sm120.txt" 2>&1
echo "strategies-sm120 rc=$? $(( $(date +%s) - s )) s"; x_cublas "$R/sm120/strategies.md"
