#!/usr/bin/env bash
# Compiles the bundles python/tests/gpu_modules.py uses into a cache
# directory (the GPU machine has no fmlp-compile). Usage: make-gpu-cache.sh DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export FMLP_CACHE_DIR=${1:?usage: make-gpu-cache.sh DIR}
export PATH="${FMLP_BUILD_DIR:-$root/build}/bin:$PATH" PYTHONPATH="$root/python"
python3 - <<'PY'
from fmlp.spec import BlockSpec, find_or_compile
for dtype in ("bf16", "f32"):
    for extra in ({}, {"bias": True}, {"activation": "gelu_tanh"},
                  {"gate_multiplier": 0.5, "down_multiplier": 0.25}):
        print(find_or_compile(BlockSpec(1024, 2816, dtype, **extra)), flush=True)
PY
