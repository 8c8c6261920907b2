#!/usr/bin/env bash
# Session 28: the staged small_tokens experiment (--fmlp-small-tokens-window
# = W chunks, --fmlp-small-tokens-window-stages = S): block tests of the
# W4S3 bundles at T around the small_tokens ranges, memcheck, then raw
# launches A/B against the default (.device/pa) at T = 1, 16.
cd "$(dirname "$0")/../../../.." 2>/dev/null || cd "$PWD"
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
for v in w4s3 w2s4; do
  timeout 60 $test .device/$v/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 3 16 17 31 32 33 > "$R/blocks-$v.log" 2>&1; echo "$v 1024 rc=$?"
  timeout 120 $test .device/$v/mlp-bf16-4096-11008.bundle bf16 4096 11008 1 5 16 32 >> "$R/blocks-$v.log" 2>&1; echo "$v 4096 rc=$?"
  echo "$v pass: $(grep -c ' pass$' $R/blocks-$v.log), controls failed as they must: $(grep -c 'failed as it must' $R/blocks-$v.log)"
  grep -E "FAIL|NOT REFUSED|CONTROL PASSED" "$R/blocks-$v.log" | head -5
done
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 3 $test .device/w4s3/mlp-bf16-1024-2816.bundle bf16 1024 2816 3 17 > "$R/memcheck-w4s3.log" 2>&1
echo "memcheck rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY" "$R/memcheck-w4s3.log" | tail -1
export PYTHONPATH=$PWD/python:$PWD/bench FMLP_STRICT=1
L=$PWD/build-gpu/lib/libfmlp_runtime.so
for v in w4s3 w2s4 w4s2; do
  python3 bench/compare_bundles.py .device/pa .device/$v $L --tokens 1,16,32 --entries-only --rounds 9 2>&1 | grep -v -i warn | grep -E "D=|no-grad" > "$R/compare-$v.txt"; echo "== $v"; cat "$R/compare-$v.txt"
done
echo "done $(( $(date +%s) - s )) s"
