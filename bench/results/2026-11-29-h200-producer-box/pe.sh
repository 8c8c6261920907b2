#!/usr/bin/env bash
# Device: the producer-epilogue branch's correctness (small and edge
# shapes, racecheck), then A/B main vs branch. Stops at the first hang.
cd "$(dirname "$0")/.."
R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
M=.device/bundles-main P=.device/bundles-pe
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for a in "bf16 64 128 1 37 4096" "bf16 1088 704 1 37 4096" "bf16 1024 2816 1 37 4096 2597" "f16 1024 2816 37" "bf16 4096 11008 37"; do read -r dt d h rest <<< "$a"
  timeout 60 $T $P/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test-pe.log 2>&1; rc=$?; echo "pe rc=$rc ($a) $(( $(date +%s) - s )) s"
  [[ $rc == 124 ]] && exit 1
done
grep -E "FAIL|NOT|rror" $R/gpu-test-pe.log | head -5
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 3 $T $P/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 > $R/racecheck-pe.log 2>&1; echo "racecheck rc=$? $(( $(date +%s) - s )) s"; tail -2 $R/racecheck-pe.log
for tok in 8192 32768; do
  timeout 150 python3 bench/compare_bundles.py $M $P $L --rounds 3 --tokens $tok > $R/compare-pe-$tok.log 2>&1; cat $R/compare-pe-$tok.log; echo "$(( $(date +%s) - s )) s"
done
