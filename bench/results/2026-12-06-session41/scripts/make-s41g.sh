#!/usr/bin/env bash
# Session 41 (issue 23): the backward's (and [in, out] K1's and K2's)
# transposing variants up to T = 512 (was 256; the stored layout's
# kernel_config up to the bound where its variants end below it), into
# .device/s41g:
#   new/    test/GPU/make-bundles.sh's f32 set at tf32 (the Llama shapes,
#           (64, 128), (1088, 704), LoRA r16/rd16, [in, out] (1024, 2816))
#   main/   the Llama shapes as committed before (.device/s41e/new)
#   inout-main/, inout-new/  the [in, out] (1024, 2816) block with the bound
#           at 256 and at 512 (named as compare_bundles.py reads them)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s41g compile=$PWD/build/bin/fmlp-compile
rm -rf "$out"; mkdir -p "$out"/{main,inout-main,inout-new}
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh "$out/new" > /dev/null
cd "$out/new"
keep="mlp-f32-1024-2816.bundle mlp-f32-4096-11008.bundle mlp-f32-64-128-tf32.bundle
  mlp-f32-1088-704-tf32.bundle mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle
  mlp-f32-1024-2816-in-out.bundle"
for b in *.bundle; do [[ " $(echo $keep) " == *" $b "* ]] || rm -rf "$b"; done
cd - > /dev/null
for b in 256:inout-main 512:inout-new; do
  "$compile" "$out/new/mlp-f32-1024-2816-in-out.mlir" --chip=sm_90a --report=false --precision=tf32 \
    --fmlp-transpose-in-stages-max-tokens=${b%:*} -o "$out/${b#*:}/mlp-f32-1024-2816.bundle"
done
rm -f "$out"/new/*.mlir
cp -r .device/s41e/new/mlp-f32-1024-2816.bundle .device/s41e/new/mlp-f32-4096-11008.bundle "$out/main/"
for b in "$out"/*/*.bundle; do
  echo "$b: spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
du -sh "$out"
