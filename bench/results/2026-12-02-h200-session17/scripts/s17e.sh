#!/usr/bin/env bash
# Session 17, call 5: tf32x3 with each k8 step's three products summed on
# the tensor core from zero and added to the accumulators in fp32 (tiles of
# 128 columns: 64 accumulators a thread). Bundles compiled again:
#   DTYPES=f32 FMLP_COMPILE_FLAGS=--precision=tf32x3 test/GPU/make-bundles.sh \
#     .device/bundles-tf32x3   (+ the edge shapes, as in s17a.sh)
#   .device/fmlp-cache-f32's tf32x3 bundles (make-gpu-cache.sh's specs).
# 1. fmlp-gpu-block-test on them (own bound), the tf32-by-tf32x3 control,
#    memcheck and racecheck at (64, 128), T = 129.
# 2. bench_strategies.py --dtype f32 (tf32x3, tf32) beside strict cuBLAS.
# 3. accuracy_fp32.py and bench_precision.py through the modules.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 100 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
B=.device/bundles-tf32x3; c=--contraction=tf32x3
run gpu-tf32x3.log $B/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 17 129 2597 $c
run gpu-tf32x3.log $B/mlp-f32-4096-11008.bundle f32 4096 11008 17 $c
run gpu-tf32x3.log $B/mlp-f32-64-128.bundle f32 64 128 1 17 4096 $c
run gpu-tf32x3.log $B/mlp-f32-1088-704.bundle f32 1088 704 17 37 $c
run gpu-tf32x3.log $B/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 17 2049 $c
run gpu-tf32x3.log $B/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 2049 $c
run control-tf32-by-tf32x3.log .device/bundles-tf32/mlp-f32-64-128.bundle f32 64 128 17 4096 $c
run control-tf32x3-by-ieee.log $B/mlp-f32-64-128.bundle f32 64 128 17 4096 --contraction=ieee
run control-tf32x3-by-ieee.log $B/mlp-f32-1024-2816.bundle f32 1024 2816 129 --contraction=ieee
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED|DID NOT" "$R"/gpu-*.log "$R"/control-*.log | sort | uniq -c | head -30
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 $test $B/mlp-f32-64-128.bundle f32 64 128 129 $c > "$R/memcheck.log" 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY" "$R/memcheck.log" | tail -1
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 3 $test $B/mlp-f32-64-128.bundle f32 64 128 129 $c > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(( $(date +%s) - s )) s"; grep -E "RACECHECK SUMMARY" "$R/racecheck.log" | tail -1
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 150 python3 bench/bench_strategies.py $FMLP_RUNTIME_LIB tf32x3=$B tf32=.device/bundles-tf32 \
  --dtype f32 --rounds 3 --torch-precision highest --out "$R" > "$R/strategies.log" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; tail -9 "$R/strategies.log"
export FMLP_CACHE_DIR=$PWD/.device/fmlp-cache-f32
timeout 150 python3 bench/accuracy_fp32.py --out "$R" --tokens 74,2048 > "$R/accuracy.log" 2>&1
echo "accuracy rc=$? $(( $(date +%s) - s )) s"; cat "$R/accuracy.md"
timeout 150 python3 bench/bench_precision.py --rounds 3 --out "$R" > "$R/precision.log" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; tail -5 "$R/precision.log"
