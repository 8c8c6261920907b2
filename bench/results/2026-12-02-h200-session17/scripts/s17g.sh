#!/usr/bin/env bash
# Session 17, call 7: test/GPU/run.sh's precision set as committed
# (SETS=precisions DTYPES=f32: tf32 and tf32x3 bundles of make-bundles.sh,
# each judged by its own bound), and bench/tensor_core_sum.cu again after
# its accumulator layout moved into one function.
#   DTYPES=f32 test/GPU/make-bundles.sh DIR; the -tf32*.bundle ones copied
#   to .device/bundles-prec
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
SETS=precisions DTYPES=f32 test/GPU/run.sh .device/bundles-prec quick .device/include > "$R/run-precisions.log" 2>&1
echo "run.sh rc=$? $(( $(date +%s) - s )) s"
grep -E "^==|failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R/run-precisions.log"
nvcc -arch=sm_90a -O2 -o build-gpu/tensor_core_sum bench/tensor_core_sum.cu &&
  build-gpu/tensor_core_sum > "$R/tensor-core-sum.txt" 2>&1; cat "$R/tensor-core-sum.txt"
