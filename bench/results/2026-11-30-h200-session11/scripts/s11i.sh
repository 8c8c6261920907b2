#!/usr/bin/env bash
cd "$(dirname "$0")/.."
R=${OUT:-/tmp}
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache11 PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 120 python3 .device/prof.py > $R/prof.log 2>&1; echo "rc=$?"; grep -v Warning $R/prof.log | cut -c1-200
