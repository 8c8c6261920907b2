#!/usr/bin/env bash
# Session 12, call 4: the guard with its fast path (guard-cost merged): its
# cost on an eager call again (bench/bench_guard.py), then the PEFT guard test
# and the modules check on it.
#   .device/fmlp-cache: python/tests/make-gpu-cache.sh at this commit
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}
cmake -S test/GPU -B build-gpu -G Ninja > "$R/build.log" 2>&1 && cmake --build build-gpu >> "$R/build.log" 2>&1 ||
  { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 200 python3 bench/bench_guard.py --rounds 3 2>&1 | tee "$R/bench-guard.log"
for t in "python/tests/gpu_peft_guard.py" "python/tests/gpu_modules.py modules"; do
  name=$(basename ${t%% *} .py); timeout 300 python3 $t > "$R/$name.log" 2>&1
  echo "$t rc=$? $(grep -c "^pass" "$R/$name.log") pass $(grep -c "^FAIL" "$R/$name.log") FAIL"; grep "^FAIL" "$R/$name.log" | head -5; tail -1 "$R/$name.log"
done
