#!/usr/bin/env bash
# Session 19, call 4: with A's boxes past T no longer loaded, do K1 and K3
# gain from 64-wide tiles at T <= 256 now (session 14 measured them mixed
# and 1.02-1.43x slower while every tile zero-filled A's rows past T)?
#   .device/bundles-final   this tree (call 3's)
#   .device/bundles-narrow  the same with --fmlp-narrow-tile-ops=gate_up,
#                           down,down_grad,input_grad (bf16, two shapes)
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
N=.device/bundles-narrow
run() { local log=$1; shift; timeout 60 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
run gpu-narrow.log $N/mlp-bf16-4096-11008.bundle bf16 4096 11008 200 &
run gpu-narrow.log $N/mlp-bf16-4096-11008.bundle bf16 4096 11008 33 &
run gpu-narrow.log $N/mlp-bf16-1024-2816.bundle bf16 1024 2816 17 33 65 128 129 200 256 257
wait
grep -E "failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R"/gpu-narrow.log | sort | uniq -c
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
for side in final narrow; do
  timeout 50 python3 bench/kernel_times.py .device/bundles-$side $FMLP_RUNTIME_LIB \
    --tokens 32,64,200,256 --calls 10 > "$R/kernel-times-$side.txt" 2>&1
  echo "kernel times $side rc=$? $(( $(date +%s) - s )) s"
done
grep -E "^D=" "$R"/kernel-times-*.txt
timeout 100 python3 bench/compare_bundles.py .device/bundles-final $N $FMLP_RUNTIME_LIB \
  --tokens 64,200,256 --entries-only --rounds 5 > "$R/compare-eager.txt" 2>&1
echo "compare rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare-eager.txt"
