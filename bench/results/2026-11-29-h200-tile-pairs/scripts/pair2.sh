#!/usr/bin/env bash
# Device: experiment bundle sets ($@) against main's final kernels: GPU
# tests under short timeouts, racecheck, then same-run A/Bs.
cd "$(dirname "$0")/.."
M=.device/bundles-fin R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null 2>&1 && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for B in "$@"; do n=$(basename $B)
for a in "bf16 1024 2816 1 37 4096" "bf16 64 128 1 37 4096" "bf16 1088 704 1 37 4096" "f16 1024 2816 37" "bf16 4096 11008 37"; do
  read -r dt d h rest <<< "$a"
  timeout 45 $T $B/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test-$n.log 2>&1; rc=$?; echo "$n rc=$rc ($a) $(( $(date +%s) - s )) s"; [[ $rc == 124 ]] && exit 1
done
grep -E "failure|FAIL|DID NOT" $R/gpu-test-$n.log
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 3 $T $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 > $R/racecheck-$n.log 2>&1; echo "racecheck rc=$? $(tail -1 $R/racecheck-$n.log) $(( $(date +%s) - s )) s"
done
for B in "$@"; do n=$(basename $B)
for tok in 8192 32768; do
  timeout 80 python3 bench/compare_bundles.py $M $B $L --rounds 5 --tokens $tok > $R/compare-$n-$tok.log 2>&1; echo "compare $n $tok $(( $(date +%s) - s )) s"; grep -E "k0_gate_up|k1_down_grad|H=" $R/compare-$n-$tok.log
done; done
