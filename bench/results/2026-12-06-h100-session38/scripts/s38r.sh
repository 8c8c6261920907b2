#!/usr/bin/env bash
# Session 38 (issue 23): tf32's bound taken at operands rounded to nearest
# (kTf32OperandError = 2^-11, now that every tf32 kernel rounds), on the
# bundles of session 37's make-round.sh (.device/round):
# 1. the rounded set (as s37a.sh's block tests, less (4096, 11008), whose
#    "other inputs" control cannot fail at tf32's bound) by the new bound;
# 2. the truncating bundles (base/: --fmlp-tf32-round-operands=false) by the
#    truncated bound (--tf32-truncated: must pass) and by the rounded one
#    (does it fail? printed: the rounding's would-be negative control).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/round/cache || exit 1
t=build-gpu/fmlp-gpu-block-test M=.device/round/set L=$R/blocks.log
nvidia-smi --query-gpu=name --format=csv > "$R/gpu.txt"
run() { timeout 150 "$t" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
run $M/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 17 128 129 257 1025 2597 --contraction=tf32 &
run $M/mlp-f32-64-128-tf32.bundle f32 64 128 1 17 129 4096 --contraction=tf32 &
wait
run $M/mlp-f32-1088-704-tf32.bundle f32 1088 704 1 17 129 --contraction=tf32 &
run $M/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 1 17 129 2597 --contraction=tf32 &
wait
run $M/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 1 2049 --contraction=tf32 &
run $M/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 17 1024 2597 --contraction=tf32 &
wait
echo "rounded: $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
grep -v control "$L" | grep -oE "worst error/bound [0-9.e+-]+" | awk '{print $3}' | sort -g | tail -1 | sed 's/^/rounded worst ratio: /'
B=.device/round/base/mlp-f32-1024-2816.bundle
timeout 150 "$t" $B f32 1024 2816 1 17 129 2597 --contraction=tf32 --tf32-truncated > "$R/truncated-own.log" 2>&1
echo "truncated by its own bound rc=$? (0: pass) $(grep -c ' pass$' "$R/truncated-own.log") pass"
timeout 150 "$t" $B f32 1024 2816 1 17 129 2597 --contraction=tf32 > "$R/truncated-as-rounded.log" 2>&1
echo "truncated by the rounded bound rc=$? $(grep -v control "$R/truncated-as-rounded.log" | grep -c ' FAIL')" \
  "outputs fail; worst: $(grep -v control "$R/truncated-as-rounded.log" | grep -oE 'worst error/bound [0-9.e+-]+' | awk '{print $3}' | sort -g | tail -1)"
