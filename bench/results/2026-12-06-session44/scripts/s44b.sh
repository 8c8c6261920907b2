#!/usr/bin/env bash
# Session 44, call 2 (issue 23; carry .device/acc44, .device/include;
# make-s44a.sh): with the landing default, the module's fp32 training step
# beside HF's (highest and tf32x3 against PyTorch strict, tf32 against
# PyTorch TF32) at T = 8192, both Llama shapes; each output's error against
# float64 beside PyTorch's at T = 74 and 8192.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/acc44 || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 300 python3 bench/bench_precision.py --modes highest,tf32x3,tf32 --tokens 8192 --rounds 2 \
  --shapes 4096x11008,1024x2816 --out "$R" > "$R/precision.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| " "$R/precision.txt" | tail -8
timeout 150 python3 bench/accuracy_fp32.py --out "$R/acc" --tokens 74,8192 --bias false > "$R/acc.log" 2>&1
echo "accuracy rc=$? $(( $(date +%s) - s )) s"
grep -E "T=" "$R/acc.log" | awk '{print "T", $3, $4, "strict", $7, "highest", $9, "tf32x3", $13, "highest/strict", $20, "tf32x3/strict", $24, "tf32/high", $26}'
