#!/usr/bin/env bash
# Session 17, call 6: python/tests/gpu_modules.py precisions: fp32 modules on
# tf32 and tf32x3 through patch_model, judged by their own bounds, the
# controls, the repr, and PyTorch's 'high' setting picking tf32.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
export FMLP_CACHE_DIR=$PWD/.device/fmlp-cache-f32
timeout 200 python3 python/tests/gpu_modules.py precisions > "$R/gpu-modules-precisions.log" 2>&1
echo "rc=$? $(( $(date +%s) - s )) s"; cat "$R/gpu-modules-precisions.log" | tail -40
python3 -c "import torch; print('fp32_precision', getattr(torch.backends.cuda.matmul, 'fp32_precision', None)); torch.set_float32_matmul_precision('high'); print('after high', getattr(torch.backends.cuda.matmul, 'fp32_precision', None))"
