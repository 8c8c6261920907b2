#!/usr/bin/env bash
# Session 29, call 5: the PyTorch side on this tree's bundles (.device/cache
# recompiled: every no-grad launch programmatic): gpu_lora.py (PEFT LoRA
# layers through fmlp, no-grad and training), gpu_modules.py's modules and
# precisions suites.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache
timeout 200 python3 python/tests/gpu_lora.py > "$R/gpu-lora.log" 2>&1
echo "gpu_lora rc=$? $(tail -1 $R/gpu-lora.log) $(( $(date +%s) - s )) s"; grep FAIL "$R/gpu-lora.log" | head -5
for m in modules precisions; do
  timeout 100 python3 python/tests/gpu_modules.py $m > "$R/gpu-modules-$m.log" 2>&1
  echo "gpu_modules $m rc=$? $(tail -1 $R/gpu-modules-$m.log) $(( $(date +%s) - s )) s"
done
