#!/usr/bin/env bash
# Session 46, call 3 (carry .device/p46, .device/c46, .device/s46,
# .device/include): gpu_modules.py precisions again (call 2's lacked its
# ieee bundles: p46 holds make-gpu-cache.sh's (1024, 2816) f32 bundles at
# each precision, with and without biases), then s46c.sh (each fp32 kernel
# beside cuBLAS, Nsight Compute of three kernels).
cd "$(dirname "$0")/../../../.." || exit 1
R=${OUT:-/tmp}
( source bench/device-session.sh .device/p46 || exit 1
  timeout 100 python3 python/tests/gpu_modules.py precisions > "$R/modules-precisions.log" 2>&1
  echo "precisions rc=$? $(grep -c '^pass' "$R/modules-precisions.log") pass, $(tail -1 "$R/modules-precisions.log")"
  grep -E "^FAIL" "$R/modules-precisions.log" | head -5 )
bash "$(dirname "$0")/s46c.sh"
