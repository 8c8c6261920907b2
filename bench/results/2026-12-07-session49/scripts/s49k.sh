#!/usr/bin/env bash
# Session 49, call 14: token variants chosen per count of 128-row tiles
# (T in (128 (r - 1), 128 r], r <= 16) instead of the ranges T <= 128, 256,
# 512, 1024, 2048 (.device/c49r, this tree's compiler; main's: c49).
# Correctness: block tests of the c49r bundles, at (1024, 2816) on both
# sides of each changed range, at (4096, 11008) inside each; speed:
# modules graph-replayed, fmlp (main) against fmlp_b (c49r) and
# torch.compile, no-grad and training.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49 .device/c49r || exit 1
B=.device/c49r/fmlp0.3.0-d
timeout 120 build-gpu/fmlp-gpu-block-test ${B}1024-h2816-bf16-silu-sm_90a-savegu.bundle bf16 1024 2816 \
  256 257 384 385 768 769 1536 1537 2048 > "$R/blocks-1024.log" 2>&1
echo "blocks 1024 rc=$? $(( $(date +%s) - s )) s"; tail -3 "$R/blocks-1024.log"
timeout 150 build-gpu/fmlp-gpu-block-test ${B}4096-h11008-bf16-silu-sm_90a-savegu.bundle bf16 4096 11008 \
  385 600 769 1100 1537 > "$R/blocks-4096.log" 2>&1
echo "blocks 4096 rc=$? $(( $(date +%s) - s )) s"; tail -3 "$R/blocks-4096.log"
timeout 260 python3 bench/bench_sweep.py --out "$R/sweep" --modes nograd,train --launches graph \
  --impls fmlp,fmlp_b,hf_compile --tokens 384,640,1536,2048 --rounds 5 --deadline-s 230 \
  > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -E "us:|^D=" "$R/sweep.log"
