#!/usr/bin/env bash
# Session 20, call 4 (issue 22): bench/bench_sweep.py on the tree as it
# lands (.device/cache: python/tests/make-gpu-cache.sh, DTYPES=bf16),
# module against module, graph-replayed, fmlp against HF eager and
# torch.compile, T from 1 to 8192 as the deadline allows (the T this
# session's variants changed first).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
left=$(( 580 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_sweep.py --out "$R" --tokens 1,4,16,32,64,128,256,512,1024,2048,8192 \
  --first 32,256,512,1024,2048,64,128 --impls fmlp,hf_eager,hf_compile --launches graph \
  --deadline-s $(( left - 20 )) > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -E "^\||^#" "$R/sweep.md" 2>/dev/null | head -80
