#!/usr/bin/env bash
# Device: the producer warp converged (conv) against fin: correctness, A/B.
cd "$(dirname "$0")/.."
R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for a in "bf16 1024 2816 1 37 4096" "bf16 64 128 1 37" "bf16 1088 704 37"; do read -r dt d h rest <<< "$a"
  timeout 30 $T .device/bundles-conv/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test-conv.log 2>&1; rc=$?; echo "conv rc=$rc ($a) $(( $(date +%s) - s )) s"; [[ $rc == 124 ]] && exit 1
done
grep -E "failure" $R/gpu-test-conv.log
for tok in 8192 32768; do
  timeout 40 python3 bench/compare_bundles.py .device/bundles-fin .device/bundles-conv $L --rounds 3 --tokens $tok > $R/compare-conv-$tok.log 2>&1; cat $R/compare-conv-$tok.log; echo "$(( $(date +%s) - s )) s"
done
