#!/usr/bin/env bash
# Session 40 (issue 23): blocks whose weights are stored [in, out] (ONNX,
# JAX exports), with make-s40f.sh's bundles (.device/s40f): the block test
# (now reading the weights' layout from the manifest) on bf16 (the control
# of the test itself: WGMMA reads 16-bit weights in either layout) and on
# f32 at tf32, whose K1 and K2 variants of T <= 256 now transpose the
# weights in their stages too; memcheck and racecheck on those; raw
# launches, the transposed copies at every T (A) against the default (B).
cd "$(dirname "$0")/../../../.."
mkdir -p .device/none
source bench/device-session.sh .device/none || exit 1
S=.device/s40f t=build-gpu/fmlp-gpu-block-test L=$R/blocks.log lib=build-gpu/lib/libfmlp_runtime.so
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
run() { timeout 150 "$t" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
run $S/set/mlp-bf16-1024-2816-in-out.bundle bf16 1024 2816 0 1 16 17 256 257 2597 &
run $S/set/mlp-f32-1024-2816-in-out.bundle f32 1024 2816 0 1 16 17 256 257 2597 --contraction=tf32 &
wait
echo "blocks $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -12
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 "$t" $S/set/mlp-f32-1024-2816-in-out.bundle \
    f32 1024 2816 17 --contraction=tf32 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/$tool.log") $(( $(date +%s) - s )) s"
done
timeout 100 python3 bench/compare_bundles.py $S/copies $S/stages $lib --dtype f32 --entries-only \
  --tokens 1,16,256,257 --rounds 3 --shapes 1024x2816 > "$R/copies-vs-stages.log" 2>&1
echo "in-out copies vs stages rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/copies-vs-stages.log"
