#!/usr/bin/env bash
# Session 34, call 2 (issue 23): the copying kernels' speed beside cuBLAS
# at TF32 and the landing kernels (bench_strategies.py: each kernel's time
# and TFLOP/s beside cuBLAS's GEMM of the same shape, T = 8192), then the
# training step through the module (bench_precision.py: fmlp at precision
# tf32 beside Hugging Face's LlamaMLP at PyTorch's 'high', gradients set to
# None each step; FMLP_CACHE_DIR=.device/cpa/cache-cpa).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/cpa/cache-cpa || exit 1
timeout 240 python3 bench/bench_strategies.py "$FMLP_RUNTIME_LIB" wgmma_cpa=.device/cpa/cpa \
  wgmma_mn=.device/tf32mn/mn --dtype f32 --torch-precision high --tokens 8192 --rounds 5 \
  --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; tail -25 "$R/strategies.txt"
timeout 250 python3 bench/bench_precision.py --modes tf32 --tokens 8192 --rounds 3 \
  --out "$R/precision-cpa" > "$R/precision-cpa.txt" 2>&1
echo "precision cpa rc=$? $(( $(date +%s) - s )) s"; tail -8 "$R/precision-cpa.txt"
