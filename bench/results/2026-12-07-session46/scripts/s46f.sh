#!/usr/bin/env bash
# Session 46, call 4 (carry .device/p46, .device/c46, .device/include):
# after call 3's two findings, fixed here: gpu_modules.py precisions with
# its tf32-by-tf32x3 control at (64, 128) (p46 now holds that tf32 bundle
# too), then s46c.sh again (bench_strategies.py and compare_bundles.py now
# size `saved` by the bundle's memory policy; they assumed save=agu's 3 H).
cd "$(dirname "$0")/../../../.." || exit 1
R=${OUT:-/tmp}
( source bench/device-session.sh .device/p46 || exit 1
  nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
  timeout 100 python3 python/tests/gpu_modules.py precisions > "$R/modules-precisions.log" 2>&1
  echo "precisions rc=$? $(grep -c '^pass' "$R/modules-precisions.log") pass, $(tail -1 "$R/modules-precisions.log")"
  grep -E "^FAIL|^note|control \(tf32 by|D=64 H=128" "$R/modules-precisions.log" | head -8 )
bash "$(dirname "$0")/s46c.sh"
