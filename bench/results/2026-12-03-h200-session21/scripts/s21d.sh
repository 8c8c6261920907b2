#!/usr/bin/env bash
# Session 21, call 4: python/tests/gpu_modules.py regimes (gradient
# checkpointing, torch.compile with dynamic shapes) and test_ops.py's
# AutocastTest (CPU autocast; torch is on this machine), then the autocast
# and modules modes again. Cache as call 3.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 240 python3 python/tests/gpu_modules.py regimes > "$R/regimes.log" 2>&1
echo "regimes rc=$? $(( $(date +%s) - s )) s"; tail -20 "$R/regimes.log"
(cd python/tests && timeout 100 python3 -m unittest -v test_ops.AutocastTest) > "$R/test-ops-autocast.log" 2>&1
echo "AutocastTest rc=$?"; tail -5 "$R/test-ops-autocast.log"
# The autocast and modules modes again, after random_mlp took the seeded
# initialisation into one place.
for mode in autocast modules; do
  timeout 200 python3 python/tests/gpu_modules.py $mode > "$R/$mode.log" 2>&1
  echo "$mode rc=$? $(grep -c '^pass' "$R/$mode.log") pass, $(grep -c '^FAIL' "$R/$mode.log") FAIL"
done
