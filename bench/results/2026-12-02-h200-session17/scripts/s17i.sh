#!/usr/bin/env bash
# Session 17, call 9: f16 blocks under the per-step tensor-core sum bound
# (f16's storage rounding is 2^-11, so the contraction term weighs more
# than in bf16): the GPU tests at both shapes, controls included.
#   DTYPES=f16 test/GPU/make-bundles.sh .device/bundles-f16
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 80 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
B=.device/bundles-f16
run gpu-f16.log $B/mlp-f16-4096-11008.bundle f16 4096 11008 17
run gpu-f16.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 1 17 129 2597
grep -E "failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R"/gpu-f16.log | sort | uniq -c
grep -h "control: other inputs" "$R"/gpu-f16.log
