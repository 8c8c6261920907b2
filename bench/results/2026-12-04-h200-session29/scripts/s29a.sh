#!/usr/bin/env bash
# Session 29, call 1: programmatic dependent launch for every kernel
# (--fmlp-programmatic-launch, .device/pdl) now that a backward runs dX on
# a side stream. Correctness: gpu_lanes.py on the PDL bundles (side stream
# and one stream equal bit for bit, eager and graph-replayed). Timing:
# bench_sweep.py, fmlp (.device/cache, main's compiler) against fmlp_b
# (.device/pdl) and torch.compile, same run, graph-replayed, module
# against module. Then Nsight Compute on the decode kernels.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache \
  FMLP_B_CACHE_DIR=$PWD/.device/pdl
echo "built $(( $(date +%s) - s )) s"
FMLP_CACHE_DIR=$PWD/.device/pdl timeout 120 python3 python/tests/gpu_lanes.py --bf16-only > "$R/gpu-lanes-pdl.log" 2>&1
echo "gpu_lanes (pdl) rc=$? $(( $(date +%s) - s )) s"; grep -E "FAIL|passed" "$R/gpu-lanes-pdl.log" | tail -3
timeout 330 python3 bench/bench_sweep.py --out "$R/sweep" --modes train,nograd --launches graph \
  --impls fmlp,fmlp_b,hf_compile --tokens 64,256,1024,2048 --first 1024,2048 \
  --rounds 5 --deadline-s 310 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; cat "$R/sweep/sweep.md" 2>/dev/null | head -60
