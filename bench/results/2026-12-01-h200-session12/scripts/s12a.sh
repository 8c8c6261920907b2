#!/usr/bin/env bash
# Session 12, call 1: the hardened runtime (strict manifests, checked sizes,
# grid limits; main after the runtime-hardening merge) launching every GPU
# test bundle on the real driver, and the PyTorch guard with PEFT.
#   .device/bundles: test/GPU/make-bundles.sh at this commit
#   .device/fmlp-cache: python/tests/make-gpu-cache.sh at this commit
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 360 bash test/GPU/run.sh "$PWD/.device/bundles" quick "$PWD/.device/include" > "$R/gpu-test.log" 2>&1
echo "gpu-test rc=$? $(( $(date +%s) - s )) s"
grep -E "^(FAIL|PASS|pass)|worst|ERROR|error" "$R/gpu-test.log" | tail -40
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 200 python3 python/tests/gpu_peft_guard.py > "$R/peft-guard.log" 2>&1
echo "peft-guard rc=$? $(( $(date +%s) - s )) s"
tail -45 "$R/peft-guard.log"
