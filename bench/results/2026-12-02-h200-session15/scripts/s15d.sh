#!/usr/bin/env bash
# Session 15, call 4: the PyTorch side on main after the split-K fill fix
# (the fill runs exactly when its GEMM does). Cache remade here.
# 1. gpu_modules.py modules (gradients only where asked: kernel names).
# 2. gpu_modules.py graph-callables and graph-step, gpu_peft_guard.py:
#    not run since the host path was rewritten (session 14).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
for mode in modules graph-callables graph-step; do
  timeout $([ $mode = modules ] && echo 100 || echo 60) python3 python/tests/gpu_modules.py $mode > "$R/$mode.log" 2>&1
  echo "$mode rc=$? $(grep -c '^pass' "$R/$mode.log") pass $(grep -c '^FAIL' "$R/$mode.log") FAIL $(( $(date +%s) - s )) s"
  grep '^FAIL' "$R/$mode.log" | head -5; tail -1 "$R/$mode.log"
done
timeout 60 python3 python/tests/gpu_peft_guard.py > "$R/peft-guard.log" 2>&1
echo "peft guard rc=$? $(( $(date +%s) - s )) s"; tail -12 "$R/peft-guard.log"
