#!/usr/bin/env bash
# Session 13, call 1: the small_tokens kernels (K1 and K2 for T <= 16) and
# bundle format 2 (launches chosen by T) on the H200. First a quick look at
# T around the range's edge (bf16, D = 1024), then the GPU tests (bf16 and
# f16, T in {0, 1, 2, 3, 16, 17, 37, 4096}, bf16 edge shapes, sanitizers),
# then the no-grad sweep at small T.
#   .device/bundles: test/GPU/make-bundles.sh at this commit
#   .device/fmlp-cache: python/tests/make-gpu-cache.sh at this commit
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S test/GPU -B build-gpu -G Ninja -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
echo "built $(( $(date +%s) - s )) s"
timeout 120 build-gpu/fmlp-gpu-block-test .device/bundles/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 2 3 16 17 > "$R/edge.log" 2>&1
echo "edge rc=$? $(( $(date +%s) - s )) s"
grep -E "FAIL|worst|error|ERROR" "$R/edge.log" | head -30; tail -5 "$R/edge.log"
DTYPES="bf16 f16" timeout 330 bash test/GPU/run.sh "$PWD/.device/bundles" quick "$PWD/.device/include" > "$R/gpu-test.log" 2>&1
echo "gpu-test rc=$? $(( $(date +%s) - s )) s"
grep -E "^(FAIL|PASS|pass)|worst|ERROR|error|passed|failed" "$R/gpu-test.log" | tail -30
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
left=$(( 560 - ($(date +%s) - s) ))
[ $left -gt 60 ] && timeout $left python3 bench/bench_sweep.py --out "$R" --tokens 1,4,16,17,64 --deadline-s $(( left - 30 )) > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"
cat "$R/sweep.md" 2>/dev/null | head -80
