#!/usr/bin/env bash
# Session 29, call 4: the GPU block tests (error bounds, poisoned outputs,
# controls) of this tree's bundles (test/GPU/make-bundles.sh ->
# .device/gpu-bundles: every no-grad forward launched programmatically),
# run.sh's sets at the shapes of D <= 1088 (the (4096, 11008) bundles were
# judged in calls 2 and 3): every dtype, the memory-policy variants, the
# fp32 precisions, LoRA adapters, then memcheck and racecheck.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
source test/GPU/shapes.sh
test=build-gpu/fmlp-gpu-block-test; B=.device/gpu-bundles; L=$R/blocks.log
run() { timeout 120 "$test" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
for dtype in bf16 f16 f32; do
  tokens="0 1 2 3 16 17 32 33 37 64 65 128 129 256 257 2597"; [[ $dtype == f32 ]] && tokens="$tokens 83 84"
  run $B/mlp-$dtype-1024-2816.bundle $dtype 1024 2816 $tokens
done
echo "defaults $(( $(date +%s) - s )) s"
for variant in $gpu_test_variants; do
  IFS=: read -r dtype shape save chunk <<<"$variant"; d=${shape%x*} h=${shape#*x}
  tokens=$gpu_test_variant_tokens; [[ $chunk != 0 ]] && tokens=$gpu_test_chunk_tokens
  run $B/mlp-$dtype-$d-$h-$save-c$chunk.bundle $dtype $d $h $tokens
done
echo "variants $(( $(date +%s) - s )) s"
for v in bf16:32:16:agu:0 bf16:16:0:x:1024 f16:16:16:gu:0 f32:16:16:agu:0; do
  IFS=: read -r dtype r rd save chunk <<<"$v"
  for t in 1 17 37 129; do run $B/mlp-lora-$dtype-1024-2816-r$r-rd$rd-$save-c$chunk.bundle $dtype 1024 2816 $t; done
done
echo "lora $(( $(date +%s) - s )) s"
for variant in $gpu_test_precisions; do
  IFS=: read -r precision shape <<<"$variant"; d=${shape%x*} h=${shape#*x}
  [[ $d == 4096 ]] && continue
  run $B/mlp-f32-$d-$h-$precision.bundle f32 $d $h 1 17 83 84 129 4096 --contraction=$precision
done
for shape in $gpu_test_edge_shapes; do d=${shape%x*} h=${shape#*x}; run $B/mlp-bf16-$d-$h.bundle bf16 $d $h 1 16 17 37 4096; done
echo "precisions, edges $(( $(date +%s) - s )) s"
echo "pass: $(grep -c ' pass$' $L), controls failed as they must: $(grep -c 'failed as it must' $L), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' $L)"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" $L | head -8
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 3 37 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|HAZARD|RACECHECK SUMMARY' $R/$tool.log | tail -1)"
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 129 > "$R/$tool-x64.log" 2>&1
  echo "$tool x-c64 rc=$? $(grep -E 'ERROR SUMMARY|HAZARD|RACECHECK SUMMARY' $R/$tool-x64.log | tail -1) $(( $(date +%s) - s )) s"
done
