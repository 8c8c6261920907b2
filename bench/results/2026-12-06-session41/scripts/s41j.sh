#!/usr/bin/env bash
# Session 41 (issue 23), device call 10 (carry .device/s41j: the Llama
# bundles of .device/s41e/new (warp0/, call 5's: all of warp 0 loading) and
# .device/s41i/new (thread0/: thread 0 alone), tf32 and tf32x3 (x3/); and
# .device/include): raw launches, one against the other.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/none || exit 1
lib=build-gpu/lib/libfmlp_runtime.so
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 90 python3 bench/compare_bundles.py .device/s41j/warp0 .device/s41j/thread0 $lib --dtype f32 --entries-only \
  --tokens 256,600,768 --rounds 3 --shapes 4096x11008,1024x2816 > "$R/warp0-vs-thread0.log" 2>&1
echo "tf32 rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/warp0-vs-thread0.log"
timeout 60 python3 bench/compare_bundles.py .device/s41j/warp0/x3 .device/s41j/thread0/x3 $lib --dtype f32 --entries-only \
  --tokens 8192 --rounds 3 --shapes 1024x2816 > "$R/x3-warp0-vs-thread0.log" 2>&1
echo "x3 rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/x3-warp0-vs-thread0.log"
