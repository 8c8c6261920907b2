#!/usr/bin/env bash
# Session 48, call 3 (same carry): issue 22's training bar, the module's
# step (gradients set to None each step) at T >= 1024 beside
# torch.compile's, graph-replayed, both shapes (bench_sweep.py).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/g48 || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 260 python3 bench/bench_sweep.py --out "$R/sweep-train" --modes train --launches graph \
  --impls fmlp,hf_compile --tokens 1024,2048,8192 --first 1024 \
  --rounds 5 --deadline-s 240 > "$R/sweep-train.log" 2>&1
echo "sweep-train rc=$? $(( $(date +%s) - s )) s"; grep -A16 "^## " "$R/sweep-train/sweep.md" | head -30
