#!/usr/bin/env bash
# Session 46, call 2 (same carry as s46a.sh): issue 22's training bar, the
# module's step (gradients set to None each step) at T >= 1024 beside
# torch.compile's, graph-replayed and eager, both shapes (bench_sweep.py).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c46 || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 540 python3 bench/bench_sweep.py --out "$R/sweep-train" --modes train --launches graph,eager \
  --impls fmlp,hf_compile --tokens 1024,2048,8192,65536 --first 1024,8192 \
  --rounds 5 --deadline-s 500 > "$R/sweep-train.log" 2>&1
echo "sweep-train rc=$? $(( $(date +%s) - s )) s"; grep -A16 "^## " "$R/sweep-train/sweep.md" | head -50
