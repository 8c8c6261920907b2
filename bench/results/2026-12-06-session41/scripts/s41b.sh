#!/usr/bin/env bash
# Session 41 (issue 23), device call 2 on make-s41b.sh's bundles (carry
# .device/s41b, .device/include): same bits (the split apart against the
# rounded copies, tf32x3 apart against the one loop), racecheck on the
# apart kernels, raw launches of apart against the one loop and the copies.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/none || exit 1
S=.device/s41b O=.device/s41b/old lib=build-gpu/lib/libfmlp_runtime.so sc=$(dirname "$0")
t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
echo "built $(( $(date +%s) - s )) s"
cuobjdump -sass -fun mlp_forward_nograd_k4_down_round_in_stages $S/apart/mlp-f32-4096-11008.bundle/kernels.cubin > "$R/k4-apart.sass" 2>&1
timeout 90 python3 $sc/same_bits.py $O/copies $S/apart $O/trunc --tokens 1,257,1024,2049 > "$R/same-bits-tf32.log" 2>&1
echo "same_bits tf32 rc=$? $(tail -1 "$R/same-bits-tf32.log") $(( $(date +%s) - s )) s"
timeout 60 python3 $sc/same_bits.py $O/x3b8 $S/x3apart $O/copies --tokens 1,2049 > "$R/same-bits-x3.log" 2>&1
echo "same_bits x3 rc=$? $(tail -1 "$R/same-bits-x3.log") $(( $(date +%s) - s )) s"
for p in tf32 tf32x3; do
  timeout 60 compute-sanitizer --tool racecheck --error-exitcode 3 $t $S/set/mlp-f32-64-128-$p.bundle \
    f32 64 128 17 2049 --contraction=$p > "$R/racecheck-$p.log" 2>&1
  echo "racecheck $p rc=$? $(grep -E 'RACECHECK SUMMARY|outputs' "$R/racecheck-$p.log" | tr '\n' ' ') $(( $(date +%s) - s )) s"
done
cmp() { local a=$1 b=$2 tokens=$3 shapes=$4 tag=$5 limit=$6
  timeout $limit python3 bench/compare_bundles.py $a $b $lib --dtype f32 --entries-only \
    --tokens $tokens --rounds 3 --shapes $shapes > "$R/$tag.log" 2>&1
  echo "$tag rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/$tag.log"; }
cmp $O/all8 $S/apart 1024,8192 4096x11008 loop-vs-apart 60
cmp $O/copies $S/apart 256,600,1024,2048,4096,8192 4096x11008 copies-vs-apart-4096 120
cmp $O/copies $S/apart 256,1024,2048,8192 1024x2816 copies-vs-apart-1024 60
cmp $O/x3b8 $S/x3apart 8192 1024x2816,4096x11008 x3loop-vs-x3apart 100
