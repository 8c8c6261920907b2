#!/usr/bin/env bash
# Session 43, call 1 (carry .device/cache42, .device/ab, .device/include):
# (1) issue 23: the module's training step at T = 8192, tf32x3 and tf32,
#     beside Hugging Face's at PyTorch's 'highest' and 'high' (session 42's
#     s42d.sh, on the H200 this time; bundles from make-cache42.py);
# (2) issue 22: session 31's s31a.sh A/B (small_tokens K1, K1 and K2 at 32
#     columns; the weights .L1::no_allocate in the no-grad forward only)
#     against the default, raw launches, (4096, 11008), T = 1, 4, 16
#     (bundles from session 31's make-ab.sh), as time allows.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/cache42 || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$R/gpu.txt"
timeout 200 python3 bench/bench_precision.py --modes tf32x3,tf32 --tokens 8192 --rounds 2 --shapes 4096x11008,1024x2816 \
  --out "$R" > "$R/precision.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; grep -v -i warn "$R/precision.txt" | tail -24
for v in d2 d1 d5; do
  (( $(date +%s) - s > 430 )) && { echo "skip $v: time"; continue; }
  timeout 110 python3 bench/compare_bundles.py .device/ab/d0 .device/ab/$v build-gpu/lib/libfmlp_runtime.so \
    --tokens 1,4,16 --shapes 4096x11008 --entries-only --rounds 7 > "$R/ab-$v.txt" 2>&1
  echo "ab $v rc=$? $(( $(date +%s) - s )) s"; grep -E "B/A|nograd|step" "$R/ab-$v.txt" | tail -12
done
