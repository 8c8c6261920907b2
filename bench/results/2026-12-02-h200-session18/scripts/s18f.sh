#!/usr/bin/env bash
# Session 18, call 6: gpu_modules.py precisions after judge.reference takes
# a precision's name through precision.CONTRACTION (213a8f2). Cache as in
# s18a.sh.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
export FMLP_CACHE_DIR=$PWD/.device/fmlp-cache-highest
timeout 150 python3 python/tests/gpu_modules.py precisions > "$R/gpu-modules-precisions.log" 2>&1
echo "precisions rc=$? $(( $(date +%s) - s )) s"; grep -cE "^pass" "$R/gpu-modules-precisions.log"; tail -1 "$R/gpu-modules-precisions.log"
