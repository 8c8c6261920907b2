#!/usr/bin/env bash
# Session 40 (issue 23): does the backward's transposing in the stages pay
# at few tokens? A = the default tf32 bundle (K3 and K4 read K-major copies
# of the weights, transposed every call: 3 D H floats, 0.14 ms a weight at
# (4096, 11008) on the H200), B = --fmlp-k-major-weights=false (K3 and K4
# read the weights MN-major and transpose them in their landing slots, no
# copy), the training step by raw launches, T = 1 .. 4096, both shapes.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/cache40 || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
lib=build-gpu/lib/libfmlp_runtime.so
timeout 300 python3 bench/compare_bundles.py .device/km/copies .device/km/landing $lib --dtype f32 \
  --entries-only --tokens 1,16,128,256,512,1024,2048,4096 --rounds 3 > "$R/copies-vs-landing.log" 2>&1
echo "copies vs landing rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|step" "$R/copies-vs-landing.log"
