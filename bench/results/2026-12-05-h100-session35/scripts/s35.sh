#!/usr/bin/env bash
# Session 35, one call (issue 23): fp32 blocks at precision tf32x3 on WGMMA
# (.device/x3/x3, make-x3.sh: the producer splits each stage into tf32
# high and low parts, three WGMMAs a k8 summed from zero and added in fp32)
# judged by tf32x3's bound (fmlp-gpu-block-test: outputs poisoned, eager
# and graph-replayed, the controls) at T across the tiles' edges, both
# Llama shapes, the edge shapes, save=x and save=u in chunks of 1024, LoRA;
# precision highest by strict fp32's bound; the negative control (a tf32
# bundle by tf32x3's bound: must fail); memcheck and racecheck once; then
# raw launches per kernel against the mma_sync kernels (.device/x3/mma,
# compare_bundles.py, T = 8192) and the module step beside PyTorch
# (bench_precision.py, cache-x3), each cut to the time left.
cd "$(dirname "$0")/../../../.."
# s35c.sh runs it on another set: X3_SET (the bundles' directory), X3_CACHE,
# X3_BASELINE (compare_bundles.py's other side), X3_ROUNDS.
source bench/device-session.sh ${X3_CACHE:-.device/x3/cache-x3} || exit 1
total=${S35_SECONDS:-590}
t=build-gpu/fmlp-gpu-block-test M=${X3_SET:-.device/x3/x3} L=$R/blocks.log
run() { timeout 150 "$t" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
run $M/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 17 129 257 2597 --contraction=tf32x3 &
run $M/mlp-f32-64-128-tf32x3.bundle f32 64 128 1 17 83 129 4096 --contraction=tf32x3 &
wait
run $M/mlp-f32-1088-704-tf32x3.bundle f32 1088 704 1 17 129 --contraction=tf32x3 &
run $M/mlp-f32-64-128-highest.bundle f32 64 128 1 17 83 84 129 4096 --contraction=highest &
wait
echo "blocks part 1 $(( $(date +%s) - s )) s"
run $M/mlp-f32-4096-11008.bundle f32 4096 11008 17 257 --contraction=tf32x3 &
run $M/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 1 17 1024 2049 2597 --contraction=tf32x3 &
wait
run $M/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 1 17 2049 --contraction=tf32x3 &
for tokens in 1 129 2597; do
  run $M/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 $tokens --contraction=tf32x3
done
wait
echo "blocks $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -12
timeout 100 "$t" $M/mlp-f32-64-128-tf32.bundle f32 64 128 17 4096 --contraction=tf32x3 > "$R/control-tf32-by-tf32x3.log" 2>&1
echo "control rc=$? (must be nonzero) $(grep -cE 'FAIL' "$R/control-tf32-by-tf32x3.log") failures $(( $(date +%s) - s )) s"
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 "$t" $M/mlp-f32-64-128-tf32x3.bundle \
    f32 64 128 17 129 --contraction=tf32x3 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/$tool.log") $(( $(date +%s) - s )) s"
done
left=$(( total - ($(date +%s) - s) - 10 ))
if (( left > 60 )); then
  timeout $(( left * 55 / 100 )) python3 bench/compare_bundles.py ${X3_BASELINE:-.device/x3/mma} $M "$FMLP_RUNTIME_LIB" \
    --dtype f32 --tokens 8192 --rounds ${X3_ROUNDS:-3} --shapes 1024x2816,4096x11008 > "$R/compare.txt" 2>&1
  echo "compare rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare.txt"
fi
left=$(( total - ($(date +%s) - s) - 5 ))
if (( left > 60 )); then
  mkdir -p "$R/precision-x3"
  timeout $left python3 bench/bench_precision.py --modes tf32x3,highest --tokens 8192 --rounds 3 \
    --out "$R/precision-x3" > "$R/precision-x3.txt" 2>&1
  echo "precision rc=$? $(( $(date +%s) - s )) s"; tail -12 "$R/precision-x3.txt"
fi
