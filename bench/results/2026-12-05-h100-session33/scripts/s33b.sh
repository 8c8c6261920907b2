#!/usr/bin/env bash
# Session 33, call 3 (issue 23): s32b.sh's last part, which found no
# save=gu bundle in call 2 (the modules' default policy; make-tf32mn.sh
# now compiles it): the training step through the module
# (bench_precision.py: fmlp at precision tf32 beside Hugging Face's
# LlamaMLP at PyTorch's 'high', gradients set to None each step), with the
# mma_sync backward (cache-mma) and the transposing one (cache-mn).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/tf32mn/cache-mn || exit 1
for c in mma mn; do
  FMLP_CACHE_DIR=$PWD/.device/tf32mn/cache-$c timeout 250 python3 bench/bench_precision.py \
    --modes tf32 --tokens 8192 --rounds 3 --out "$R/precision-$c" > "$R/precision-$c.txt" 2>&1
  echo "precision $c rc=$? $(( $(date +%s) - s )) s"; tail -8 "$R/precision-$c.txt"
done
