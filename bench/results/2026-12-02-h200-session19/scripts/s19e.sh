#!/usr/bin/env bash
# Session 19, call 5: the PyTorch modules on the kept kernels (boxes of 32
# rows for A): python/tests/gpu_modules.py modules with the bf16 module
# cache made from this tree (.device/cache, python/tests/make-gpu-cache.sh).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 150 python3 python/tests/gpu_modules.py modules > "$R/gpu-modules.log" 2>&1
echo "modules rc=$? $(grep -c '^pass' "$R/gpu-modules.log") pass $(grep -c '^FAIL' "$R/gpu-modules.log") FAIL $(( $(date +%s) - s )) s"
grep '^FAIL' "$R/gpu-modules.log" | head -8; tail -3 "$R/gpu-modules.log"
