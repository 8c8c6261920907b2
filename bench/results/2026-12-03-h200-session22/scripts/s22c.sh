#!/usr/bin/env bash
# Session 22, call 3: the PyTorch modules on this tree's runtime and on
# bundles compiled by this tree's compiler (python/tests/make-gpu-cache.sh
# .device/cache, made here): gpu_modules.py modules (every case, bf16 and
# f32, T = 1 .. 300), then regimes (gradient checkpointing,
# torch.compile(dynamic=True)).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 420 python3 python/tests/gpu_modules.py modules > "$R/modules.log" 2>&1
echo "modules rc=$? $(( $(date +%s) - s )) s"; grep -E "^FAIL|failed$" "$R/modules.log" | head -30; tail -2 "$R/modules.log"
left=$(( 580 - ($(date +%s) - s) ))
timeout $left python3 python/tests/gpu_modules.py regimes > "$R/regimes.log" 2>&1
echo "regimes rc=$? $(( $(date +%s) - s )) s"; tail -12 "$R/regimes.log"
