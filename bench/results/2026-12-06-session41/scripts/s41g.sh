#!/usr/bin/env bash
# Session 41 (issue 23), device call 7 on make-s41g.sh's bundles (carry
# .device/s41g, .device/include): the transposing bound at 512. The block
# tests by tf32's bound around the new range (T = 257 .. 513), memcheck and
# racecheck once, raw launches against the bound of 256.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/none || exit 1
S=.device/s41g N=.device/s41g/new lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
run() { timeout 150 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
run $N/mlp-f32-1024-2816.bundle f32 1024 2816 1 257 384 512 513 2597 --contraction=tf32
run $N/mlp-f32-64-128-tf32.bundle f32 64 128 300 512 513 --contraction=tf32
run $N/mlp-f32-1088-704-tf32.bundle f32 1088 704 300 513 --contraction=tf32
run $N/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 300 513 --contraction=tf32
run $N/mlp-f32-1024-2816-in-out.bundle f32 1024 2816 1 300 512 513 --contraction=tf32
L=$R/blocks.log
echo "blocks: $(grep -E 'failure\(s\)' "$L" | tr '\n' ' ') pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -5
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 3 $t $N/mlp-f32-1088-704-tf32.bundle f32 1088 704 300 --contraction=tf32 > "$R/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/memcheck.log") $(( $(date +%s) - s )) s"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 3 $t $N/mlp-f32-64-128-tf32.bundle f32 64 128 300 --contraction=tf32 > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck.log") $(( $(date +%s) - s )) s"
cmp() { local a=$1 b=$2 tokens=$3 shapes=$4 tag=$5 limit=$6
  timeout $limit python3 bench/compare_bundles.py $a $b $lib --dtype f32 --entries-only \
    --tokens $tokens --rounds 3 --shapes $shapes > "$R/$tag.log" 2>&1
  echo "$tag rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/$tag.log"; }
cmp $S/main $N 256,300,384,512,513 4096x11008,1024x2816 main-vs-new 120
cmp $S/inout-main $S/inout-new 1,300,512 1024x2816 inout-main-vs-new 60
