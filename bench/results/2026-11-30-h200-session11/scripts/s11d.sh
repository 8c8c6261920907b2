#!/usr/bin/env bash
# Session 11, call 4: the training check with PyTorch's deterministic
# kernels (python/tests/gpu_modules.py train, uncommitted edit), three runs.
cd "$(dirname "$0")/.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
export PYTHONPATH=$PWD/python FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/fmlp-cache11 PYTHONUNBUFFERED=1
for i in 1 2 3; do
  timeout 90 python3 python/tests/gpu_modules.py train > $R/train-det-$i.log 2>&1; echo "train $i rc=$? $(( $(date +%s) - s )) s"; grep -E "^train|^pass|^FAIL|Error" $R/train-det-$i.log
done
