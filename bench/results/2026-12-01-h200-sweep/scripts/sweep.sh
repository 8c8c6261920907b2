#!/usr/bin/env bash
# Issue 22's like-for-like sweep (bench/bench_sweep.py): fmlp's module
# against Hugging Face's LlamaMLP, eager and torch.compile, over the same
# weights; no-grad forward and training step (gradients set to None each
# step), each eager and CUDA-graph replayed; T in 1, 4, 16, 64, 256, 1024,
# 8192, 65536 at (1024, 2816) and (4096, 11008), bf16; beside the
# weight-read floor (copy bandwidth measured in the run) and the GEMM floor
# (cuBLAS, graph-replayed). T = 1, 16, 256, 8192 first; no cell starts
# within 60 s of the 530-s limit (sweep.json and sweep.md are rewritten
# after every cell, so a cut keeps what was measured). L2 not flushed.
# Writes $OUT/sweep.json, sweep.md, sweep.log; the plot afterwards, where
# matplotlib is: python3 bench/sweep_report.py DIR. Arguments go to
# bench_sweep.py (e.g. --tokens 4,64,1024,65536 for the cells a cut run left).
#   .device/fmlp-cache: python/tests/make-gpu-cache.sh at this commit
#   .device/include: nlohmann's headers (the runtime's build)
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for shape in d1024-h2816 d4096-h11008; do
  ls .device/fmlp-cache/fmlp*-$shape-bf16-silu-sm_90a.bundle/manifest.json > /dev/null ||
    { echo "no $shape bf16 bundle in .device/fmlp-cache: run python/tests/make-gpu-cache.sh"; exit 1; }
done
cmake -S runtime -B build-gpu-runtime -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu-runtime --target fmlp_runtime >> "$R/build.log" 2>&1 ||
  { tail "$R/build.log"; exit 1; }
echo "runtime built $(( $(date +%s) - s )) s"
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu-runtime/lib/libfmlp_runtime.so
left=$(( 530 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_sweep.py --out "$R" --deadline-s $(( left - 60 )) "$@" 2>&1 | tee "$R/sweep.log"
echo "sweep rc=${PIPESTATUS[0]} $(( $(date +%s) - s )) s"
