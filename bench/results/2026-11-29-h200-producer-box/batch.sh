#!/usr/bin/env bash
# Device: K3's element batch of 16 and 4 pairs (b16, b4) against 8 (fin).
cd "$(dirname "$0")/.."
R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for B in b16 b4; do
  timeout 40 $T .device/bundles-$B/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 4096 >> $R/gpu-test-$B.log 2>&1; echo "$B rc=$? $(( $(date +%s) - s )) s"; tail -1 $R/gpu-test-$B.log
done
for tok in 8192 32768; do for B in b16 b4; do
  timeout 60 python3 bench/compare_bundles.py .device/bundles-fin .device/bundles-$B $L --rounds 3 --tokens $tok > $R/compare-$B-$tok.log 2>&1; grep -E "k1_down_grad|H=" $R/compare-$B-$tok.log; echo "$(( $(date +%s) - s )) s"
done; done
