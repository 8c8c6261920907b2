#!/usr/bin/env bash
# Session 27 (issue 25): the fp32 LoRA fine-tuning run again with PyTorch's
# deterministic kernels strictly (s26c's fp32 run: PEFT's own run did not
# repeat itself, SDPA's backward under warn_only); gpu_lora.py with its
# CUDA-graph replay of a LoRA training step; then bench/bench_lora.py at
# both shapes with every implementation, fmlp's LoRA under torch.compile
# beside PEFT's, on bundles with the one-box tile rule (re-applied).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache
st=0
timeout 90 python3 python/tests/gpu_peft_guard.py --cases lora_training --dtypes fp32 \
  > "$R/peft-training-fp32.log" 2>&1 || st=1
echo "peft fp32 training rc=$? $(( $(date +%s) - s )) s"
timeout 90 python3 python/tests/gpu_lora.py > "$R/gpu-lora.log" 2>&1 || st=1
echo "gpu_lora $(( $(date +%s) - s )) s"
grep -E "^(pass|FAIL)|passed, " "$R/peft-training-fp32.log" "$R/gpu-lora.log" | grep -E "FAIL|passed|graph" | cut -c1-220
timeout 240 python3 bench/bench_lora.py --shape 4096x11008 --rounds 3 > "$R/lora-4096.txt" 2>&1
echo "4096 rc=$? $(( $(date +%s) - s )) s"
timeout 150 python3 bench/bench_lora.py --shape 1024x2816 --rounds 3 > "$R/lora-1024.txt" 2>&1
echo "1024 rc=$? $(( $(date +%s) - s )) s"
for f in lora-4096 lora-1024; do echo "== $f"; grep -v -i warn "$R/$f.txt" | tail -14; done
exit $st
