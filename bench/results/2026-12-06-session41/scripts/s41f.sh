#!/usr/bin/env bash
# Session 41 (issue 23), device call 6 (carry .device/cache41: make-cache41.py
# with FMLP_CACHE_DIR=.device/cache41 and fmlp-compile on PATH; and
# .device/include): the package's path after the change.
# 1. gpu_modules.py precisions: every fp32 precision by its bound with its
#    controls, and lean_copies (the copies passed from their first reader's
#    T only, now 769: T = 1, 16, 256, 768, 769, 1100);
# 2. bench_sweep.py at PyTorch's 'high' (fmlp tf32 against Hugging Face's
#    TF32 GEMMs), module against module, graph-replayed, T = 256, 600,
#    768, 1024.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/cache41 || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 200 python3 python/tests/gpu_modules.py precisions > "$R/precisions.log" 2>&1
echo "precisions rc=$? $(tail -1 "$R/precisions.log") $(( $(date +%s) - s )) s"
grep -E "^FAIL|tf32 no-grad|Error" "$R/precisions.log" | head -30
timeout 250 python3 bench/bench_sweep.py --out "$R/sweep" --dtype f32 --matmul-precision high \
  --shapes 4096x11008,1024x2816 --tokens 256,600,768,1024 --impls fmlp,hf_eager \
  --modes nograd,train --launches graph --rounds 3 --deadline-s 220 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"
grep -E "^D=|us:|peak" "$R/sweep.log" | head -40
