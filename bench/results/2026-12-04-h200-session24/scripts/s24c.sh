#!/usr/bin/env bash
# Session 24, call 3 (issue 22): the no-grad forward's small_tokens kernels
# (K1, K2 at T <= 16) launched programmatically (griddepcontrol; now the
# default, --fmlp-programmatic-small-tokens). Bundles made here by
# fmlp-compile --chip=sm_90a from this tree: .device/pdl-on (the default)
# and .device/pdl-off (--fmlp-programmatic-small-tokens=false, main's
# launches), bf16 at (1024, 2816) and (4096, 11008); pdl-on also f16 (1024,
# 2816) and the edge shapes (1088, 704), (64, 128).
# 1. fmlp-gpu-block-test of pdl-on (eager and graph-replayed, outputs
#    poisoned) at T around the small_tokens range; memcheck once.
# 2. bench/compare_bundles.py pdl-off against pdl-on, entries only, T = 1,
#    16, 32, 64, alternating rounds.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 150 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
P=.device/pdl-on
run gpu-4096.log $P/mlp-bf16-4096-11008.bundle bf16 4096 11008 1 16 17 &
run gpu-1024.log $P/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 2 3 15 16 17 32 33 37 &
run gpu-f16.log $P/mlp-f16-1024-2816.bundle f16 1024 2816 1 3 16 17 &
run gpu-edge.log $P/mlp-bf16-1088-704.bundle bf16 1088 704 1 3 16 17 &
run gpu-small.log $P/mlp-bf16-64-128.bundle bf16 64 128 1 2 16 17 &
wait
grep -hE "failure\(s\)|FAIL|DID NOT" "$R"/gpu-*.log | sort | uniq -c
timeout 120 compute-sanitizer --tool memcheck $test $P/mlp-bf16-64-128.bundle bf16 64 128 1 16 > "$R/memcheck.txt" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/memcheck.txt")"
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
left=$(( 580 - ($(date +%s) - s) ))
timeout $left python3 bench/compare_bundles.py .device/pdl-off .device/pdl-on $FMLP_RUNTIME_LIB \
  --tokens 1,16,32,64 --rounds 9 --entries-only > "$R/compare.txt" 2>&1
echo "compare rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare.txt" | tail -30
