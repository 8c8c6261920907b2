#!/usr/bin/env bash
# Session 49, call 2: call 1's tf32x3 step at (4096, 11008) again, with
# the span from the first kernel's start to the last's end inside the
# profile (gaps between kernels, measured where the kernels' times are),
# and the clock sampled with the phases stamped (power capping).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49 || exit 1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active \
  --format=csv -lms 100 > "$R/clocks.csv" 2>&1 & smi=$!
for impl in fmlp hf_eager fmlp_serial; do
  echo "$(date +%T.%N) start $impl" >> "$R/phases.txt"
  timeout 100 python3 bench/kernel_times.py "" build-gpu/lib/libfmlp_runtime.so --dtype f32 \
    --modules $impl --precision tf32x3 --matmul-precision highest \
    --tokens 8192 --shapes 4096x11008 --calls 10 >> "$R/kernel-times-tf32x3.txt" 2>&1
  echo "$(date +%T.%N) end $impl rc=$?" >> "$R/phases.txt"
done
kill $smi
grep "us in kernels" "$R/kernel-times-tf32x3.txt"; cat "$R/phases.txt"
