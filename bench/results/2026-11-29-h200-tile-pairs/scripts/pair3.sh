#!/usr/bin/env bash
# Device (lean, for the session's last device minutes): GPU test of $1 under
# short timeouts, then one same-run A/B against main's kernels per T.
cd "$(dirname "$0")/.."
B=$1 M=.device/bundles-fin R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null 2>&1 && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for a in "bf16 1024 2816 1 37 4096" "bf16 64 128 37" "bf16 1088 704 37" "bf16 4096 11008 37"; do
  read -r dt d h rest <<< "$a"
  timeout 30 $T $B/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test.log 2>&1; rc=$?; echo "rc=$rc ($a) $(( $(date +%s) - s )) s"; [[ $rc != 0 ]] && exit 1
done
grep -E "failure\(s\)" $R/gpu-test.log
for tok in 8192 32768; do
  timeout 60 python3 bench/compare_bundles.py $M $B $L --rounds 3 --tokens $tok > $R/compare-$tok.log 2>&1; echo "compare $tok $(( $(date +%s) - s )) s"; grep -E "k0_gate_up|k1_down_grad|H=" $R/compare-$tok.log
done
