#!/usr/bin/env bash
# Session 29, call 7: small_tokens K1 with paired rows (--fmlp-small-tokens-
# paired: tiles of 8 columns, gate's and up's rows in one MMA, twice the
# blocks). .device/pa: this tree's default; .device/pb: paired. Block tests
# of pb (error bounds, poisoned outputs, controls), raw launches A/B at T =
# 1 and 16 (9 alternating rounds), memcheck.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test; B=.device/pb; L=$R/blocks.log
run() { timeout "$1" "$test" "${@:2}" >> "$L" 2>&1 || echo "FAILED: ${*:2}" | tee -a "$L"; }
run 30 $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 3 16 17
run 20 $B/mlp-f16-1024-2816.bundle f16 1024 2816 1 16
for t in 1 16 17 32; do run 20 $B/mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 $t; done
echo "blocks 1024 $(( $(date +%s) - s )) s: pass $(grep -c ' pass$' $L), controls $(grep -c 'failed as it must' $L), failures $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' $L)"
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_STRICT=1
timeout 70 python3 bench/compare_bundles.py .device/pa .device/pb build-gpu/lib/libfmlp_runtime.so --tokens 1,16 \
  --entries-only --rounds 9 2>&1 | grep -v -i warn | grep -E "D=|no-grad" > "$R/compare.txt"; cat "$R/compare.txt"
echo "compare $(( $(date +%s) - s )) s"
run 75 $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 1 16
echo "blocks all $(( $(date +%s) - s )) s: pass $(grep -c ' pass$' $L), controls $(grep -c 'failed as it must' $L), failures $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' $L)"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" $L | head -5
timeout 40 compute-sanitizer --tool memcheck --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 3 > "$R/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $R/memcheck.log) $(( $(date +%s) - s )) s"
