#!/usr/bin/env bash
# Session 39 (issue 23): the least that says whether rounding in the
# stages is right and pays, for the device time left (s39a.sh and s39b.sh cut):
# same_bits.py at a few T, racecheck once, the no-grad forward and step of
# copies/ against stages/ at (4096, 11008), T = 1 and 16.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/stages/cache || exit 1
S=.device/stages M=.device/stages/set t=build-gpu/fmlp-gpu-block-test
lib=build-gpu/lib/libfmlp_runtime.so
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
echo "built $(( $(date +%s) - s )) s"
timeout 50 python3 "$(dirname "$0")/same_bits.py" $S \
  --tokens 1,16,257,513,2049 > "$R/same-bits.log" 2>&1
echo "same_bits rc=$? $(tail -1 "$R/same-bits.log") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|Error|error" "$R/same-bits.log" | head -5
timeout 45 compute-sanitizer --tool racecheck --error-exitcode 3 "$t" $M/mlp-f32-64-128-tf32.bundle \
  f32 64 128 17 --contraction=tf32 > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|pass$|must' "$R/racecheck.log" | tr '\n' ' ') $(( $(date +%s) - s )) s"
timeout 60 python3 bench/compare_bundles.py $S/copies $S/stages $lib --dtype f32 --entries-only \
  --tokens 1,16 --rounds 3 --shapes 4096x11008 > "$R/copies-vs-stages.log" 2>&1
echo "copies vs stages rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/copies-vs-stages.log"
