#!/usr/bin/env bash
# Session 28: a backward's dX GEMM on a side stream (runtime/Lanes.h).
# Correctness: gpu_lanes.py (bits of the side stream == serial launches,
# eager and graph-replayed); timing: bench_sweep.py's training step, fmlp
# with the side stream against fmlp on one stream and torch.compile, same
# run, graph-replayed and eager, both shapes. .device/cache's bundles
# (this tree's compiler: backward manifests with "lane": 1 on dX's GEMM).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache
echo "built $(( $(date +%s) - s )) s"
timeout 150 python3 python/tests/gpu_lanes.py > "$R/gpu-lanes.log" 2>&1
echo "gpu_lanes rc=$? $(( $(date +%s) - s )) s"; grep -E "FAIL|passed" "$R/gpu-lanes.log"
timeout 380 python3 bench/bench_sweep.py --out "$R/sweep" --modes train \
  --impls fmlp,fmlp_serial,hf_compile --tokens 256,1024,2048,8192 --first 1024,2048 \
  --rounds 5 --deadline-s 360 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -E "train|D=" "$R/sweep.log" | head -40
