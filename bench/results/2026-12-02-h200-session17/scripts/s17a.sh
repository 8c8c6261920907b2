#!/usr/bin/env bash
# Session 17, call 1: fp32 blocks on tensor cores (mma_sync's m16n8k8 on
# tf32, one product or three), judged and timed.
#   for p in tf32 tf32x3; do DTYPES=f32 FMLP_COMPILE_FLAGS=--precision=$p \
#     test/GPU/make-bundles.sh .device/bundles-$p; done   (+ the f32 edge
#   shapes 64x128 and 1088x704 by fmlp-compile --precision=$p)
#   DTYPES=f32 test/GPU/make-bundles.sh .device/bundles-ieee   (SIMT)
# 1. bench/tensor_core_sum.cu: how the tensor cores add (rounding,
#    alignment, random dot products).
# 2. fmlp-gpu-block-test on the tf32 and tf32x3 bundles, each judged by its
#    own bound (--contraction); the negative controls: tf32 judged by
#    tf32x3's bound (must fail), tf32x3 by IEEE fp32's (reported).
# 3. memcheck and racecheck on tf32x3 at (64, 128), T = 129.
# 4. bench_strategies.py --dtype f32 at T = 8192: tf32, tf32x3, ieee (SIMT)
#    beside cuBLAS strict fp32, then beside cuBLAS TF32.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
nvcc -arch=sm_90a -O2 -o build-gpu/tensor_core_sum bench/tensor_core_sum.cu &&
  build-gpu/tensor_core_sum > "$R/tensor-core-sum.txt" 2>&1; cat "$R/tensor-core-sum.txt"
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 100 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
for p in tf32 tf32x3; do
  B=.device/bundles-$p; c=--contraction=$p
  run gpu-$p.log $B/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 17 129 2597 $c
  run gpu-$p.log $B/mlp-f32-4096-11008.bundle f32 4096 11008 17 $c
  run gpu-$p.log $B/mlp-f32-64-128.bundle f32 64 128 1 17 4096 $c
  run gpu-$p.log $B/mlp-f32-1088-704.bundle f32 1088 704 17 37 $c
  run gpu-$p.log $B/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 17 2049 $c
  run gpu-$p.log $B/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 2049 $c
done
echo "negative controls:"
run control-tf32-by-tf32x3.log .device/bundles-tf32/mlp-f32-64-128.bundle f32 64 128 17 4096 --contraction=tf32x3
run control-tf32-by-tf32x3.log .device/bundles-tf32/mlp-f32-1024-2816.bundle f32 1024 2816 129 --contraction=tf32x3
run control-tf32x3-by-ieee.log .device/bundles-tf32x3/mlp-f32-64-128.bundle f32 64 128 17 4096 --contraction=ieee
run control-tf32x3-by-ieee.log .device/bundles-tf32x3/mlp-f32-1024-2816.bundle f32 1024 2816 129 --contraction=ieee
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED|DID NOT" "$R"/gpu-*.log "$R"/control-*.log | sort | uniq -c
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 $test .device/bundles-tf32x3/mlp-f32-64-128.bundle f32 64 128 129 --contraction=tf32x3 > "$R/memcheck.log" 2>&1
echo "memcheck rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY" "$R/memcheck.log" | tail -1
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 3 $test .device/bundles-tf32x3/mlp-f32-64-128.bundle f32 64 128 129 --contraction=tf32x3 > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(( $(date +%s) - s )) s"; grep -E "RACECHECK SUMMARY" "$R/racecheck.log" | tail -1
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
for tp in highest high; do
  left=$(( 540 - ($(date +%s) - s) ))
  timeout $left python3 bench/bench_strategies.py $PWD/build-gpu/lib/libfmlp_runtime.so \
    tf32=.device/bundles-tf32 tf32x3=.device/bundles-tf32x3 ieee=.device/bundles-ieee \
    --dtype f32 --rounds 3 --torch-precision $tp --out "$R" > "$R/strategies-$tp.log" 2>&1
  echo "strategies $tp rc=$? $(( $(date +%s) - s )) s"; tail -16 "$R/strategies-$tp.log"
done
