#!/usr/bin/env bash
# Session 37, call 2 (issue 23; prepared, not run): what rounding costs.
# 1. raw launches, tf32, with the flag against without it (compare_bundles
#    .py; T = 8192 for training, T = 1 and 16 for the no-grad forward, where
#    the forward's rounded copies of Wg, Wu, Wd are read and written once
#    per call beside GEMMs that read the weights once).
# 2. the training step through the module beside HF at 'high' (bench_
#    precision.py, tf32, T = 8192): the bar is no slower than PyTorch TF32.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/round/cache || exit 1
total=${S37_SECONDS:-560}
nvidia-smi --query-gpu=name --format=csv > "$R/gpu.txt"
timeout 200 python3 bench/compare_bundles.py .device/round/base .device/round/round "$FMLP_RUNTIME_LIB" \
  --dtype f32 --tokens 8192 --rounds 3 --shapes 1024x2816,4096x11008 > "$R/compare-8192.txt" 2>&1
echo "compare 8192 rc=$? $(( $(date +%s) - s )) s"; grep -iE "step|no-grad|k[0-9]" "$R/compare-8192.txt" | tail -20
timeout 100 python3 bench/compare_bundles.py .device/round/base .device/round/round "$FMLP_RUNTIME_LIB" \
  --dtype f32 --tokens 1,16 --rounds 5 --shapes 4096x11008 --entries-only > "$R/compare-small.txt" 2>&1
echo "compare small rc=$? $(( $(date +%s) - s )) s"; tail -8 "$R/compare-small.txt"
left=$(( total - ($(date +%s) - s) - 5 ))
if (( left > 60 )); then
  timeout $left python3 bench/bench_precision.py --modes tf32 --tokens 8192 --rounds 3 \
    --out "$R/precision" > "$R/precision.txt" 2>&1
  echo "precision rc=$? $(( $(date +%s) - s )) s"; tail -5 "$R/precision.txt"
fi
