#!/usr/bin/env bash
# Session 40 (issue 23): where rounding in the stages stops paying at
# (4096, 11008): the default bundle (b512: token variants of T <= 512 round
# in their stages, the copies made from T = 257 / 513) against every kernel
# rounding in its stages (all: no copies), raw launches, T = 600 .. 4096;
# and gpu_modules.py precisions again (its copies' check reworded).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/cache40 || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
lib=build-gpu/lib/libfmlp_runtime.so
timeout 200 python3 bench/compare_bundles.py .device/bound/b512 .device/bound/all $lib --dtype f32 \
  --entries-only --tokens 600,1024,2048,4096 --rounds 3 --shapes 4096x11008 > "$R/b512-vs-all.log" 2>&1
echo "b512 vs all rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/b512-vs-all.log"
timeout 150 python3 python/tests/gpu_modules.py precisions > "$R/precisions.log" 2>&1
echo "precisions rc=$? $(tail -1 "$R/precisions.log") $(( $(date +%s) - s )) s"
grep -E "^FAIL|copies" "$R/precisions.log" | head -30
