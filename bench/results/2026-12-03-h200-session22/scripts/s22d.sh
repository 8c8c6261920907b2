#!/usr/bin/env bash
# Session 22, call 4: the widths of Hugging Face's own model tests (hidden
# 32, intermediate 37: rows no tensor map addresses) and D = 12 (a
# contraction shorter than a SIMT k-tile), bundles from this tree's
# compiler (python/tests/make-gpu-cache.sh .device/cache): the block tests
# on the cache's plain bf16 and f32 bundles, then gpu_modules.py tiny
# (llama, llama+bias, gemma modules against Hugging Face's, bf16 and f32,
# T = 74, 1, 300).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
C=.device/cache/fmlp0.3.0
run() { local log=$1; shift; timeout 60 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
run gpu-tiny.log $C-d32-h37-bf16-silu-sm_90a-savegu.bundle bf16 32 37 1 2 17 129 1000 4096
run gpu-tiny.log $C-d32-h37-f32-silu-sm_90a-savegu-highest.bundle f32 32 37 1 17 129 1000 --contraction=highest
run gpu-tiny.log $C-d12-h40-bf16-silu-sm_90a-savegu.bundle bf16 12 40 1 17 129 4096
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED" "$R/gpu-tiny.log" | sort | uniq -c
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 $test $C-d32-h37-bf16-silu-sm_90a-savegu.bundle bf16 32 37 129 > "$R/memcheck-tiny.log" 2>&1
echo "memcheck rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY" "$R/memcheck-tiny.log" | tail -1
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 300 python3 python/tests/gpu_modules.py tiny > "$R/tiny.log" 2>&1
echo "tiny rc=$? $(( $(date +%s) - s )) s"; grep -E "^FAIL" "$R/tiny.log" | head -30; tail -1 "$R/tiny.log"
