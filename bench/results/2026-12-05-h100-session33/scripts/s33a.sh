#!/usr/bin/env bash
# Session 33, call 2 (issue 23): where the transposing kernels' time goes.
# Raw launches (compare_bundles.py, T = 8192, 5 alternating rounds) of the
# transposing bundles (mn, the default now) against two diagnostic builds
# of the same kernels that compute wrong results and are for timing only
# (a temporary patch of WgmmaGemm.cpp, not committed: FMLP_DIAG_TRANSPOSE
# in bench/NOTES.md item 74): skip-transpose (the tiles land by TMA, the
# producer does not write them into the stage), skip-landing (nor are they
# loaded); then session 32's s32b.sh (three landing slots, each kernel
# beside cuBLAS TF32, the training step through the module beside HF).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/tf32mn/cache-mn || exit 1
for v in skip-transpose skip-landing; do
  timeout 100 python3 bench/compare_bundles.py .device/tf32mn/mn .device/tf32mn/diag-$v "$FMLP_RUNTIME_LIB" \
    --dtype f32 --tokens 8192 --rounds 5 > "$R/diag-$v.txt" 2>&1
  echo "diag $v rc=$? $(( $(date +%s) - s )) s"; grep -E "backward|step" "$R/diag-$v.txt"
done
bash bench/results/2026-12-05-h200-session32/scripts/s32b.sh
