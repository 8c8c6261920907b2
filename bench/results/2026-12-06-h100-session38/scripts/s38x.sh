#!/usr/bin/env bash
# Session 38 (issue 23; tf32x3 >= 100 TFLOP/s at (4096, 11008)): make-x3g.sh's
# variants of the tf32x3 WGMMA kernels (.device/x3g).
# 1. fmlp-gpu-block-test by tf32x3's bound at the variant's group (outputs
#    poisoned, eager and graph-replayed, the controls), and the negative
#    control: the tf32 bundle judged by tf32x3's bound at groups of 4 k8s
#    (must fail).
# 2. racecheck and memcheck on g4c (the stages' new layout).
# 3. raw launches, T = 8192, g1 (the default) against each variant
#    (compare_bundles.py, alternating rounds, medians).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/x3g || exit 1
t=build-gpu/fmlp-gpu-block-test X=.device/x3g L=$R/blocks.log
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$R/gpu.txt"
run() { timeout 150 "$t" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
for v in g4c:4 g4:4 c:1; do
  d=$X/${v%:*} g=--tf32x3-group-k8s=${v#*:}
  run $d/mlp-f32-64-128.bundle f32 64 128 1 17 129 4096 --contraction=tf32x3 $g &
  run $d/mlp-f32-1024-2816.bundle f32 1024 2816 1 129 2597 --contraction=tf32x3 $g &
  wait
done
run $X/g4c/mlp-f32-4096-11008.bundle f32 4096 11008 17 --contraction=tf32x3 --tf32x3-group-k8s=4
if timeout 100 "$t" $X/tf32/mlp-f32-64-128-tf32.bundle f32 64 128 17 129 \
     --contraction=tf32x3 --tf32x3-group-k8s=4 > "$R/negative.log" 2>&1; then
  echo "NEGATIVE CONTROL PASSED (it must fail)" | tee -a "$L"
else
  echo "negative control failed as it must: $(grep -c FAIL "$R/negative.log") rows"
fi
echo "blocks $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -12
for tool in racecheck memcheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 "$t" $X/g4c/mlp-f32-64-128.bundle \
    f32 64 128 17 --contraction=tf32x3 --tf32x3-group-k8s=4 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/$tool.log") $(( $(date +%s) - s )) s"
done
for v in g4c g4 c; do
  left=$(( ${S38_SECONDS:-570} - ($(date +%s) - s) ))
  (( left > 40 )) || break
  timeout $left python3 bench/compare_bundles.py $X/g1 $X/$v "$FMLP_RUNTIME_LIB" --dtype f32 \
    --tokens 8192 --rounds 3 --shapes 1024x2816,4096x11008 > "$R/compare-$v.txt" 2>&1
  echo "compare g1 vs $v rc=$? $(( $(date +%s) - s )) s"; grep -iE "step|nograd|no-grad|D=" "$R/compare-$v.txt" | tail -8
done
