#!/usr/bin/env bash
# Session 41 (issue 23), device call 4 on make-s41d.sh's bundles (carry
# .device/s41d, .device/include): the rounding bound at 1024, the producer
# in one loop (loop/) or apart (apart/), against main (bound 512): same
# bits, the block tests by tf32's bound around the new variants' ranges,
# raw launches at T = 513 .. 1024.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/none || exit 1
S=.device/s41d lib=build-gpu/lib/libfmlp_runtime.so sc=$(dirname "$0") t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
for v in loop apart; do
  timeout 60 python3 $sc/same_bits.py $S/main $S/$v $S/trunc --tokens 600,1024,1025 > "$R/same-bits-$v.log" 2>&1
  echo "same_bits $v rc=$? $(tail -1 "$R/same-bits-$v.log") $(( $(date +%s) - s )) s"
done
for v in loop apart; do
  { $t $S/$v/mlp-f32-1024-2816.bundle f32 1024 2816 513 700 1024 1025 --contraction=tf32
    $t $S/$v/mlp-f32-64-128.bundle f32 64 128 1 1024 1025 2049 --contraction=tf32
    $t $S/$v/mlp-f32-1088-704.bundle f32 1088 704 600 1024 1025 --contraction=tf32; } > "$R/block-$v.log" 2>&1
  echo "block $v rc=$? $(grep -E 'failure\(s\)|FAILED' "$R/block-$v.log" | tr '\n' ' ') $(grep -c ' pass$' "$R/block-$v.log") pass, $(grep -c 'as it must' "$R/block-$v.log") controls $(( $(date +%s) - s )) s"
done
cmp() { local a=$1 b=$2 tokens=$3 shapes=$4 tag=$5 limit=$6
  timeout $limit python3 bench/compare_bundles.py $S/$a $S/$b $lib --dtype f32 --entries-only \
    --tokens $tokens --rounds 3 --shapes $shapes > "$R/$tag.log" 2>&1
  echo "$tag rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/$tag.log"; }
cmp main loop 513,600,768,896,1024 4096x11008,1024x2816 main-vs-loop 120
cmp loop apart 256,600,896,1024 4096x11008,1024x2816 loop-vs-apart 100
