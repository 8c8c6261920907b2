#!/usr/bin/env bash
# Session 21, call 1 (issue 22): the small_tokens kernels' weight stream.
# Bundle sets (fmlp-compile, bf16 at (1024, 2816) and (4096, 11008); f16 and
# the edge shapes where judged): st-base (main), st-i
# (--fmlp-small-tokens-interleave: warp w takes chunks w, w + 8, ...),
# st-p4 / st-p8 (--fmlp-small-tokens-prefetch=4/8: the weights 4/8 steps
# ahead brought into L2 by cp.async.bulk.prefetch), st-ip4 / st-ip8 (both).
# 1. fmlp-gpu-block-test of st-p4 and st-ip4 (both shapes, bf16 and f16, the
#    edge shapes) and of st-i, st-p8, st-ip8 at T <= 33.
# 2. bench/compare_bundles.py st-base against each, T = 1, 16, alternating
#    rounds.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 120 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
TS="1 2 3 8 15 16 17 31 32 33"
for set in st-p4 st-ip4; do
  run gpu-$set.log .device/$set/mlp-bf16-4096-11008.bundle bf16 4096 11008 1 16 17 &
  run gpu-$set.log .device/$set/mlp-bf16-1024-2816.bundle bf16 1024 2816 $TS 37
  run gpu-$set.log .device/$set/mlp-f16-1024-2816.bundle f16 1024 2816 1 3 16 17 32
  run gpu-$set.log .device/$set/mlp-bf16-64-128.bundle bf16 64 128 1 2 16 17
  run gpu-$set.log .device/$set/mlp-bf16-1088-704.bundle bf16 1088 704 1 3 16 17
  wait
  run gpu-$set.log .device/$set/mlp-f16-4096-11008.bundle f16 4096 11008 3 16
done
for set in st-i st-p8 st-ip8; do
  run gpu-$set.log .device/$set/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 3 16 17
done
grep -hE "failure\(s\)|FAIL|DID NOT" "$R"/gpu-*.log | sort | uniq -c
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
for set in st-ip4 st-p4 st-i st-ip8 st-p8; do
  left=$(( 570 - ($(date +%s) - s) )); [[ $left -lt 40 ]] && break
  timeout $left python3 bench/compare_bundles.py .device/st-base .device/$set $FMLP_RUNTIME_LIB \
    --tokens 1,16 --rounds 7 > "$R/compare-base-$set.txt" 2>&1
  echo "compare $set rc=$? $(( $(date +%s) - s )) s"
  grep -E "^D=|small_tokens|no-grad" "$R/compare-base-$set.txt"
done
