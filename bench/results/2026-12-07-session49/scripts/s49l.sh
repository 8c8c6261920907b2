#!/usr/bin/env bash
# Session 49, call 15: the per-row-tile bundles after convert-fmlp-to-nvvm
# shares a kernel between two ranges of T apart (c49r rebuilt): block
# tests where the shared 192-wide kernels run, both ranges of each:
# (4096, 11008) K2 and K4 at T = 600 and 1100, K3 at 200 and 450;
# (1024, 2816) K3 at T = 1000 and 2000.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49r || exit 1
B=.device/c49r/fmlp0.3.0-d
timeout 60 build-gpu/fmlp-gpu-block-test ${B}1024-h2816-bf16-silu-sm_90a-savegu.bundle bf16 1024 2816 \
  1000 2000 > "$R/blocks-1024.log" 2>&1
echo "blocks 1024 rc=$? $(( $(date +%s) - s )) s"; tail -1 "$R/blocks-1024.log"
timeout 170 build-gpu/fmlp-gpu-block-test ${B}4096-h11008-bf16-silu-sm_90a-savegu.bundle bf16 4096 11008 \
  200 450 600 1100 > "$R/blocks-4096.log" 2>&1
echo "blocks 4096 rc=$? $(( $(date +%s) - s )) s"; tail -1 "$R/blocks-4096.log"
grep -c " pass$" "$R"/blocks-*.log; grep -c "failed as it must" "$R"/blocks-*.log
