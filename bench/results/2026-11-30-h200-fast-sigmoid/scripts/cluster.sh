#!/usr/bin/env bash
# Device: GPU test of the cluster-pair bundles ($1) under short timeouts (a new
# cross-block barrier protocol can hang), a same-run A/B against main's
# kernels per T, then the four correctness cells not yet run on main's final
# kernels (unless $2 is 'ab').
cd "$(dirname "$0")/.."
B=$1 M=.device/bundles-fin R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null 2>&1 && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
ok=1
for a in "bf16 64 128 37" "bf16 1024 2816 1 37 4096" "bf16 1088 704 37"; do
  read -r dt d h rest <<< "$a"
  timeout 40 $T $B/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test-cluster.log 2>&1; rc=$?; echo "rc=$rc ($a) $(( $(date +%s) - s )) s"; [[ $rc != 0 ]] && { ok=0; break; }
done
grep -E "failure\(s\)" $R/gpu-test-cluster.log; tail -5 $R/gpu-test-cluster.log
if [[ $ok == 1 ]]; then
  for tok in 8192 32768; do
    timeout 90 python3 bench/compare_bundles.py $M $B $L --rounds 3 --tokens $tok > $R/compare-$tok.log 2>&1; echo "compare $tok rc=$? $(( $(date +%s) - s )) s"; grep -vE "^\s*$" $R/compare-$tok.log | tail -30
  done
fi
[[ $2 == ab ]] && exit 0
timeout 60 $T $M/mlp-f16-1024-2816.bundle f16 1024 2816 1 4096 >> $R/gpu-test-missing.log 2>&1; echo "rc=$? f16 1024 $(( $(date +%s) - s )) s"
timeout 120 $T $M/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096 >> $R/gpu-test-missing.log 2>&1; echo "rc=$? bf16 4096 $(( $(date +%s) - s )) s"
grep -E "failure\(s\)" $R/gpu-test-missing.log
