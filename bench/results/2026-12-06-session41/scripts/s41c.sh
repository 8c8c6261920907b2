#!/usr/bin/env bash
# Session 41 (issue 23), device call 3 on make-s41c.sh's bundles (carry
# .device/s41c, .device/include): the no-grad forward's kernels at T = 256
# (and 160), (4096, 11008), tf32, each tile choice against the rule's.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/none || exit 1
S=.device/s41c lib=build-gpu/lib/libfmlp_runtime.so
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
for v in g128-d64s4 d64s2 d64s8 d128s4 d128s1 d256s1; do
  timeout 80 python3 bench/compare_bundles.py $S/default $S/$v $lib --dtype f32 \
    --tokens 160,256 --rounds 3 --shapes 4096x11008 > "$R/default-vs-$v.log" 2>&1
  echo "$v rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|nograd|no-grad" "$R/default-vs-$v.log"
done
