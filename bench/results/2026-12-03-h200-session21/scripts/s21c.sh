#!/usr/bin/env bash
# Session 21, call 3: fp32 modules under torch.autocast (bf16, fp16) against
# Hugging Face's (python/tests/gpu_modules.py autocast), then the modules
# mode (every case, bf16 and f32, T = 1 .. 300) on the same tree. Cache:
# the (1024, 2816) specs of python/tests/make-gpu-cache.sh in bf16, f16
# and f32.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 200 python3 python/tests/gpu_modules.py autocast > "$R/autocast.log" 2>&1
echo "autocast rc=$? $(( $(date +%s) - s )) s"; cat "$R/autocast.log" | grep -v "^pass.*control" | tail -60
left=$(( 580 - ($(date +%s) - s) ))
timeout $left python3 python/tests/gpu_modules.py modules > "$R/modules.log" 2>&1
echo "modules rc=$? $(( $(date +%s) - s )) s"; grep -E "^FAIL|failed$" "$R/modules.log" | head -30
