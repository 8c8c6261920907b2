#!/usr/bin/env bash
# Session 49, call 12: the clock columns on a GPU after the second
# reading (gpu_clock by UUID; bench_sweep.py's cells' "clock"): a short
# bench_precision.py run, and issue 22's training step at T = 1024 and
# 8192, graph-replayed, beside torch.compile, with each timing's clock.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49 || exit 1
timeout 100 python3 bench/bench_precision.py --shapes 1024x2816 --modes tf32x3,tf32 --rounds 3 \
  --out "$R" > "$R/precision.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; cat "$R/precision.md"
timeout 300 python3 bench/bench_sweep.py --out "$R/sweep-train" --modes train --launches graph \
  --impls fmlp,hf_compile --tokens 1024,8192 --rounds 5 --deadline-s 250 > "$R/sweep-train.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -E "us:|MHz|^D=" "$R/sweep-train.log"
