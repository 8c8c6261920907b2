#!/usr/bin/env bash
# Session 41 (issue 23), device call 5 on make-s41e.sh's bundles (carry
# .device/s41e, .device/include): the change as committed. Same bits as
# main (tf32 and tf32x3: the same values multiplied in the same order,
# forward, backward and no-grad), the block tests by each precision's
# bound across the new variants' ranges, memcheck and racecheck once on the
# rounding variant of T <= 768, raw launches against main.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/none || exit 1
S=.device/s41e N=.device/s41e/new M=.device/s41e/main lib=build-gpu/lib/libfmlp_runtime.so
sc=$(dirname "$0") t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 90 python3 $sc/same_bits.py $M/copies $N $M/trunc --tokens 1,256,600,768,769,1025 > "$R/same-bits-tf32.log" 2>&1
echo "same_bits tf32 rc=$? $(tail -1 "$R/same-bits-tf32.log") $(( $(date +%s) - s )) s"
timeout 60 python3 $sc/same_bits.py $M/x3b1 $N/x3 $M/copies --tokens 1,600,2049 > "$R/same-bits-x3.log" 2>&1
echo "same_bits x3 rc=$? $(tail -1 "$R/same-bits-x3.log") $(( $(date +%s) - s )) s"
run() { local tag=$1; shift; timeout 150 $t "$@" >> "$R/blocks-$tag.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks-$tag.log"; }
run tf32 $N/mlp-f32-1024-2816.bundle f32 1024 2816 1 257 513 600 768 769 1025 2597 --contraction=tf32
run tf32 $N/mlp-f32-64-128-tf32.bundle f32 64 128 1 700 768 769 2049 --contraction=tf32
run tf32 $N/mlp-f32-1088-704-tf32.bundle f32 1088 704 129 600 769 2049 --contraction=tf32
run tf32 $N/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 1 600 769 --contraction=tf32
run tf32 $N/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 600 2597 --contraction=tf32
run x3 $N/x3/mlp-f32-1024-2816.bundle f32 1024 2816 17 600 2049 --contraction=tf32x3
for g in tf32 x3; do L=$R/blocks-$g.log
  echo "blocks $g: $(grep -E 'failure\(s\)' "$L" | tr '\n' ' ') pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
  grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -5
done
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 3 $t $N/mlp-f32-64-128-tf32.bundle f32 64 128 700 --contraction=tf32 > "$R/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/memcheck.log") $(( $(date +%s) - s )) s"
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 3 $t $N/mlp-f32-64-128-tf32.bundle f32 64 128 700 --contraction=tf32 > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck.log") $(( $(date +%s) - s )) s"
cmp() { local a=$1 b=$2 tokens=$3 shapes=$4 tag=$5 limit=$6
  timeout $limit python3 bench/compare_bundles.py $a $b $lib --dtype f32 --entries-only \
    --tokens $tokens --rounds 3 --shapes $shapes > "$R/$tag.log" 2>&1
  echo "$tag rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/$tag.log"; }
cmp $M/copies $N 1,256,600,768,769,1024,8192 4096x11008,1024x2816 main-vs-new 150
cmp $M/x3b1 $N/x3 8192 4096x11008,1024x2816 x3-main-vs-new 100
