#!/usr/bin/env bash
# Session 28: the memory policies at (4096, 11008), T = 65536 with the dX
# lane (issue 26: the lowest-memory policy within 1.15x agu's time at
# <= 0.5x its extra peak), the same bench run with every launch on one
# stream (FMLP_SERIAL_LAUNCHES=1) and with two; gpu_lanes.py first (the
# side stream at the caller's priority).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache
timeout 60 python3 python/tests/gpu_lanes.py --bf16-only > "$R/gpu-lanes-priority.log" 2>&1
echo "gpu_lanes rc=$? $(( $(date +%s) - s )) s"; tail -1 "$R/gpu-lanes-priority.log"
for mode in serial lanes; do
  [[ $mode == serial ]] && export FMLP_SERIAL_LAUNCHES=1 || unset FMLP_SERIAL_LAUNCHES
  timeout 200 python3 bench/bench_policies.py --out "$R/policies-$mode" --shapes 4096x11008 \
    --tokens 65536 --chunks 4096 --deadline-s 180 > "$R/policies-$mode.log" 2>&1
  echo "policies $mode rc=$? $(( $(date +%s) - s )) s"
  grep -vi warn "$R/policies-$mode.log" | tail -14
done
