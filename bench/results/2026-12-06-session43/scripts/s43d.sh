#!/usr/bin/env bash
# Session 43, call 4 (issue 23; carry .device/s43d, .device/acc43/new2,
# .device/include): highest's tensor-core products in groups of at most 2
# k8 steps, tf32x3's of 4 (make-s43d.sh): each output's error against
# float64 beside PyTorch's; the module's training step (highest, tf32x3)
# beside HF's; highest's raw launches against single k8 steps (main's);
# the block tests of highest's bundles by strict fp32's bound; racecheck.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/acc43/new2 || exit 1
N=.device/s43d/new lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 90 python3 bench/accuracy_fp32.py --out "$R/acc" --tokens 74,8192 --bias false > "$R/acc.log" 2>&1
echo "accuracy rc=$? $(( $(date +%s) - s )) s"
grep -E "T=" "$R/acc.log" | awk '{print "T", $3, $4, "strict", $7, "highest", $9, "tf32x3", $13, "highest/strict", $20, "tf32x3/strict", $24, "tf32/high", $26}'
timeout 150 python3 bench/bench_precision.py --modes highest,tf32x3 --tokens 8192 --rounds 2 --shapes 4096x11008,1024x2816 \
  --out "$R" > "$R/precision.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| \(" "$R/precision.txt" | tail -2
timeout 100 python3 bench/compare_bundles.py .device/s43d/hi1 .device/s43d/hi $lib --dtype f32 \
  --tokens 8192 --rounds 3 --shapes 4096x11008,1024x2816 > "$R/highest-g1-vs-g2.log" 2>&1
echo "highest g1 vs new rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/highest-g1-vs-g2.log" | grep -v transpose
run() { timeout 150 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
run $N/mlp-f32-64-128-highest.bundle f32 64 128 1 83 84 129 4096 --contraction=highest
run $N/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 83 84 257 2597 --contraction=highest
run $N/mlp-f32-4096-11008.bundle f32 4096 11008 17 257 --contraction=highest
run $N/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 1 300 2597 --contraction=highest
run $N/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 17 2597 --contraction=highest
run $N/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 17 2597 --contraction=highest
run $N/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 129 2597 --contraction=tf32x3
L=$R/blocks.log
echo "blocks: pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
echo "largest error/bound of a passing output: $(awk '/ pass$/{print $(NF-3)}' "$L" | sort -g | tail -1)"
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 3 $t $N/mlp-f32-64-128-highest.bundle f32 64 128 300 --contraction=highest > "$R/racecheck.log" 2>&1
echo "racecheck highest rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck.log") $(( $(date +%s) - s )) s"
