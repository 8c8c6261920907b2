#!/usr/bin/env bash
# Session 49, call 4: the no-grad forward at few tokens kernel by kernel
# (issue 22's weight-floor bar at T = 1 and 16, D = 4096): where T = 16's
# extra time over T = 1 goes.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49 || exit 1
timeout 120 python3 bench/kernel_times.py "" build-gpu/lib/libfmlp_runtime.so --dtype bf16 \
  --modules fmlp --tokens 1,4,8,9,16 --shapes 4096x11008,1024x2816 --calls 50 \
  > "$R/kernel-times-nograd.txt" 2>&1
echo "rc=$? $(( $(date +%s) - s )) s"
grep -A3 "no-grad forward" "$R/kernel-times-nograd.txt"
