#!/usr/bin/env bash
# Session 13, call 2: the rest of call 1's GPU tests (f16 at (4096, 11008),
# which call 1's time limit cut at T = 3), compute-sanitizer memcheck and
# racecheck at T = 3 (the small_tokens kernels) and 37, the PyTorch modules
# at T = 1, 3, 16, 17 (and the usual 74), then the whole like-for-like sweep.
#   .device/bundles: test/GPU/make-bundles.sh at this commit
#   .device/fmlp-cache: python/tests/make-gpu-cache.sh at this commit
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
t=build-gpu/fmlp-gpu-block-test; b=.device/bundles
timeout 100 $t $b/mlp-f16-4096-11008.bundle f16 4096 11008 0 1 2 3 16 17 37 > "$R/gpu-test-f16-4096.log" 2>&1
echo "f16-4096 rc=$? $(grep -c ' pass$' "$R/gpu-test-f16-4096.log") pass $(( $(date +%s) - s )) s"
grep "failure(s)" "$R/gpu-test-f16-4096.log"
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 \
    $t $b/mlp-bf16-1024-2816.bundle bf16 1024 2816 3 37 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|failure" "$R/$tool.log"
done
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 150 python3 python/tests/gpu_modules.py modules > "$R/modules.log" 2>&1
echo "modules rc=$? $(grep -c '^pass' "$R/modules.log") pass $(grep -c '^FAIL' "$R/modules.log") FAIL $(( $(date +%s) - s )) s"
grep '^FAIL' "$R/modules.log" | head -5; grep -E "T=(1|3|16|17) " "$R/modules.log" | head -12
left=$(( 560 - ($(date +%s) - s) ))
[ $left -gt 60 ] && timeout $left python3 bench/bench_sweep.py --out "$R" --deadline-s $(( left - 30 )) > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"
cat "$R/sweep.md" 2>/dev/null | grep -E "^\| (1|16|256|1024|8192|65536) \| graph" | head -40
