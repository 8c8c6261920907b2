#!/usr/bin/env bash
# Session 41 (issue 23): the change as committed (the rounding bound at
# 768, the splitters apart from the loads), into .device/s41e:
#   new/   test/GPU/make-bundles.sh's f32 set at tf32 (the Llama shapes,
#          (64, 128), (1088, 704), LoRA r16/rd16, save=x in chunks) and the
#          Llama shapes at tf32x3 (x3-*.bundle)
#   main/  main's (s41a: copies/ for tf32, trunc/ the control, x3b1/ for tf32x3)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s41e compile=$PWD/build/bin/fmlp-compile
rm -rf "$out"; mkdir -p "$out/main"
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh "$out/new" > /dev/null
cd "$out/new"
keep="mlp-f32-1024-2816.bundle mlp-f32-4096-11008.bundle mlp-f32-64-128-tf32.bundle
  mlp-f32-1088-704-tf32.bundle mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle
  mlp-f32-1024-2816-x-c1024.bundle"
for b in *.bundle; do [[ " $(echo $keep) " == *" $b "* ]] || rm -rf "$b"; done
cd - > /dev/null
for s in 1024-2816 4096-11008; do
  "$compile" "$out/new/mlp-f32-$s.mlir" --chip=sm_90a --report=false --precision=tf32x3 \
    -o "$out/new/x3/mlp-f32-$s.bundle"
done
rm -f "$out"/new/*.mlir
for v in copies trunc x3b1; do cp -r .device/s41a/$v "$out/main/"; done
for b in "$out"/new/*.bundle "$out"/new/x3/*.bundle; do
  echo "$b: spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
du -sh "$out"
