#!/usr/bin/env bash
# Session 47, call 4 (carry .device/g46s, .device/include): call 2's
# compile failures came from modules._in_place's storage_offset(), which
# dynamo (torch 2.11) cannot trace, not from ops.py's Autograd kernel;
# this tree checks only the layout while compiling and has that kernel
# back. gpu_modules.py modules, regimes (torch.compile fullgraph, dynamic,
# reduce-overhead, checkpointing), graph-step.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/g46s || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
for mode in modules regimes graph-step; do
  timeout 150 python3 python/tests/gpu_modules.py $mode > "$R/modules-$mode.log" 2>&1
  echo "$mode rc=$? $(grep -c '^pass' "$R/modules-$mode.log") pass, $(tail -1 "$R/modules-$mode.log") $(( $(date +%s) - s )) s"
  grep -E "^FAIL" "$R/modules-$mode.log" | head -5
done
