#!/usr/bin/env bash
# Session 22, call 5: an x the fused kernels cannot take (on the CPU,
# float64) runs Hugging Face's forward with one warning
# (python/tests/gpu_modules.py fallbacks), and the modules mode on the same
# tree (its device-mismatch check now meets PyTorch's own error). Cache as
# in s22d.sh.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 120 python3 python/tests/gpu_modules.py fallbacks > "$R/fallbacks.log" 2>&1
echo "fallbacks rc=$? $(( $(date +%s) - s )) s"; cat "$R/fallbacks.log"
timeout 300 python3 python/tests/gpu_modules.py modules > "$R/modules.log" 2>&1
echo "modules rc=$? $(( $(date +%s) - s )) s"; grep -E "^FAIL|mismatch" "$R/modules.log" | head; tail -1 "$R/modules.log"
