#!/usr/bin/env bash
# Session 41 (issue 23), device call 8 (carry .device/cache41b: the two
# Llama shapes' tf32 bundles compiled by the package (fmlp.spec's
# find_or_compile, FMLP_CACHE_DIR=.device/cache41b) with the transposing
# bound at 512; .device/include): the training step through the module
# against Hugging Face at PyTorch's TF32 at T = 256 .. 1024, graph-replayed,
# with one eager call's extra peak memory.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/cache41b || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 200 python3 bench/bench_sweep.py --out "$R/sweep" --dtype f32 --matmul-precision high \
  --shapes 4096x11008,1024x2816 --tokens 256,300,512,513 --impls fmlp,hf_eager \
  --modes train --launches graph --rounds 3 --deadline-s 180 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"
grep -E "^D=|us:|peak" "$R/sweep.log" | head -40
