#!/usr/bin/env bash
# Session 42, call 3 (issue 23; carry .device/s42a, .device/s42b/new/x3,
# .device/s42b/trunc, .device/s42c, .device/include): the consumers issuing
# their WGMMA groups in turn (make-s42c.sh). Block tests by each
# precision's bound, racecheck, same bits as main's bundles, raw launches:
# tf32x3 with against without ping-pong (both with call 2's MN-major A in
# registers), tf32 with ping-pong (all) against main.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/none || exit 1
M=.device/s42a C=.device/s42c lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
run() { timeout 200 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
run $C/test/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 17 129 2597 --contraction=tf32x3
run $C/test/mlp-f32-64-128-tf32x3.bundle f32 64 128 1 129 4096 --contraction=tf32x3
run $C/test/mlp-f32-64-128-highest.bundle f32 64 128 1 83 84 129 4096 --contraction=highest
run $C/test/mlp-f32-4096-11008-tf32x3.bundle f32 4096 11008 17 --contraction=tf32x3
run $C/tf32pp/mlp-f32-1024-2816.bundle f32 1024 2816 1 17 129 257 769 2049 2597 --contraction=tf32
run $C/test/mlp-f32-64-128-tf32pp.bundle f32 64 128 1 17 300 4096 --contraction=tf32
run $C/test/mlp-f32-1088-704-tf32pp.bundle f32 1088 704 1 129 2049 --contraction=tf32
run $C/test/mlp-lora-f32-1024-2816-tf32pp.bundle f32 1024 2816 1 300 2597 --contraction=tf32
L=$R/blocks.log
echo "blocks: $(grep -E 'failure\(s\)' "$L" | tr '\n' ' ') pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
for b in tf32x3:tf32x3 tf32pp:tf32; do
  timeout 120 compute-sanitizer --tool racecheck --error-exitcode 3 $t $C/test/mlp-f32-64-128-${b%:*}.bundle f32 64 128 300 --contraction=${b#*:} > "$R/racecheck-${b%:*}.log" 2>&1
  echo "racecheck ${b%:*} rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck-${b%:*}.log") $(( $(date +%s) - s )) s"
done
export PYTHONPATH=$PYTHONPATH:$PWD/bench/results/2026-12-06-session41/scripts
sb() { timeout 120 python3 bench/results/2026-12-06-session41/scripts/same_bits.py $1 $2 .device/s42b/trunc \
    --tokens $3 --shapes 1024x2816,4096x11008 > "$R/same-bits-$4.log" 2>&1
  echo "same bits $4 rc=$? $(tail -1 "$R/same-bits-$4.log") $(( $(date +%s) - s )) s"; }
sb $M/tf32x3 $C/x3 1,2049 x3
sb $M/tf32 $C/tf32pp 1,257,2049 tf32pp
cmp() { local a=$1 b=$2 tokens=$3 tag=$4 limit=$5 extra=${6:-}
  timeout $limit python3 bench/compare_bundles.py $a $b $lib --dtype f32 $extra \
    --tokens $tokens --rounds 3 --shapes 4096x11008,1024x2816 > "$R/$tag.log" 2>&1
  echo "$tag rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/$tag.log" | grep -v "round_to\|transpose " ; }
cmp .device/s42b/new/x3 $C/x3 8192 x3-pingpong 200
cmp $M/tf32 $C/tf32pp 8192 tf32-pingpong 150
cmp $M/tf32 $C/tf32pp 256,1024 tf32-pingpong-small 90 --entries-only
