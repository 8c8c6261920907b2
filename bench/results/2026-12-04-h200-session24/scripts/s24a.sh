#!/usr/bin/env bash
# Session 24, call 1: the PyTorch modules on this tree (the fallback for a
# block without kernels, FMLP_STRICT=1 as run-on-gpu.sh sets it):
# gpu_modules.py regimes (now with torch.compile(mode="reduce-overhead")
# and torch.export), fallbacks, then modules. Bundles: the (1024, 2816)
# bf16 and f32 specs of make-gpu-cache.sh (plain, bias, gelu_tanh,
# multipliers), compiled here into .device/cache.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_STRICT=1
timeout 240 python3 python/tests/gpu_modules.py regimes > "$R/regimes.log" 2>&1
echo "regimes rc=$? $(( $(date +%s) - s )) s"; cat "$R/regimes.log" | cut -c1-300
timeout 60 python3 python/tests/gpu_modules.py fallbacks > "$R/fallbacks.log" 2>&1
echo "fallbacks rc=$? $(( $(date +%s) - s )) s"; grep -E "^FAIL" "$R/fallbacks.log" | head; tail -1 "$R/fallbacks.log"
left=$(( 570 - ($(date +%s) - s) ))
timeout $left python3 python/tests/gpu_modules.py modules > "$R/modules.log" 2>&1
echo "modules rc=$? $(( $(date +%s) - s )) s"; grep -E "^FAIL" "$R/modules.log" | head -20; tail -1 "$R/modules.log"
