#!/usr/bin/env bash
# Session 12, call 3: what the projection guard costs an eager call
# (bench/bench_guard.py: guard on/off alternated in one run, HF eager beside).
#   .device/fmlp-cache: python/tests/make-gpu-cache.sh at this commit
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}
cmake -S test/GPU -B build-gpu -G Ninja > "$R/build.log" 2>&1 && cmake --build build-gpu >> "$R/build.log" 2>&1 ||
  { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 400 python3 bench/bench_guard.py --rounds 3 2>&1 | tee "$R/bench-guard.log"
