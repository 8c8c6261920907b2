#!/usr/bin/env bash
# Session 48, call 1 (carry .device/g48, .device/include; g48 is session
# 46's g46s, python/tests/make-gpu-cache.sh's modules cache, with c46's
# (4096, 11008) bf16 and fp32 bundles added; main's kernels, whose default
# PTX is unchanged since b2c0ceb): session 47's guard fix (3f3b39d: only
# the layout checked while compiling) and the torch.func Autograd kernel
# (627c62b) under torch.compile on a GPU, torch 2.11: gpu_modules.py
# modules, regimes, graph-step, precisions. Then issue 23's bar: the
# module's fp32 step per mode beside HF strict and TF32 (bench_precision.py).
# Between them: s48_aligned.py, the ops' aligned copies on the GPU.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/g48 || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
python3 -c "import torch; print('torch', torch.__version__)"
for mode in modules regimes graph-step precisions; do
  timeout 150 python3 python/tests/gpu_modules.py $mode > "$R/modules-$mode.log" 2>&1
  echo "$mode rc=$? $(grep -c '^pass' "$R/modules-$mode.log") pass, $(tail -1 "$R/modules-$mode.log") $(( $(date +%s) - s )) s"
  grep -E "^FAIL|Error" "$R/modules-$mode.log" | head -5
done
# The ops' aligned copies after the runtime's FMLP_ERROR_ALIGNMENT (72428a8).
timeout 120 python3 bench/results/2026-12-07-session48/scripts/s48_aligned.py > "$R/aligned.log" 2>&1
echo "aligned rc=$? $(tail -1 "$R/aligned.log") $(( $(date +%s) - s )) s"; grep -E "^FAIL|Error" "$R/aligned.log" | head -5
timeout 170 python3 bench/bench_precision.py --modes highest,tf32x3,tf32 --tokens 8192 --rounds 3 \
  --shapes 4096x11008,1024x2816 --out "$R" > "$R/precision.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| " "$R/precision.txt" | tail -12
