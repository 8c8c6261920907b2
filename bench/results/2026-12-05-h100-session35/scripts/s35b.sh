#!/usr/bin/env bash
# Session 35, call 2 (issue 23): where tf32x3 on WGMMA spends its time.
# Diagnostic builds (timing only, their results are wrong; compiled from a
# patched WgmmaGemm.cpp, FMLP_DIAG_X3, not committed): nosplit (the
# producer's split of each stage left out), k16 and k32 (the step sums
# waited for and added every 2 or 4 k8 instead of every one), each against
# .device/x3/x3 (raw launches, T = 8192, compare_bundles.py); then the
# module step beside PyTorch strict and TF32 (bench_precision.py, cache-x3
# with save=agu and gu).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/x3/cache-x3 || exit 1
total=${S35_SECONDS:-590}
for v in nosplit k16 k32; do
  timeout 80 python3 bench/compare_bundles.py .device/x3/x3 .device/x3d/$v "$FMLP_RUNTIME_LIB" \
    --dtype f32 --tokens 8192 --rounds 3 --shapes 1024x2816,4096x11008 > "$R/diag-$v.txt" 2>&1
  echo "diag $v rc=$? $(( $(date +%s) - s )) s"; cat "$R/diag-$v.txt"
done
left=$(( total - ($(date +%s) - s) - 5 )); mkdir -p "$R/precision-x3"
timeout $left python3 bench/bench_precision.py --modes tf32x3,highest --tokens 8192 --rounds 3 \
  --out "$R/precision-x3" > "$R/precision-x3.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; tail -30 "$R/precision-x3.txt"
