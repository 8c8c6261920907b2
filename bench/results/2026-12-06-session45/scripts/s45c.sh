#!/usr/bin/env bash
# Session 45 (issue 23; carry .device/s45c, .device/include; make-s45c.sh):
# what rounding tf32's operands costs each kernel at T = 8192 (raw
# launches, rounded against truncated): the bound on what K1 would gain
# from a rounded copy of x read by a shared-memory-sourced WGMMA.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/none || exit 1
V=.device/s45c lib=build-gpu/lib/libfmlp_runtime.so
timeout 150 python3 bench/compare_bundles.py $V/round $V/trunc $lib --dtype f32 \
  --tokens 8192 --rounds 3 --shapes 4096x11008 > "$R/round-vs-trunc.log" 2>&1
echo "round vs trunc rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/round-vs-trunc.log"
