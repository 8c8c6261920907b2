#!/usr/bin/env bash
# Session 34, call 1 (issue 23): fp32 blocks at precision tf32 whose
# backward copies its MN-major operands into the stages element by element
# (cp.async of 4 bytes to each element's K-major place; .device/cpa/cpa,
# make-cpa.sh) judged by tf32's bound (fmlp-gpu-block-test
# --contraction=tf32: outputs poisoned, eager and graph-replayed, the
# controls) at T across the tiles' edges, both shapes, the edge shapes,
# save=x and save=u in chunks of 1024, LoRA; the negative control (tf32x3's
# bound: must fail); memcheck and racecheck once; then raw launches per
# kernel against session 32's landing kernels (.device/tf32mn/mn, this
# tree's default; compare_bundles.py, T = 8192, 5 alternating rounds).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/cpa/cache-cpa || exit 1
t=build-gpu/fmlp-gpu-block-test M=.device/cpa/cpa L=$R/blocks.log
run() { timeout 200 "$t" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
run $M/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 17 129 257 2597 --contraction=tf32 &
run $M/mlp-f32-64-128-tf32.bundle f32 64 128 1 17 83 129 4096 --contraction=tf32 &
wait
run $M/mlp-f32-1088-704-tf32.bundle f32 1088 704 1 17 129 --contraction=tf32 &
run $M/mlp-f32-4096-11008.bundle f32 4096 11008 17 257 --contraction=tf32 &
wait
run $M/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 1 17 1024 2049 2597 --contraction=tf32 &
run $M/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 1 17 2049 --contraction=tf32 &
wait
for tokens in 1 17 129 2597; do
  run $M/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 $tokens --contraction=tf32
done
echo "blocks $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -12
timeout 100 "$t" $M/mlp-f32-64-128-tf32.bundle f32 64 128 17 4096 --contraction=tf32x3 > "$R/control-by-tf32x3.log" 2>&1
echo "control rc=$? (must be nonzero) $(grep -cE 'FAIL' "$R/control-by-tf32x3.log") failures $(( $(date +%s) - s )) s"
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 "$t" $M/mlp-f32-64-128-tf32.bundle \
    f32 64 128 17 129 --contraction=tf32 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/$tool.log") $(( $(date +%s) - s )) s"
done
left=$(( ${S34_SECONDS:-590} - 5 - ($(date +%s) - s) )); (( left > 200 )) && left=200
timeout $left python3 bench/compare_bundles.py .device/tf32mn/mn .device/cpa/cpa "$FMLP_RUNTIME_LIB" \
  --dtype f32 --tokens 8192 --rounds 5 --shapes 1024x2816,4096x11008 > "$R/compare.txt" 2>&1
echo "compare rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare.txt"
