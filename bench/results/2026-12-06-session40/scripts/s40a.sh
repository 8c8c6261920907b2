#!/usr/bin/env bash
# Session 40 (issue 23): tf32's rounded weight copies left unallocated
# below their first reader's T, and the module path at few tokens.
# 1. gpu_modules.py precisions: every fp32 precision judged by its bound
#    with its controls (as before), and lean_copies: the no-grad forward at
#    T = 1 .. 1100 passing null for the copies below their first reader
#    (same bits as passing every workspace, within tf32's bound, the
#    copies' 33 MiB not allocated below and allocated from there);
# 2. bench_sweep.py, fp32 at PyTorch's 'high' (fmlp tf32 against Hugging
#    Face's TF32 GEMMs), module against module, eager and graph-replayed,
#    no-grad forward and training step at T = 1, 16, 256, 1024 beside the
#    extra peak memory of one call.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/cache40 || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
echo "built $(( $(date +%s) - s )) s"
timeout 200 python3 python/tests/gpu_modules.py precisions > "$R/precisions.log" 2>&1
echo "precisions rc=$? $(tail -1 "$R/precisions.log") $(( $(date +%s) - s )) s"
grep -E "^FAIL|tf32 no-grad|Error" "$R/precisions.log" | head -30
timeout 280 python3 bench/bench_sweep.py --out "$R/sweep" --dtype f32 --matmul-precision high \
  --shapes 4096x11008,1024x2816 --tokens 1,16,256,1024 --first 1,16 --impls fmlp,hf_eager \
  --modes nograd,train --launches eager,graph --rounds 3 --deadline-s 220 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"
grep -E "^D=|us:|peak" "$R/sweep.log"
