#!/usr/bin/env bash
# Session 42, call 4 (issue 23; carry .device/cache42, .device/include): the
# module's training step at T = 8192 per precision beside Hugging Face's at
# PyTorch's 'highest' and 'high' (bench_precision.py, eager, gradients set
# to None each step), this session's bundles (make-cache42.py).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/cache42 || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 170 python3 bench/bench_precision.py --modes tf32x3,tf32 --tokens 8192 --rounds 2 --shapes 4096x11008,1024x2816 \
  --out "$R" > "$R/precision.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; grep -v -i warn "$R/precision.txt" | tail -20
