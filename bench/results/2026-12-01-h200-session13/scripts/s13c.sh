#!/usr/bin/env bash
# Session 13, call 3: the small_tokens kernels' two knobs, A/B on the H200
# (bench/compare_bundles.py, raw launches, alternating A and B). A: the
# defaults (4 weight-row pairs in flight per warp, 128 registers); B: 8 in
# flight, 168 registers (one block per multiprocessor); C: 2 in flight, 80
# registers (three blocks). Bundles (bf16, both shapes) made here with
#   fmlp-compile .device/bundles/mlp-bf16-D-H.mlir --chip=sm_90a
#     [--fmlp-small-tokens-pieces=N --fmlp-small-tokens-max-registers=R]
# into .device/ab-{A,B,C}.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S runtime -B build-gpu-runtime -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu-runtime --target fmlp_runtime >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
lib=$PWD/build-gpu-runtime/lib/libfmlp_runtime.so
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
for t in 1 16; do
  for v in B C; do
    timeout 120 python3 bench/compare_bundles.py .device/ab-A .device/ab-$v $lib --tokens $t --rounds 7 2>&1 | tee "$R/ab-A-$v-T$t.log" | grep -E "D=|small_tokens|step"
    echo "A/$v T=$t done $(( $(date +%s) - s )) s"
  done
done
