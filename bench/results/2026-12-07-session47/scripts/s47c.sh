#!/usr/bin/env bash
# Session 47, call 3 (carry .device/g46s, .device/include): the module
# changes of 1e1bdb4 (weights not dense in place fall back; the activation
# key; an Autograd kernel of fmlp's own for torch.func) on a GPU:
# gpu_modules.py modules, regimes (checkpointing, torch.compile dynamic),
# graph-step (a step in one CUDA graph), tiny, train (30 AdamW steps).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/g46s || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
python3 -c "import torch; print('torch', torch.__version__)"
for mode in modules regimes graph-step tiny train; do
  timeout 150 python3 python/tests/gpu_modules.py $mode > "$R/modules-$mode.log" 2>&1
  echo "$mode rc=$? $(grep -c '^pass' "$R/modules-$mode.log") pass, $(tail -1 "$R/modules-$mode.log") $(( $(date +%s) - s )) s"
  grep -E "^FAIL|Error" "$R/modules-$mode.log" | head -5
done
