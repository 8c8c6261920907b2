#!/usr/bin/env bash
# Session 14, call 4: bench/bench_policies.py again, its memory measure
# fixed (call 3 took `before` with the previous step's weight gradients
# still allocated, so "held" came out 3 D H x 2 B low), 3 rounds of 3
# samples; then racecheck on the default bf16 bundle at T = 37 (K2's and
# K4's 64-wide WGMMA variants), which call 2's time limit cut.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 300 python3 bench/bench_policies.py --out "$R" --rounds 3 --samples 3 --deadline-s 250 > "$R/policies.log" 2>&1
echo "policies rc=$? $(( $(date +%s) - s )) s"; grep -vE "^\s*$|wrote" "$R/policies.log" | tail -32
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 3 build-gpu/fmlp-gpu-block-test \
  .device/bundles/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(( $(date +%s) - s )) s"; tail -3 "$R/racecheck.log"
