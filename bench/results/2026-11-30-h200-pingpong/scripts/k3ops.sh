#!/usr/bin/env bash
# Device (prepared for the next session): branch experiment/k3-epilogue-ops
# ($1 = .device/bundles-k3ops; only K3 differs from main's bundles-ftz): the
# GPU test under short timeouts, then a same-run A/B against main's kernels.
cd "$(dirname "$0")/.."
B=$1 M=.device/bundles-ftz R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null 2>&1 && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for a in "bf16 1024 2816 1 37 4096" "bf16 64 128 37" "bf16 1088 704 37" "f16 1024 2816 37" "f32 1024 2816 37"; do
  read -r dt d h rest <<< "$a"
  timeout 40 $T $B/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test.log 2>&1; rc=$?; echo "rc=$rc ($a) $(( $(date +%s) - s )) s"; [[ $rc != 0 ]] && exit 1
done
grep -E "failure\(s\)" $R/gpu-test.log
for tok in 8192 32768; do
  timeout 90 python3 bench/compare_bundles.py $M $B $L --rounds 3 --tokens $tok > $R/compare-$tok.log 2>&1; echo "compare $tok rc=$? $(( $(date +%s) - s )) s"; grep -E "H=|k1_down_grad|step" $R/compare-$tok.log
done
