#!/usr/bin/env bash
# Device: the final kernels ($1) against the previous main ($2): GPU tests
# (with the edge shapes), Python checks, sanitizers, same-run A/B, table.
cd "$(dirname "$0")/.."
B=$1 M=$2 R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for a in "bf16 1024 2816 0 1 37 2597 4096" "f16 1024 2816 0 37 2597" "bf16 4096 11008 0 1 37" "bf16 64 128 1 37 4096" "bf16 1088 704 1 37 4096"; do
  read -r dt d h rest <<< "$a"
  timeout 90 $T $B/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test.log 2>&1; rc=$?; echo "rc=$rc ($a) $(( $(date +%s) - s )) s"; [[ $rc == 124 ]] && exit 1
done
grep -E "failure|FAIL|DID NOT" $R/gpu-test.log
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $T $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 > $R/$tool.log 2>&1; echo "$tool rc=$? $(tail -1 $R/$tool.log) $(( $(date +%s) - s )) s"
done
for tok in 8192 32768; do
  timeout 60 python3 bench/compare_bundles.py $M $B $L --rounds 3 --tokens $tok > $R/compare-$tok.log 2>&1; echo "compare $tok $(( $(date +%s) - s )) s"; grep -E "k1_down_grad|step|H=" $R/compare-$tok.log
done
mkdir -p $R/python; timeout 170 python/tests/run-on-gpu.sh .device/fmlp-cache $R/python "" checks; echo "checks rc=$? $(( $(date +%s) - s )) s"
timeout 150 python3 bench/bench_mlp.py $B $L --tokens 8192,32768 --out $R/bench.json > $R/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - s )) s"; cat $R/bench.log
