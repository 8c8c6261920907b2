#!/usr/bin/env bash
# Session 44, call 3, prepared and not run (no device time left): issue
# 23; carry .device/s44e, .device/acc44b, .device/include; make-s44e.sh:
# tf32x3's weight gradients in groups of 4
# k8 steps (their speed is call 2's x3g4, the same PTX): the block tests by
# tf32x3's bound; racecheck and memcheck; each output's error against
# float64 beside PyTorch strict's.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/acc44b || exit 1
N=.device/s44e/new lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
run() { timeout 120 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
run $N/mlp-f32-64-128-tf32x3.bundle f32 64 128 1 17 129 300 4096 --contraction=tf32x3
run $N/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 129 2597 --contraction=tf32x3
run $N/mlp-lora-f32-1024-2816-r16-rd16-tf32x3.bundle f32 1024 2816 1 300 2597 --contraction=tf32x3
run $N/mlp-f32-4096-11008-tf32x3.bundle f32 4096 11008 257 --contraction=tf32x3
L=$R/blocks.log
echo "blocks: pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
echo "largest error/bound of a passing output: $(awk '/ pass$/{print $(NF-3)}' "$L" | sort -g | tail -1)"
for tool in racecheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 3 $t $N/mlp-f32-64-128-tf32x3.bundle f32 64 128 300 \
    --contraction=tf32x3 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$R/$tool.log") $(( $(date +%s) - s )) s"
done
timeout 90 python3 bench/accuracy_fp32.py --out "$R/acc" --tokens 74,8192 --bias false > "$R/acc.log" 2>&1
echo "accuracy rc=$? $(( $(date +%s) - s )) s"
grep -E "T=" "$R/acc.log" | awk '{print "T", $3, $4, "strict", $7, "tf32x3", $13, "tf32x3/strict", $24}'
