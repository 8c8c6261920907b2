#!/usr/bin/env bash
# Session 15, call 2: split-K for the narrow WGMMA variants (K2, K4 at
# T <= 256) and the blocked bias-gradient sums, on merged main. Bundles and
# cache made here (COMMAND.md).
# 1. fmlp-gpu-block-test on the default bf16 bundles at the T either side
#    of the split-K variants (1, 17, 64, 128, 129, 256, 257) and beyond,
#    both shapes, the edge shapes; f32 at (1024, 2816).
# 2. The chunked variants whose chunks of 64 run split-K (x and u at
#    T = 129), then memcheck and racecheck on the default bundle at T = 129
#    and on u in chunks of 64 at T = 129.
# 3. gpu_modules.py modules (biases: the bias-gradient kernel), then
#    bench/accuracy_fp32.py (fp32 errors against float64 beside PyTorch).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
B=.device/bundles; test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 120 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
run gpu.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 17 64 128 129 255 256 257 1000 4096
run gpu.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 1 17 64 128 129 256 257
run gpu.log $B/mlp-bf16-64-128.bundle bf16 64 128 17 129 256
run gpu.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 129 256
run gpu.log $B/mlp-f32-1024-2816.bundle f32 1024 2816 17 129 256
run gpu.log $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 17 129 200
run gpu.log $B/mlp-bf16-1024-2816-u-c64.bundle bf16 1024 2816 17 129 200
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED" "$R/gpu.log" | head -20; echo "bitwise lines: $(grep -c "bitwise as eager" "$R/gpu.log")"
for tool in memcheck racecheck; do
  for b in mlp-bf16-1024-2816 mlp-bf16-1024-2816-u-c64; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/$b.bundle bf16 1024 2816 129 \
      > "$R/$tool-$b.log" 2>&1
    echo "$tool $b rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|failure" "$R/$tool-$b.log" | tail -2
  done
done
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 60 python3 bench/accuracy_fp32.py --out "$R" > "$R/accuracy.log" 2>&1
echo "accuracy rc=$? $(( $(date +%s) - s )) s"; cat "$R/accuracy.log" | tail -16
left=$(( 560 - ($(date +%s) - s) ))
timeout $left python3 python/tests/gpu_modules.py modules > "$R/modules.log" 2>&1
echo "modules rc=$? $(grep -c '^pass' "$R/modules.log") pass $(grep -c '^FAIL' "$R/modules.log") FAIL $(( $(date +%s) - s )) s"
grep '^FAIL' "$R/modules.log" | head -8
