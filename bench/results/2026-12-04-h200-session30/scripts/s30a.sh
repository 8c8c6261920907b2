#!/usr/bin/env bash
# Session 30, call 1: gpu_lanes.py on main (its helpers refactored in
# c711e30, first run on the GPU), then the small_tokens weight loads with
# cache qualifiers (hidden knobs --fmlp-small-tokens-l2-prefetch and
# --fmlp-small-tokens-l1-no-allocate) against main's plain ld.global.nc:
# bench/compare_bundles.py, raw launches, alternating rounds.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/lanes
timeout 150 python3 python/tests/gpu_lanes.py > "$R/gpu-lanes.log" 2>&1
echo "gpu_lanes rc=$? $(( $(date +%s) - s )) s"; grep -E "FAIL|passed" "$R/gpu-lanes.log" | tail -5
for v in p256 n256 p128 n0; do
  timeout 100 python3 bench/compare_bundles.py .device/ab/p0 .device/ab/$v build-gpu/lib/libfmlp_runtime.so \
    --tokens 1,16 --entries-only --rounds 9 > "$R/ab-$v.txt" 2>&1
  echo "ab $v rc=$? $(( $(date +%s) - s )) s"; grep -E "no-grad|^D=" "$R/ab-$v.txt"
done
timeout 100 python3 bench/compare_bundles.py .device/ab/p0 .device/ab/n256 build-gpu/lib/libfmlp_runtime.so \
  --tokens 1 --shapes 4096x11008 --rounds 9 > "$R/ab-n256-kernels.txt" 2>&1
echo "ab kernels rc=$? $(( $(date +%s) - s )) s"; grep -E "small_tokens|no-grad" "$R/ab-n256-kernels.txt"
