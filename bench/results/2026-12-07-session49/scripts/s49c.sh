#!/usr/bin/env bash
# Session 49, call 3: issue 22's training step at T >= 1024 kernel by
# kernel, fmlp's module beside torch.compile's (bf16; kernel_times.py with
# the span from the first kernel's start to the last's end), and the
# clock meanwhile.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49 || exit 1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active \
  --format=csv -lms 200 > "$R/clocks.csv" 2>&1 & smi=$!
timeout 240 python3 bench/kernel_times.py "" build-gpu/lib/libfmlp_runtime.so --dtype bf16 \
  --modules fmlp,hf_compile --tokens 1024,2048,8192 --shapes 1024x2816,4096x11008 --calls 20 \
  > "$R/kernel-times-train.txt" 2>&1
echo "rc=$? $(( $(date +%s) - s )) s"
kill $smi
grep "us in kernels" "$R/kernel-times-train.txt"
