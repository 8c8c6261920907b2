#!/usr/bin/env bash
# Session 36, one call (issue 23): --fmlp-k-major-weights (fmlp-transpose-
# weights: K-major copies of Wd, Wg, Wu for the backward's down_grad and
# input_grad, written once per call by a transpose kernel) on the bundles
# of make-km.sh (.device/km):
# 1. fmlp-gpu-block-test by each precision's bound (outputs poisoned, eager
#    and graph-replayed, the controls): tf32 at T across the tiles' edges and
#    the token variants' ranges, both Llama shapes, the edge shapes, save=x
#    and save=u in chunks of 1024, LoRA; tf32x3 at 1024-2816, 64-128,
#    4096-11008; highest at 64-128 by strict fp32's bound; memcheck once.
# 2. raw launches per kernel against the same bundles without the flag
#    (compare_bundles.py, T = 8192; tf32, then tf32x3).
# 3. the training step through the module beside HF at 'high' / 'highest'
#    (bench_precision.py, tf32 and tf32x3, T = 8192).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/km/cache || exit 1
total=${S36_SECONDS:-585}
t=build-gpu/fmlp-gpu-block-test M=.device/km/set L=$R/blocks.log
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$R/gpu.txt"
run() { timeout 150 "$t" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
run $M/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 17 128 129 257 1025 2597 --contraction=tf32 &
run $M/mlp-f32-64-128-tf32.bundle f32 64 128 1 17 129 4096 --contraction=tf32 &
wait
run $M/mlp-f32-1088-704-tf32.bundle f32 1088 704 1 17 129 --contraction=tf32 &
run $M/mlp-f32-64-128-highest.bundle f32 64 128 1 17 83 84 129 --contraction=highest &
run $M/mlp-f32-64-128-tf32x3.bundle f32 64 128 1 17 129 --contraction=tf32x3 &
wait
echo "blocks part 1 $(( $(date +%s) - s )) s"
run $M/mlp-f32-4096-11008.bundle f32 4096 11008 17 257 --contraction=tf32 &
run $M/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 129 2597 --contraction=tf32x3 &
wait
run $M/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 1 17 2049 --contraction=tf32 &
run $M/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 17 1024 2597 --contraction=tf32 &
run $M/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 1 129 2597 --contraction=tf32 &
wait
run $M/mlp-f32-4096-11008-tf32x3.bundle f32 4096 11008 257 --contraction=tf32x3
echo "blocks $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -12
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 3 "$t" $M/mlp-f32-64-128-tf32.bundle \
  f32 64 128 17 129 --contraction=tf32 > "$R/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/memcheck.log") $(( $(date +%s) - s )) s"
for p in tf32 x3; do
  left=$(( total - ($(date +%s) - s) - 10 ))
  (( left > 90 )) || break
  timeout $(( left * 35 / 100 )) python3 bench/compare_bundles.py .device/km/base-$p .device/km/km-$p "$FMLP_RUNTIME_LIB" \
    --dtype f32 --tokens 8192 --rounds 3 --shapes 1024x2816,4096x11008 > "$R/compare-$p.txt" 2>&1
  echo "compare $p rc=$? $(( $(date +%s) - s )) s"; grep -iE "step|B/A|k[0-9]" "$R/compare-$p.txt" | tail -16
done
left=$(( total - ($(date +%s) - s) - 5 ))
if (( left > 60 )); then
  mkdir -p "$R/precision"
  timeout $left python3 bench/bench_precision.py --modes tf32,tf32x3 --tokens 8192 --rounds 3 \
    --out "$R/precision" > "$R/precision.txt" 2>&1
  echo "precision rc=$? $(( $(date +%s) - s )) s"; tail -8 "$R/precision.txt"
fi
