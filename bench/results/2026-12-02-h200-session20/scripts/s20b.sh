#!/usr/bin/env bash
# Session 20, call 2 (issue 22): the token variants chosen by the WGMMA time
# model (.device/bundles-new, this tree's test/GPU/make-bundles.sh,
# DTYPES="bf16 f16") against main's (.device/bundles-default).
# 1. fmlp-gpu-block-test at every range boundary of the new variants
#    (16/17, 128/129, 256/257, 512/513, 1024/1025, 2048/2049) and the issue's
#    T = 1, 2, 3, 16, 37, 255, 256, 257; both shapes, f16, edge shapes,
#    chunked bundles.
# 2. bench/kernel_times.py, both bundle sets, T = 17 .. 2048.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
B=.device/bundles-new
run() { local log=$1; shift; timeout 100 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
for t in 17 129 257 513; do run gpu-4096.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 $t & done
run gpu-new.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 2 3 16 17 37 128 129 255 256 257 512 513 1000 1024 1025 2048 2049 2597
run gpu-new.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 129 257 513 1025 2049
run gpu-new.log $B/mlp-bf16-64-128.bundle bf16 64 128 1 17 129 257 513 1025 2049 4096
run gpu-new.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 129 257 513 1025 2049
run gpu-new.log $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 37 129
run gpu-new.log $B/mlp-bf16-1024-2816-u-c1024.bundle bf16 1024 2816 300 1000 2049
wait
run gpu-4096.log $B/mlp-f16-4096-11008.bundle f16 4096 11008 257 &
run gpu-4096.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 128 &
run gpu-4096.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 256 &
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
TT=17,64,128,129,200,256,300,512,700,1024,1500,2048
for b in bundles-default bundles-new; do
  timeout 150 python3 bench/kernel_times.py .device/$b $FMLP_RUNTIME_LIB --tokens $TT --calls 10 > "$R/kt-$b.txt" 2>&1
  echo "kernel times $b rc=$? $(( $(date +%s) - s )) s"
done
wait
grep -hE "failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R"/gpu-*.log | sort | uniq -c
grep -hE "^D=" "$R"/kt-bundles-new.txt | head -60
