#!/usr/bin/env bash
# Session 11, call 5: bench_mlp (with the unfused K1 and K3 jobs) on main's
# kernels (c164ef6; 16-bit PTX identical to main10's).
cd "$(dirname "$0")/.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
timeout 500 python3 bench/bench_mlp.py .device/bundles-main11 build-gpu/lib/libfmlp_runtime.so --tokens 8192,32768 --out $R/bench.json > $R/bench.log 2>&1
echo "bench rc=$? $(( $(date +%s) - s )) s"; cat $R/bench.log | grep -v Warning
