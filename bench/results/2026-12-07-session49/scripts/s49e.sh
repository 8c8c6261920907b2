#!/usr/bin/env bash
# Session 49, call 5: call 3's training step at (1024, 2816) with serial
# launches (each kernel alone on the GPU: times not inflated by the dX
# lane's overlap), beside torch.compile's kernels.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49 || exit 1
timeout 120 python3 bench/kernel_times.py "" build-gpu/lib/libfmlp_runtime.so --dtype bf16 \
  --modules fmlp_serial,hf_compile --tokens 1024,2048,4096 --shapes 1024x2816 --calls 50 \
  > "$R/kernel-times-train-serial.txt" 2>&1
echo "rc=$? $(( $(date +%s) - s )) s"
grep -A12 " step:" "$R/kernel-times-train-serial.txt" | cut -c1-120
