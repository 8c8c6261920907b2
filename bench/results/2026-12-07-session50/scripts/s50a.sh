#!/usr/bin/env bash
# Session 50, call 1 (make-s50a.sh's bundles; carry .device/s50,
# .device/include): issue 24's mma_sync kernels with their operands staged
# by TMA (--fmlp-mma-sync-tma) beside cp.async's.
# 1. each bf16 kernel per strategy beside cuBLAS, raw launches, T = 8192
#    (bench_strategies.py; mma_sync, the cp.async kernels, listed last);
# 2. the TMA-staged kernels judged by the block tests (poisoned outputs,
#    controls), bf16 and f16, edge shapes, [in, out] weights, save and
#    chunk variants, LoRA; memcheck and racecheck once.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/s50 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so S=.device/s50 B=.device/s50/tests test=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
timeout 200 python3 bench/bench_strategies.py $lib wgmma=$S/wgmma mma_tma=$S/mma_tma mma_sync=$S/mma_sync \
  --tokens 8192 --rounds 5 --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| " "$R/strategies.md" | head -40
block() {  # LOG BUNDLE DTYPE D H T...
  local log=$1; shift
  timeout 150 $test "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s" >> "$R/$log"
}
block blocks.txt $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 17 33 37 64 65 129 257 2597 4096
block blocks.txt $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 129 257 4096
block blocks.txt $B/mlp-bf16-64-128.bundle bf16 64 128 17 37 4096
block blocks.txt $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 37 4096
block blocks.txt $B/mlp-bf16-1024-2816-in-out.bundle bf16 1024 2816 17 257 2597
block blocks.txt $B/mlp-bf16-1024-2816-gu-c0.bundle bf16 1024 2816 17 37 2597
block blocks.txt $B/mlp-bf16-1024-2816-x-c1024.bundle bf16 1024 2816 17 1000 2049 2597
block blocks.txt $B/mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 37
block blocks.txt $B/mlp-lora-f16-1024-2816-r16-rd16-gu-c0.bundle f16 1024 2816 257
echo "blocks $(( $(date +%s) - s )) s: $(grep -c ' pass$' $R/blocks.txt) pass, $(grep -c 'failed as it must' $R/blocks.txt) controls failed as they must, $(grep -cE 'FAIL|CONTROL PASSED' $R/blocks.txt) failures"
grep -E "FAIL|CONTROL PASSED| rc=[1-9]" $R/blocks.txt | head -20
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 \
    > "$R/$tool.txt" 2>&1; echo "$tool rc=$? $(( $(date +%s) - s )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.txt)"
done
block blocks-4096.txt $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 257 4096
echo "blocks-4096 $(( $(date +%s) - s )) s: $(grep -c ' pass$' $R/blocks-4096.txt) pass, $(grep -c 'failed as it must' $R/blocks-4096.txt) controls, $(grep -cE 'FAIL|CONTROL PASSED' $R/blocks-4096.txt) failures"
