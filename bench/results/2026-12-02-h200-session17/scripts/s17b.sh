#!/usr/bin/env bash
# Session 17, call 2: the tensor-core sum unit (2^-22) now bounds the 16-bit
# blocks too: their GPU tests again, controls included (the WGMMA bf16
# bundles of session 16, .device/bundles); and fp32 accuracy per precision
# through the PyTorch modules (bench/accuracy_fp32.py; bundles compiled here:
# .device/fmlp-cache-f32, python/tests/make-gpu-cache.sh's f32 specs).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 150 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
B=.device/bundles
run gpu-bf16.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 17 129 2597
run gpu-bf16.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 17 257
run gpu-bf16.log $B/mlp-bf16-64-128.bundle bf16 64 128 17 4096
run gpu-bf16.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 37
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED|DID NOT" "$R"/gpu-bf16.log | sort | uniq -c
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
export FMLP_CACHE_DIR=$PWD/.device/fmlp-cache-f32
timeout 300 python3 bench/accuracy_fp32.py --out "$R" --tokens 74,2048 > "$R/accuracy.log" 2>&1
echo "accuracy rc=$? $(( $(date +%s) - s )) s"; tail -5 "$R/accuracy.log"; cat "$R/accuracy.md"
