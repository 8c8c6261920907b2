#!/usr/bin/env bash
# Session 18, call 5: programmatic launch without the small_tokens weight
# prefetch (.device/bundles-pdl0: fmlp-compile --fmlp-small-tokens-prefetch=0)
# against no programmatic launch (.device/bundles-nopdl), and the prefetch's
# own effect (bundles-pdl0 against bundles-pdl), eager, entries only.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 150 python3 bench/compare_bundles.py .device/bundles-nopdl .device/bundles-pdl0 $FMLP_RUNTIME_LIB \
  --tokens 1,16,64,256 --entries-only --rounds 7 > "$R/compare-nopdl-pdl0.txt" 2>&1
echo "rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare-nopdl-pdl0.txt"
timeout 100 python3 bench/compare_bundles.py .device/bundles-pdl0 .device/bundles-pdl $FMLP_RUNTIME_LIB \
  --tokens 1,16 --shapes 4096x11008 --entries-only --rounds 7 > "$R/compare-pdl0-pdl.txt" 2>&1
echo "rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare-pdl0-pdl.txt"
# gpu_modules.py precisions after its compile check became one helper
# (compiled_matches_eager, shared with the bf16 modules' check).
export FMLP_CACHE_DIR=$PWD/.device/fmlp-cache-highest
timeout 150 python3 python/tests/gpu_modules.py precisions > "$R/gpu-modules-precisions.log" 2>&1
echo "precisions rc=$? $(( $(date +%s) - s )) s"; grep -E "FAIL|compile|failed" "$R/gpu-modules-precisions.log" | tail -8
