#!/usr/bin/env bash
# Session 30, call 3: K1's small_tokens kernel on 32 columns a block (each
# token piece serving twice the weight rows: half the tokens' reads from
# L2), against 16 (both with the weights' loads .L1::no_allocate.L2::128B,
# the new default): compare_bundles (raw launches), block tests of both,
# bench_sweep's no-grad forward graph-replayed (fmlp = 16 columns, fmlp_b =
# 32) beside torch.compile.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/sd16 \
  FMLP_B_CACHE_DIR=$PWD/.device/sd32
timeout 100 python3 bench/compare_bundles.py .device/ab/d16 .device/ab/d32 build-gpu/lib/libfmlp_runtime.so \
  --tokens 1,4,16 --entries-only --rounds 9 > "$R/ab-d32.txt" 2>&1
echo "ab d32 rc=$? $(( $(date +%s) - s )) s"; grep -E "no-grad" "$R/ab-d32.txt" | tr -s ' ' | tr '\n' ';'; echo
for v in d16 d32; do
  timeout 60 build-gpu/fmlp-gpu-block-test .device/ab/$v/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 2 3 16 17 > "$R/blocks-$v-1024.log" 2>&1
  echo "blocks $v 1024 rc=$? pass: $(grep -c ' pass$' $R/blocks-$v-1024.log), controls failed as they must: $(grep -c 'failed as it must' $R/blocks-$v-1024.log) $(( $(date +%s) - s )) s"
  grep -E "FAIL|NOT REFUSED|CONTROL PASSED" "$R/blocks-$v-1024.log" | head -5
  timeout 100 build-gpu/fmlp-gpu-block-test .device/ab/$v/mlp-bf16-4096-11008.bundle bf16 4096 11008 1 16 > "$R/blocks-$v-4096.log" 2>&1
  echo "blocks $v 4096 rc=$? pass: $(grep -c ' pass$' $R/blocks-$v-4096.log), controls failed as they must: $(grep -c 'failed as it must' $R/blocks-$v-4096.log) $(( $(date +%s) - s )) s"
  grep -E "FAIL|NOT REFUSED|CONTROL PASSED" "$R/blocks-$v-4096.log" | head -5
done
timeout 150 python3 bench/bench_sweep.py --out "$R/sweep" --modes nograd --launches graph \
  --impls fmlp,fmlp_b,hf_compile --tokens 1,4,16 --first 1 \
  --rounds 5 --deadline-s 130 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -A8 "^## no-grad" "$R/sweep/sweep.md"
