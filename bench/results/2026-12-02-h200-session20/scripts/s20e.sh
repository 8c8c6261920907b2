#!/usr/bin/env bash
# Session 20, call 6 (issue 22): bench/bench_sweep.py over the issue's T
# (1, 4, 16, 64, 256, 1024, 8192, 65536), both shapes, eager and
# graph-replayed, module against module against HF eager and torch.compile,
# as the deadline allows (65536 last). Cache as in call 3.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
left=$(( 585 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_sweep.py --out "$R" --tokens 1,4,16,64,256,1024,8192,65536 \
  --first 1,16,1024,8192 --impls fmlp,hf_eager,hf_compile --launches eager,graph \
  --deadline-s $(( left - 20 )) > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -E "^\||^#" "$R/sweep.md" 2>/dev/null | head -90
