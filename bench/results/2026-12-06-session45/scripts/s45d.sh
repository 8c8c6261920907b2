#!/usr/bin/env bash
# Session 45, call 3 (issue 23; carry .device/s45/ahead/tf32,
# .device/include, .device/none; make-s45a.sh): `tf32` with the loads
# ahead, each kernel beside cuBLAS TF32 at T = 8192.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/none || exit 1
lib=build-gpu/lib/libfmlp_runtime.so
timeout 110 python3 bench/bench_strategies.py $lib tf32=.device/s45/ahead/tf32 \
  --dtype f32 --torch-precision high --rounds 2 --out "$R" > "$R/strategies-high.txt" 2>&1
echo "strategies high rc=$? $(( $(date +%s) - s )) s"; tail -16 "$R/strategies-high.txt"
