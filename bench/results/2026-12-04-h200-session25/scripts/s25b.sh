#!/usr/bin/env bash
# Session 25 (issue 25): what fused LoRA has to beat. bench/bench_lora_baseline.py
# at (4096, 11008) and (1024, 2816), T = 8192, bf16: PEFT's LoRA (r = 16 on
# gate, up, down, base frozen) eager and compiled, HF frozen compiled, and
# fmlp's frozen module (no adapters) on this tree's bundles (.device/cache).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache
for shape in 4096x11008 1024x2816; do
  timeout 240 python3 bench/bench_lora_baseline.py --shape $shape --tokens 8192 \
    >> "$R/lora-baseline.txt" 2>&1; echo "$shape rc=$? $(( $(date +%s) - s )) s"
done
cat "$R/lora-baseline.txt" | grep -v Warning | tail -20
