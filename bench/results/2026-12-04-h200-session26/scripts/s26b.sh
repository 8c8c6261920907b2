#!/usr/bin/env bash
# Session 26 (issue 25): fused LoRA's training step against PEFT's, and
# fmlp's frozen backward against its trainable one (bench/bench_lora.py),
# T = 8192, bf16, r = 16 on gate, up, down (R = 32, Rd = 16); then
# fmlp_lora again on bundles compiled with the adapters' tiles no wider
# than N (.device/cache-clamp: the wgmmaTileN rule of docs/LoRA.md's next
# item), the same run's PEFT compiled beside it.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
FMLP_CACHE_DIR=$PWD/.device/cache timeout 200 python3 bench/bench_lora.py --shape 4096x11008 \
  --impls peft_eager,peft_compile,fmlp_lora,fmlp_frozen,fmlp_trainable,fmlp_forward \
  > "$R/lora-4096.txt" 2>&1; echo "4096 rc=$? $(( $(date +%s) - s )) s"
FMLP_CACHE_DIR=$PWD/.device/cache-clamp timeout 80 python3 bench/bench_lora.py --shape 4096x11008 --rounds 3 \
  --impls peft_compile,fmlp_lora > "$R/lora-4096-clamp.txt" 2>&1; echo "clamp rc=$? $(( $(date +%s) - s )) s"
FMLP_CACHE_DIR=$PWD/.device/cache timeout 70 python3 bench/bench_lora.py --shape 1024x2816 \
  --impls peft_compile,fmlp_lora,fmlp_frozen,fmlp_trainable,fmlp_forward --rounds 3 \
  > "$R/lora-1024.txt" 2>&1; echo "1024 rc=$? $(( $(date +%s) - s )) s"
for f in lora-4096 lora-4096-clamp lora-1024; do echo "== $f"; grep -v -i warn "$R/$f.txt" | tail -12; done
