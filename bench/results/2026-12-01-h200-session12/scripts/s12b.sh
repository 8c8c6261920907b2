#!/usr/bin/env bash
# Session 12, call 2: main with every branch merged (runtime, tools, targets,
# frontends, guard). The GPU test's cells call 1 did not reach (f32 at
# (4096, 11008) T = 4096) and compute-sanitizer's memcheck and racecheck on
# the hardened runtime; the Python package's checks (modules, training,
# whole-step graph capture) with chip_of asking the runtime's chip table.
#   .device/bundles: test/GPU/make-bundles.sh at this commit
#   .device/fmlp-cache: python/tests/make-gpu-cache.sh at this commit
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test b=$PWD/.device/bundles
timeout 150 $test $b/mlp-f32-4096-11008.bundle f32 4096 11008 4096 > "$R/gpu-test.log" 2>&1
echo "f32 (4096, 11008) T=4096 rc=$? $(( $(date +%s) - s )) s"
for tool in memcheck racecheck; do
  echo "== compute-sanitizer --tool $tool (bf16, D=1024, H=2816, T=37)" >> "$R/gpu-test.log"
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 \
    $test $b/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 >> "$R/gpu-test.log" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s"
done
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|failure" "$R/gpu-test.log"
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
for mode in modules train graph-step; do
  timeout 200 python3 python/tests/gpu_modules.py $mode > "$R/$mode.log" 2>&1
  echo "$mode rc=$? $(grep -c '^pass' "$R/$mode.log") pass $(grep -c '^FAIL' "$R/$mode.log") FAIL $(( $(date +%s) - s )) s"
  grep '^FAIL' "$R/$mode.log" | head -5
done
