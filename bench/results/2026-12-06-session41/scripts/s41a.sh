#!/usr/bin/env bash
# Session 41 (issue 23), device call 1 on make-s41a.sh's bundles (carry
# .device/s41a, .device/include): the producer's split loop in SASS, one
# piece at a time (all1) and eight (all8); same bits (all8 against copies,
# x3b8 against x3b1); raw launches, every kernel rounding in its stages
# against the copies, batches 1 / 8, tf32x3 batches 1 / 8.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/none || exit 1
S=.device/s41a lib=build-gpu/lib/libfmlp_runtime.so sc=$(dirname "$0")
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
echo "built $(( $(date +%s) - s )) s"
for v in all1 all8; do
  cuobjdump -sass -fun mlp_forward_nograd_k4_down_round_in_stages $S/$v/mlp-f32-4096-11008.bundle/kernels.cubin > "$R/k4-$v.sass" 2>&1
done
wc -l "$R"/k4-*.sass | head -3
timeout 60 python3 $sc/same_bits.py $S/copies $S/all8 $S/trunc --tokens 1,257,1024,2049 > "$R/same-bits-tf32.log" 2>&1
echo "same_bits tf32 rc=$? $(tail -1 "$R/same-bits-tf32.log") $(( $(date +%s) - s )) s"
timeout 40 python3 $sc/same_bits.py $S/x3b1 $S/x3b8 $S/copies --tokens 1,2049 > "$R/same-bits-x3.log" 2>&1
echo "same_bits x3 rc=$? $(tail -1 "$R/same-bits-x3.log") $(( $(date +%s) - s )) s"
cmp() { local a=$1 b=$2 tokens=$3 shapes=$4 tag=$5 limit=$6
  timeout $limit python3 bench/compare_bundles.py $S/$a $S/$b $lib --dtype f32 --entries-only \
    --tokens $tokens --rounds 3 --shapes $shapes > "$R/$tag.log" 2>&1
  echo "$tag rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/$tag.log"; }
cmp all1 all8 2048,8192 4096x11008 all1-vs-all8 70
cmp copies all8 600,1024,2048,4096,8192 4096x11008 copies-vs-all8-4096 130
cmp copies all8 1024,2048,8192 1024x2816 copies-vs-all8-1024 60
cmp x3b1 x3b8 8192 1024x2816,4096x11008 x3b1-vs-x3b8 100
