#!/usr/bin/env bash
# Session 49, call 8: issue 23's module table (bench_precision.py, T = 8192,
# both shapes, highest, tf32x3 and tf32 beside HF strict and TF32) with the
# SM clock and board power of each case (gpu_clock.py).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49 || exit 1
nvidia-smi --query-gpu=name,power.limit,clocks.max.sm --format=csv,noheader | tee "$R/gpu.txt"
timeout 400 python3 bench/bench_precision.py --modes highest,tf32x3,tf32 --rounds 3 --out "$R" \
  > "$R/precision.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; cat "$R/precision.md"
