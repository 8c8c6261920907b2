#!/usr/bin/env bash
# Device: K1's half-box hand-off ($1) against main's final kernels ($2):
# GPU test under short timeouts (new barrier protocol), racecheck, A/B.
cd "$(dirname "$0")/.."
B=$1 M=$2 R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for a in "bf16 1024 2816 1" "bf16 1024 2816 37 4096 2597" "bf16 64 128 1 37 4096" "bf16 1088 704 1 37 4096" "f16 1024 2816 37" "bf16 4096 11008 37"; do
  read -r dt d h rest <<< "$a"
  timeout 45 $T $B/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test.log 2>&1; rc=$?; echo "rc=$rc ($a) $(( $(date +%s) - s )) s"; [[ $rc == 124 ]] && exit 1
done
grep -E "failure|FAIL|DID NOT" $R/gpu-test.log
for tool in racecheck memcheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $T $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 > $R/$tool.log 2>&1; echo "$tool rc=$? $(tail -1 $R/$tool.log) $(( $(date +%s) - s )) s"
done
for tok in 8192 32768; do
  timeout 80 python3 bench/compare_bundles.py $M $B $L --rounds 5 --tokens $tok > $R/compare-$tok.log 2>&1; echo "compare $tok $(( $(date +%s) - s )) s"; grep -E "k0_gate_up|k1_down_grad|H=" $R/compare-$tok.log
done
