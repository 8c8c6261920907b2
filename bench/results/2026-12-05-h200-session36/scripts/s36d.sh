#!/usr/bin/env bash
# Session 36, the last call (issue 23): fmlp-transpose-weights after the
# second reading (helper-33): the copies at the entry's start (input_grad,
# on the second lane, no longer waits for down_weight_grad), LoRA's main
# weights no longer copied (a copy beside an adapter's MN-major matrix
# left two layouts in one operand: SIMT), the adapters' B matrices copied
# instead, the transpose's launch not taken for a static T. Bundles of
# make-km.sh with KM_OUT=.device/km2.
# 1. fmlp-gpu-block-test by each precision's bound: tf32 (1024, 2816) across
#    the token variants, LoRA r16/rd16, save=u in chunks, (1088, 704);
#    tf32x3 (64, 128) and (1024, 2816); highest (64, 128); memcheck on LoRA.
# 2. raw launches against --fmlp-k-major-weights=false (tf32, T = 8192).
# 3. the module's training step beside HF at 'high' (tf32).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/km2/cache || exit 1
total=${S36_SECONDS:-420}
t=build-gpu/fmlp-gpu-block-test M=.device/km2/set L=$R/blocks.log
nvidia-smi --query-gpu=name --format=csv > "$R/gpu.txt"
run() { timeout 150 "$t" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
run $M/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 17 129 257 1025 2597 --contraction=tf32 &
run $M/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 1 17 129 2597 --contraction=tf32 &
wait
run $M/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 1 2049 --contraction=tf32 &
run $M/mlp-f32-1088-704-tf32.bundle f32 1088 704 1 129 --contraction=tf32 &
run $M/mlp-f32-64-128-tf32x3.bundle f32 64 128 1 17 129 --contraction=tf32x3 &
run $M/mlp-f32-64-128-highest.bundle f32 64 128 17 84 129 --contraction=highest &
wait
run $M/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 129 2597 --contraction=tf32x3
echo "blocks $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 3 "$t" $M/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle \
  f32 1024 2816 17 --contraction=tf32 > "$R/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/memcheck.log") $(( $(date +%s) - s )) s"
left=$(( total - ($(date +%s) - s) - 10 ))
if (( left > 60 )); then
  timeout $(( left * 55 / 100 )) python3 bench/compare_bundles.py .device/km2/base-tf32 .device/km2/km-tf32 "$FMLP_RUNTIME_LIB" \
    --dtype f32 --tokens 8192 --rounds 3 --shapes 1024x2816,4096x11008 > "$R/compare-tf32.txt" 2>&1
  echo "compare rc=$? $(( $(date +%s) - s )) s"; grep -E "step|no-grad" "$R/compare-tf32.txt"
fi
left=$(( total - ($(date +%s) - s) - 5 ))
if (( left > 40 )); then
  timeout $left python3 bench/bench_precision.py --modes tf32 --tokens 8192 --rounds 3 \
    --out "$R/precision" > "$R/precision.txt" 2>&1
  echo "precision rc=$? $(( $(date +%s) - s )) s"; tail -4 "$R/precision.txt"
fi
