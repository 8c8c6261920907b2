#!/usr/bin/env bash
# Session 20, call 1 (issue 22): where the WGMMA grids of M = T are too
# small or end in a partial wave, at T = 128 .. 2048.
# 1. Session 19's prepared run: small_tokens kernels for T <= 32
#    (.device/bundles-small32, --fmlp-small-tokens-max=32) against the
#    default (.device/bundles-default): fmlp-gpu-block-test and kernel times.
# 2. Per-kernel device times (bench/kernel_times.py) of bundles whose
#    token variants are fixed by --fmlp-token-tiles, one (tile width, K
#    slices) for T <= 2048 on every M = T kernel op (.device/tt-*), against
#    the default, at T = 128, 256, 512, 1024, 2048, both shapes.
# 3. bench/bench_sweep.py at T = 1024, 8192 (graph), as the deadline allows.
# Bundles made here from this tree (see COMMAND.md).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
B=.device/bundles-small32
run() { local log=$1; shift; timeout 60 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
for t in 17 32 33; do run gpu-small32.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 $t & done
run gpu-small32.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 16 17 24 31 32 33 37 129
run gpu-small32.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 31 32 33
wait
grep -E "failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R"/gpu-small32.log | sort | uniq -c
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
kt() { timeout ${3:-60} python3 bench/kernel_times.py $1 $FMLP_RUNTIME_LIB --tokens $2 --calls 10 > "$R/kt-$(basename $1).txt" 2>&1
       echo "kernel times $1 rc=$? $(( $(date +%s) - s )) s"; }
kt .device/bundles-small32 16,17,24,32
kt .device/bundles-default 16,17,24,32,128,256,512,1024,2048 90
for b in .device/tt-*; do kt $b 128,256,512,1024,2048; done
grep -hE "^\.device|^D=" "$R"/kt-*.txt
export FMLP_CACHE_DIR=$PWD/.device/cache
left=$(( 560 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_sweep.py --out "$R" --tokens 1024,8192 --first 1024 \
  --impls fmlp,hf_eager,hf_compile --launches graph --deadline-s $(( left - 15 )) > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -E "^\||^#" "$R/sweep.md" 2>/dev/null | head -50
