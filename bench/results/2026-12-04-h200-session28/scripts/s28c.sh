#!/usr/bin/env bash
# Session 28: the split-K fills on lane 1 too (.device/cache-fills: this
# tree's compiler, every split-K GEMM's counter fill on the side stream):
# bench_sweep no-grad and training at T = 32..1024, fmlp (two streams)
# against fmlp on one stream and torch.compile, same run; gpu_lanes.py on
# these bundles.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache-fills
timeout 100 python3 python/tests/gpu_lanes.py --bf16-only > "$R/gpu-lanes-fills.log" 2>&1
echo "gpu_lanes rc=$? $(( $(date +%s) - s )) s"; tail -1 "$R/gpu-lanes-fills.log"
timeout 330 python3 bench/bench_sweep.py --out "$R/sweep-fills" --modes nograd,train \
  --impls fmlp,fmlp_serial,hf_compile --tokens 32,64,256,1024 --first 64,256 \
  --rounds 5 --deadline-s 310 > "$R/sweep-fills.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -E "nograd|train|D=" "$R/sweep-fills.log" | head -60
