#!/usr/bin/env bash
# Session 27 (issue 25), last call: the LoRA host fast path (the guard's
# fast path for PEFT's LoRA Linears; the stacked matrices reused while no
# autograd records) on the GPU: gpu_lora.py and gpu_peft_guard.py again on
# this tree; bench_lora.py --no-grad at (4096, 11008), T = 1 (host-bound:
# s27c, s27d before it) and the GPU time of that forward (--profile).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache
st=0
timeout 90 python3 python/tests/gpu_lora.py > "$R/gpu-lora.log" 2>&1 || st=1
echo "gpu_lora $(( $(date +%s) - s )) s"; grep -E "^FAIL|passed, " "$R/gpu-lora.log"
timeout 150 python3 python/tests/gpu_peft_guard.py --compile-backend aot_eager > "$R/peft-guard.log" 2>&1 || st=1
echo "peft-guard $(( $(date +%s) - s )) s"; grep -E "^FAIL|passed, .* failed" "$R/peft-guard.log" | cut -c1-250
timeout 90 python3 bench/bench_lora.py --shape 4096x11008 --tokens 1 --no-grad --rounds 5 \
  --impls peft_eager,peft_compile,fmlp_lora,fmlp_lora_compile,fmlp_lora_kept,fmlp_frozen > "$R/lora-nograd-4096-t1.txt" 2>&1
echo "no-grad T=1 rc=$? $(( $(date +%s) - s )) s"; grep -v -i warn "$R/lora-nograd-4096-t1.txt" | tail -6
timeout 60 python3 bench/bench_lora.py --shape 4096x11008 --tokens 1 --no-grad --profile fmlp_lora \
  > "$R/lora-profile-nograd-t1.txt" 2>&1
echo "profile rc=$? $(( $(date +%s) - s )) s"; grep -v -i warn "$R/lora-profile-nograd-t1.txt" | head -16
exit $st
