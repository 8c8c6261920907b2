#!/usr/bin/env bash
# Session 15, call 1: save=u on the GPU. Bundles and cache made here with
#   DTYPES="bf16 f32" test/GPU/make-bundles.sh .device/bundles
#   python/tests/make-gpu-cache.sh .device/fmlp-cache
# 1. test/GPU/run.sh quick, the memory-policy variants (SETS=variants):
#    bf16 gu, u, x unchunked and agu, gu, u, x in chunks of 1024; f32 u and
#    x in chunks of 1024.
# 2. compute-sanitizer memcheck and racecheck on bf16 save=u in chunks of
#    1024 at T = 2049 (two whole chunks and one of 1 token).
# 3. bench/bench_policies.py at both shapes, T = 8192 and 65536, chunks of
#    8192 and 4096: time and memory of save=u against agu.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
echo "build $(( $(date +%s) - s )) s"
DTYPES=bf16 SETS=variants timeout 200 bash test/GPU/run.sh .device/bundles quick $PWD/.device/include > "$R/gpu-bf16-variants.log" 2>&1
echo "bf16 variants rc=$? $(( $(date +%s) - s )) s"
grep -E "failure\(s\)|ERROR SUMMARY|^==|FAIL" "$R/gpu-bf16-variants.log" | head -30
DTYPES=f32 SETS=variants timeout 100 bash test/GPU/run.sh .device/bundles quick $PWD/.device/include > "$R/gpu-f32-variants.log" 2>&1
echo "f32 variants rc=$? $(( $(date +%s) - s )) s"
grep -E "failure\(s\)|^==|FAIL" "$R/gpu-f32-variants.log" | head
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 build-gpu/fmlp-gpu-block-test \
    .device/bundles/mlp-bf16-1024-2816-u-c1024.bundle bf16 1024 2816 2049 > "$R/$tool-u.log" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s"; tail -3 "$R/$tool-u.log"
done
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 280 python3 bench/bench_policies.py --out "$R" --chunks 8192,4096 --rounds 3 --samples 3 --deadline-s 240 > "$R/policies.log" 2>&1
echo "policies rc=$? $(( $(date +%s) - s )) s"; grep -vE "^\s*$|wrote" "$R/policies.log" | tail -60
