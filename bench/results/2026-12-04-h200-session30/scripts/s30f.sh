#!/usr/bin/env bash
# Session 30, call 6: gpu_lanes.py with the no-grad forward's T read from
# each bundle's manifest (each side of every kernel's range of T) and the
# input written by a memcpy (host to device, device to device) just before
# the call, on this tree's bundles; bench/device-session.sh's first use.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/sd16 || exit 1
timeout 200 python3 python/tests/gpu_lanes.py > "$R/gpu-lanes.log" 2>&1
echo "gpu_lanes rc=$? $(( $(date +%s) - s )) s"; grep -E "FAIL|passed|manifest" "$R/gpu-lanes.log" | tail -8
