#!/usr/bin/env bash
# Session 36, call 1 (issue 23), this tree's default (tf32x3 and `highest`
# on WGMMA with A from registers), bundles compiled here:
#   .device/acc36  (/tmp/mk36.py's specs: f32 at highest, ieee, tf32, tf32x3;
#                   (1024, 2816) with and without biases, (4096, 11008))
#   .device/train35 (session 35's find_or_compile for gpu_modules.py train)
# 1. accuracy_fp32.py: each output's error against float64 beside PyTorch's
#    at the same setting, (1024, 2816) T = 74, 2048, 8192 and (4096, 11008)
#    T = 8192 (no biases).
# 2. gpu_modules.py train: the 30-step fp32 training check.
# 3. bench_precision.py: the training step through the module per precision
#    beside HF at 'highest' and 'high', T = 8192, both shapes.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/acc36 || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$R/gpu.txt"
timeout 120 python3 bench/accuracy_fp32.py --out "$R/accuracy-1024" --tokens 74,2048,8192 > "$R/accuracy-1024.log" 2>&1
echo "accuracy 1024 rc=$? $(( $(date +%s) - s )) s"
timeout 120 python3 bench/accuracy_fp32.py --out "$R/accuracy-4096" --shape 4096x11008 --tokens 8192 --bias false > "$R/accuracy-4096.log" 2>&1
echo "accuracy 4096 rc=$? $(( $(date +%s) - s )) s"; tail -8 "$R/accuracy-4096.log"
FMLP_CACHE_DIR=$PWD/.device/train35 timeout 150 python3 python/tests/gpu_modules.py train > "$R/train.log" 2>&1
echo "train rc=$? $(( $(date +%s) - s )) s"; grep -v "per step" "$R/train.log" | tail -6
timeout 150 python3 bench/bench_precision.py --modes tf32x3,tf32 --rounds 3 --out "$R/precision" > "$R/precision.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; tail -5 "$R/precision.txt"
