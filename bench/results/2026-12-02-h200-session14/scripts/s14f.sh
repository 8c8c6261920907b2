#!/usr/bin/env bash
# Session 14, call 6: either side of the 64-wide variants' range: the
# default bf16 bundles (call 2's) at T = 255, 256, 257, both shapes
# (test/GPU/run.sh's quick set now has 256 and 257).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x}
  timeout 200 build-gpu/fmlp-gpu-block-test .device/bundles/mlp-bf16-$d-$h.bundle bf16 $d $h 255 256 257 > "$R/edge-$d.log" 2>&1
  echo "$shape rc=$? $(( $(date +%s) - s )) s"; tail -1 "$R/edge-$d.log"
done
