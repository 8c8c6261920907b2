#!/usr/bin/env bash
# Session 40 (issue 23): the backward's K3 and K4 transposing the weights in
# their stages at T <= 256 (KernelConfig::transposesInStages; make-s40.sh's
# bundles, .device/s40):
# 1. the block tests by each precision's bound at T across the variants'
#    ranges and the 256/257 boundary (outputs poisoned; the controls must
#    fail; at (4096, 11008) the "other inputs" control is known not to fail
#    at tf32's bound, bench/NOTES.md item 84), the workspaces passed;
# 2. compute-sanitizer memcheck and racecheck on the transposing variants
#    ((1024, 2816), T = 17 and 129: split-K among them);
# 3. raw launches, copies/ (A: K3 and K4 on the transposed copies at every
#    T) against stages/ (B: the default), the training step, T = 1 .. 512.
cd "$(dirname "$0")/../../../.."
mkdir -p .device/none
source bench/device-session.sh .device/none || exit 1
S=.device/s40 M=.device/s40/set t=build-gpu/fmlp-gpu-block-test L=$R/blocks.log
lib=build-gpu/lib/libfmlp_runtime.so
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
run() { timeout 150 "$t" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
run $M/mlp-f32-1024-2816.bundle f32 1024 2816 1 2 3 16 17 37 128 129 255 256 257 512 1024 --contraction=tf32 &
run $M/mlp-f32-64-128-tf32.bundle f32 64 128 1 17 129 256 257 2049 --contraction=tf32 &
wait
run $M/mlp-f32-1088-704-tf32.bundle f32 1088 704 1 17 129 256 257 --contraction=tf32 &
run $M/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 17 256 1024 2597 --contraction=tf32 &
wait
run $M/mlp-f32-4096-11008.bundle f32 4096 11008 1 17 129 256 257 --contraction=tf32 &
run $M/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 17 256 257 --contraction=tf32x3 &
run $M/mlp-f32-64-128-highest.bundle f32 64 128 1 17 256 257 --contraction=highest &
wait
echo "blocks $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -12
grep -v control "$L" | grep -oE "worst error/bound [0-9.e+-]+" | awk '{print $3}' | sort -g | tail -1 | sed 's/^/worst ratio: /'
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 "$t" $M/mlp-f32-1024-2816.bundle \
    f32 1024 2816 17 129 --contraction=tf32 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/$tool.log") $(( $(date +%s) - s )) s"
done
timeout 150 python3 bench/compare_bundles.py $S/copies $S/stages $lib --dtype f32 --entries-only \
  --tokens 1,16,128,256,257,512 --rounds 3 > "$R/copies-vs-stages.log" 2>&1
echo "copies vs stages rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|step" "$R/copies-vs-stages.log"
timeout 60 python3 bench/compare_bundles.py $S/copies-x3 $S/stages-x3 $lib --dtype f32 --entries-only \
  --tokens 1,16,256 --rounds 3 --shapes 1024x2816 > "$R/copies-vs-stages-x3.log" 2>&1
echo "x3 copies vs stages rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|step" "$R/copies-vs-stages-x3.log"
