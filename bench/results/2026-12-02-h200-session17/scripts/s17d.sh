#!/usr/bin/env bash
# Session 17, call 4: the fp32 training step per precision through the
# modules (bench/bench_precision.py: fmlp's ieee, tf32x3, tf32 beside HF's
# LlamaMLP at 'highest' and 'high'; bundles compiled here into
# .device/fmlp-cache-f32 by python/tests/make-gpu-cache.sh's specs).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
export FMLP_CACHE_DIR=$PWD/.device/fmlp-cache-f32
timeout 400 python3 bench/bench_precision.py --rounds 3 --out "$R" > "$R/precision.log" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; tail -12 "$R/precision.log"
