#!/usr/bin/env bash
# Session 44, prepared, not run (carry .device/s44f, .device/include;
# make-s44f.sh): the transposing producer's loads one round ahead: raw
# launches and bits against main's (tf32 and tf32x3, T = 8192 and 300, both
# Llama shapes); the block tests of the branch's f32 set; racecheck.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/none || exit 1
V=.device/s44f lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
for p in tf32 tf32x3; do
  timeout 150 python3 bench/compare_bundles.py $V/main/$p $V/ahead/$p $lib --dtype f32 --bitwise \
    --tokens 8192,300 --rounds 3 --shapes 4096x11008,1024x2816 > "$R/$p.log" 2>&1
  echo "$p rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A|same bits" "$R/$p.log" | grep -v "k[0-2]_transpose"
done
run() { timeout 120 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
for p in tf32 tf32x3 highest; do
  run $V/set/mlp-f32-64-128-$p.bundle f32 64 128 1 17 129 300 4096 --contraction=$p
done
run $V/set/mlp-f32-1024-2816-tf32.bundle f32 1024 2816 1 129 300 513 2597 --contraction=tf32
run $V/set/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 129 2597 --contraction=tf32x3
run $V/set/mlp-f32-1024-2816-in-out.bundle f32 1024 2816 1 300 2597 --contraction=tf32
run $V/set/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 1 300 2597 --contraction=highest
L=$R/blocks.log
echo "blocks: pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 3 $t $V/set/mlp-f32-64-128-tf32.bundle f32 64 128 300 \
  --contraction=tf32 > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(grep -E 'SUMMARY' "$R/racecheck.log")"
