#!/usr/bin/env bash
# Session 11, call 8: bench/bench_torch.py (the PyTorch package against HF
# eager and torch.compile) on main's kernels (cache .device/fmlp-cache11).
cd "$(dirname "$0")/.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache11 PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 280 python3 bench/bench_torch.py --out $R/bench-torch.json > $R/bench-torch.log 2>&1
echo "bench_torch rc=$? $(( $(date +%s) - s )) s"; grep -v "Warning\|^W" $R/bench-torch.log
