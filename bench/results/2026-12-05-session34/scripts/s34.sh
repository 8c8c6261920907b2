#!/usr/bin/env bash
# Session 34, one call for both (the device is scarce): s34a.sh (the
# copying kernels judged, sanitizers, raw launches against the landing
# kernels), then s34b.sh's timings in the time left (each part skipped or
# cut when less than it needs remains of the call's 600 s).
cd "$(dirname "$0")/../../../.."
here=bench/results/2026-12-05-session34/scripts
t0=$(date +%s) total=${S34_SECONDS:-590}
bash $here/s34a.sh
left=$(( total - ($(date +%s) - t0) ))
echo "s34a done after $(( $(date +%s) - t0 )) s; $left s left"
if (( left > 120 )); then
  source bench/device-session.sh .device/cpa/cache-cpa || exit 1
  timeout $(( left * 45 / 100 )) python3 bench/bench_strategies.py "$FMLP_RUNTIME_LIB" wgmma_cpa=.device/cpa/cpa \
    wgmma_mn=.device/tf32mn/mn --dtype f32 --torch-precision high --tokens 8192 --rounds 3 \
    --out "$R" > "$R/strategies.txt" 2>&1
  echo "strategies rc=$? $(( $(date +%s) - t0 )) s"; tail -25 "$R/strategies.txt"
  left=$(( total - ($(date +%s) - t0) ))
  (( left > 60 )) && timeout $left python3 bench/bench_precision.py --modes tf32 --tokens 8192 --rounds 3 \
    --out "$R/precision-cpa" > "$R/precision-cpa.txt" 2>&1
  echo "precision cpa rc=$? $(( $(date +%s) - t0 )) s"; tail -8 "$R/precision-cpa.txt"
fi
