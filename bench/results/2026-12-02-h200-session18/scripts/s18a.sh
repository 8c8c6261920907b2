#!/usr/bin/env bash
# Session 18, call 1: precision highest (PyTorch's default) on the H200:
# tf32x3 on tensor cores in contractions of >= 84 terms, IEEE SIMT below.
# Bundles made here from this tree:
#   DTYPES=f32 test/GPU/make-bundles.sh .device/bundles-highest
#   DTYPES=f32 python/tests/make-gpu-cache.sh .device/fmlp-cache-highest
#     (+ the bf16 (1024, 2816) block of gpu_modules.py's train check)
# 1. fmlp-gpu-block-test: the default f32 bundles (highest) judged by IEEE
#    fp32's bound at T either side of 84 (the weight gradients' SIMT
#    variant), (64, 128) where the contractions over D take IEEE and those
#    over H tf32x3, chunks of 1024; ieee bundles; the control (tf32 judged
#    by IEEE's bound must fail); memcheck and racecheck.
# 2. gpu_modules.py precisions and train (30 fp32 steps, default setting).
# 3. accuracy_fp32.py and bench_precision.py (highest beside HF strict).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 120 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
B=.device/bundles-highest; c=--contraction=highest
run gpu-highest.log $B/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 17 83 84 129 2597 $c
run gpu-highest.log $B/mlp-f32-4096-11008.bundle f32 4096 11008 17 84 257 $c
run gpu-highest.log $B/mlp-f32-64-128-highest.bundle f32 64 128 1 17 83 84 4096 $c
run gpu-highest.log $B/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 17 1000 2049 2597 $c
run gpu-highest.log $B/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 83 2049 $c
run gpu-ieee.log $B/mlp-f32-1024-2816-ieee.bundle f32 1024 2816 1 17 129 --contraction=ieee
run gpu-ieee.log $B/mlp-f32-64-128-ieee.bundle f32 64 128 17 4096 --contraction=ieee
run control-tf32-by-ieee.log $B/mlp-f32-1024-2816-tf32.bundle f32 1024 2816 129 --contraction=ieee
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED|DID NOT" "$R"/gpu-*.log "$R"/control-*.log | sort | uniq -c | head -30
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-f32-64-128-highest.bundle f32 64 128 83 129 $c > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/$tool.log" | tail -1
done
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
export FMLP_CACHE_DIR=$PWD/.device/fmlp-cache-highest
timeout 120 python3 python/tests/gpu_modules.py precisions > "$R/gpu-modules-precisions.log" 2>&1
echo "precisions rc=$? $(( $(date +%s) - s )) s"; grep -E "FAIL|failed" "$R/gpu-modules-precisions.log" | tail -5
timeout 150 python3 python/tests/gpu_modules.py train > "$R/gpu-modules-train.log" 2>&1
echo "train rc=$? $(( $(date +%s) - s )) s"; grep -E "^train|FAIL|failed" "$R/gpu-modules-train.log" | tail -8
timeout 100 python3 bench/accuracy_fp32.py --out "$R" --tokens 74,2048 > "$R/accuracy.log" 2>&1
echo "accuracy rc=$? $(( $(date +%s) - s )) s"; grep -E "^## |^\| y|^\| dx|down_proj.weight" "$R/accuracy.md" | head -30
timeout 150 python3 bench/bench_precision.py --rounds 3 --modes highest,tf32x3 --out "$R" > "$R/precision.log" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; tail -5 "$R/precision.log"
