#!/usr/bin/env bash
# Session 32, call 2 (issue 23): three landing slots (mn3) judged once; the
# transposing kernels' speed (two and three slots) beside
# cuBLAS at TF32 (bench_strategies.py: each kernel's time and TFLOP/s
# beside cuBLAS's GEMM of the same shape, T = 8192), then the training step
# through the module (bench_precision.py: fmlp at precision tf32 beside
# Hugging Face's LlamaMLP at PyTorch's 'high', gradients set to None each
# step), once with the mma_sync backward (cache-mma) and once with the
# transposing one (cache-mn), each run with its own HF baseline.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/tf32mn/cache-mn || exit 1
# Three landing slots (mn3): judged once, then timed beside mn below.
timeout 150 build-gpu/fmlp-gpu-block-test .device/tf32mn/mn3/mlp-f32-1024-2816.bundle f32 1024 2816 \
  1 17 129 2597 --contraction=tf32 > "$R/blocks-mn3.log" 2>&1
echo "blocks mn3 rc=$? $(grep -c ' pass$' "$R/blocks-mn3.log") pass, $(grep -cE 'FAIL|CONTROL PASSED' "$R/blocks-mn3.log") failures $(( $(date +%s) - s )) s"
timeout 200 python3 bench/bench_strategies.py "$FMLP_RUNTIME_LIB" wgmma_mn=.device/tf32mn/mn \
  wgmma_mn3=.device/tf32mn/mn3 mma_sync=.device/tf32mn/mma --dtype f32 --torch-precision high --tokens 8192 --rounds 5 \
  --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; tail -25 "$R/strategies.txt"
for c in mma mn; do
  FMLP_CACHE_DIR=$PWD/.device/tf32mn/cache-$c timeout 170 python3 bench/bench_precision.py \
    --modes tf32 --tokens 8192 --rounds 3 --out "$R/precision-$c" > "$R/precision-$c.txt" 2>&1
  echo "precision $c rc=$? $(( $(date +%s) - s )) s"; tail -8 "$R/precision-$c.txt"
done
