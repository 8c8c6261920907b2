#!/usr/bin/env bash
# Session 35, call 4 (issue 23): tf32x3 with A in registers and every
# consumer thread releasing a stage (.device/x3rb: this tree's default,
# (64, 128), (1024, 2816), (4096, 11008) at precision tf32x3): racecheck
# (call 3's per-warp release left 31 lanes' reads racing the next copies),
# memcheck, block tests by tf32x3's bound, raw launches against .device/
# x3/x3 (A split by the producer).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/x3ra/cache-x3 || exit 1
t=build-gpu/fmlp-gpu-block-test M=.device/x3rb L=$R/blocks.log
for tool in racecheck memcheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 "$t" $M/mlp-f32-64-128.bundle \
    f32 64 128 17 129 --contraction=tf32x3 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/$tool.log") $(( $(date +%s) - s )) s"
done
run() { timeout 100 "$t" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
run $M/mlp-f32-64-128.bundle f32 64 128 1 17 83 129 4096 --contraction=tf32x3 &
run $M/mlp-f32-1024-2816.bundle f32 1024 2816 1 17 129 2597 --contraction=tf32x3 &
wait
run $M/mlp-f32-4096-11008.bundle f32 4096 11008 17 257 --contraction=tf32x3
echo "blocks $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
timeout 70 python3 bench/compare_bundles.py .device/x3/x3 .device/x3rb "$FMLP_RUNTIME_LIB" \
  --dtype f32 --tokens 8192 --rounds 3 --shapes 1024x2816,4096x11008 > "$R/compare.txt" 2>&1
echo "compare rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare.txt"
