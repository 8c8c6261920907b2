#!/usr/bin/env bash
# Session 11, call 1: the float32 training check on three caches (f32acc.sh
# part 1), then pp-next.sh without the sets already measured (pingpong,
# persistent): GPU test and A/B against main10 for ppcm, ppcluster, defer.
cd "$(dirname "$0")/.."
R=${OUT:-/tmp} M=.device/bundles-main10 T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
export PYTHONPATH=$PWD/python FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so PYTHONUNBUFFERED=1
for c in fmlp-cache-old fmlp-cache fmlp-cache-f32acc; do
  FMLP_CACHE_DIR=$PWD/.device/$c timeout 60 python3 python/tests/gpu_modules.py train > $R/train-$c.log 2>&1; echo "$c rc=$? $(( $(date +%s) - s )) s"; grep -E "^train|^pass|^FAIL" $R/train-$c.log
done
declare -A failed
for set in ppcm ppcluster defer; do
  for a in "bf16 1024 2816 1 37 4096" "bf16 64 128 37" "bf16 1088 704 37" "f16 1024 2816 37" "bf16 4096 11008 37"; do
    read -r dt d h rest <<< "$a"
    timeout 60 $T .device/bundles-$set/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test-$set.log 2>&1; rc=$?; echo "$set rc=$rc ($a) $(( $(date +%s) - s )) s"; [[ $rc != 0 ]] && { failed[$set]=1; break; }
  done
  grep -E "failure\(s\)" $R/gpu-test-$set.log
done
for tok in 8192 32768; do
for set in ppcm ppcluster defer; do
  [[ -n ${failed[$set]:-} ]] && { echo "== $set: not timed (its GPU test failed)"; continue; }
    timeout 90 python3 bench/compare_bundles.py $M .device/bundles-$set $L --rounds 3 --tokens $tok > $R/compare-$set-$tok.log 2>&1
    echo "== $set $tok rc=$? $(( $(date +%s) - s )) s"; grep -E "H=|gate_up |down |down_grad|input_grad|step" $R/compare-$set-$tok.log
  done
done
