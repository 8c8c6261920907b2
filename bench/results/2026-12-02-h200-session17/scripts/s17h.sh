#!/usr/bin/env bash
# Session 17, call 7: the IEEE SIMT kernels with blocked sums (each k-tile
# of 16 summed from zero, then added to the accumulator). Bundles:
#   fmlp-compile of the f32 block at (1024, 2816), (64, 128), (4096, 11008)
#   into .device/bundles-ieee2; .device/fmlp-cache-f32's ieee bundles
#   compiled again (make-gpu-cache.sh's specs).
# 1. fmlp-gpu-block-test (IEEE bound); 2. accuracy_fp32.py.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 60 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
B=.device/bundles-ieee2
run gpu-ieee.log $B/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 17 129 2597
run gpu-ieee.log $B/mlp-f32-64-128.bundle f32 64 128 1 17 4096
run gpu-ieee.log $B/mlp-f32-4096-11008.bundle f32 4096 11008 17
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED|DID NOT" "$R"/gpu-ieee.log | sort | uniq -c
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
export FMLP_CACHE_DIR=$PWD/.device/fmlp-cache-f32
timeout 120 python3 bench/accuracy_fp32.py --out "$R" --tokens 74,2048 > "$R/accuracy.log" 2>&1
echo "accuracy rc=$? $(( $(date +%s) - s )) s"; cat "$R/accuracy.md" | grep -E "^##|^\| (y|dx|gate_proj.weight|down_proj.weight|down_proj.bias) "
