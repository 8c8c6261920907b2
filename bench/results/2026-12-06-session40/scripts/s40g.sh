#!/usr/bin/env bash
# Session 40 (issue 23): the LoRA f32 block (r16/rd16) at tf32 compiled with
# the rule covering every tf32 kernel that reads transposed copies (the
# adapters' input_grad, and the backward's down projection of the adapters,
# reading Bd's transposed copy, transposing in their stages at T <= 256;
# .device/s40g/set), by tf32's bound, and racecheck on it.
cd "$(dirname "$0")/../../../.."
mkdir -p .device/none
source bench/device-session.sh .device/none || exit 1
t=build-gpu/fmlp-gpu-block-test L=$R/blocks.log B=.device/s40g/set/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 150 "$t" $B f32 1024 2816 1 17 129 256 257 2597 --contraction=tf32 > "$L" 2>&1
echo "lora rc=$? $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -5
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 3 "$t" $B f32 1024 2816 17 --contraction=tf32 > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck.log") $(( $(date +%s) - s )) s"
