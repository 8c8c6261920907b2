#!/usr/bin/env bash
# Device (session 10, last call): python/tests/gpu_modules.py train with the
# previous kernels' cache (fmlp-cache-old: c4299f4, before b081ae3) and main's
# (fmlp-cache: f6d341b), to see which change moved the float32 run's loss.
cd "$(dirname "$0")/.."
R=${OUT:-/tmp}
cmake -S test/GPU -B build-gpu -G Ninja -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
export PYTHONPATH=$PWD/python FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so PYTHONUNBUFFERED=1
for c in fmlp-cache-old fmlp-cache; do
  FMLP_CACHE_DIR=$PWD/.device/$c timeout 50 python3 python/tests/gpu_modules.py train > $R/train-$c.log 2>&1; echo "$c rc=$?"; grep -E "^train|^pass|^FAIL" $R/train-$c.log
done
