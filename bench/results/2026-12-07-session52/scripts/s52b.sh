#!/usr/bin/env bash
# Session 52, prepared for the next call (not run; make-s52b.sh's bundles;
# carry .device/s52b, .device/include): the staged mma_sync epilogue on
# test/GPU/run.sh's bf16 and f16 sets (every memory policy, [in, out]
# weights), the LoRA blocks at a few T, memcheck and racecheck.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/s52b || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/device.txt"
DTYPES="bf16 f16" SETS="defaults variants" timeout 420 bash test/GPU/run.sh "$PWD/.device/s52b/tests" quick \
  "$PWD/.device/include" > "$R/gpu.txt" 2>&1
echo "run.sh rc=$? $(( $(date +%s) - s )) s: $(grep -c ' pass$' $R/gpu.txt) pass, $(grep -cE 'FAIL|CONTROL PASSED|DID NOT' $R/gpu.txt) failures"
for b in mlp-lora-bf16-1024-2816-r32-rd16-agu-c0 mlp-lora-f16-1024-2816-r16-rd16-gu-c0; do
  timeout 60 build-gpu/fmlp-gpu-block-test .device/s52b/tests/$b.bundle ${b:9:4} 1024 2816 37 257 --repeat=3 \
    >> "$R/lora.txt" 2>&1; echo "$b rc=$?"
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAIL" "$R/gpu.txt" | head
