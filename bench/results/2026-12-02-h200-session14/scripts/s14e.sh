#!/usr/bin/env bash
# Session 14, call 5: frozen weights against trainable ones
# (bench/bench_frozen.py): the backward's time with every parameter frozen
# over its time with all trainable, fmlp (default policy save=gu) beside
# HF eager and torch.compile, (4096, 11008) and (1024, 2816), T = 8192.
# Same cache as call 3.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 240 python3 bench/bench_frozen.py > "$R/frozen.log" 2>&1
echo "frozen rc=$? $(( $(date +%s) - s )) s"; cat "$R/frozen.log"
