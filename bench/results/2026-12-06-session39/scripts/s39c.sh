#!/usr/bin/env bash
# Session 39 (issue 23), one call (device time was short: failed starts):
# the essentials of s39a.sh and s39b.sh, each step time-boxed.
# 1. same_bits.py: stages/ == copies/ bit for bit, trunc/ differing;
# 2. block tests by tf32's bound on set/ (fewer T than s39a.sh);
# 3. racecheck on the variants that round in their stages;
# 4. compare_bundles.py copies/ (A) vs stages/ (B), entries only;
# 5. copies/ (A) vs all/ (B: no copy at all) at T = 8192, per kernel.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/stages/cache || exit 1
S=.device/stages M=.device/stages/set t=build-gpu/fmlp-gpu-block-test L=$R/blocks.log
lib=build-gpu/lib/libfmlp_runtime.so
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
echo "built $(( $(date +%s) - s )) s"
timeout 90 python3 "$(dirname "$0")/same_bits.py" $S \
  --tokens 1,16,17,128,129,256,257,512,513,2048,2049 > "$R/same-bits.log" 2>&1
echo "same_bits rc=$? $(tail -1 "$R/same-bits.log") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|Error|error" "$R/same-bits.log" | head -5
run() { timeout 100 "$t" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
run $M/mlp-f32-1024-2816.bundle f32 1024 2816 1 17 129 513 2049 2597 --contraction=tf32 &
run $M/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 1 129 --contraction=tf32 &
run $M/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 17 2597 --contraction=tf32 &
wait
run $M/mlp-f32-4096-11008.bundle f32 4096 11008 1 129 --contraction=tf32 &
run $M/mlp-f32-64-128-tf32.bundle f32 64 128 1 17 2049 --contraction=tf32 &
wait
echo "blocks $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
grep -v control "$L" | grep -oE "worst error/bound [0-9.e+-]+" | awk '{print $3}' | sort -g | tail -1 | sed 's/^/worst ratio: /'
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 3 "$t" $M/mlp-f32-64-128-tf32.bundle \
  f32 64 128 17 --contraction=tf32 > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$R/racecheck.log") $(( $(date +%s) - s )) s"
timeout 170 python3 bench/compare_bundles.py $S/copies $S/stages $lib --dtype f32 --entries-only \
  --tokens 1,16,256,2048,8192 --rounds 3 > "$R/copies-vs-stages.log" 2>&1
echo "copies vs stages rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/copies-vs-stages.log"
timeout 60 python3 bench/compare_bundles.py $S/copies $S/all $lib --dtype f32 --entries-only \
  --tokens 8192 --rounds 3 > "$R/copies-vs-all.log" 2>&1
echo "copies vs all rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/copies-vs-all.log"
