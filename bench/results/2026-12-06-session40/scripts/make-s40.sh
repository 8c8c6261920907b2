#!/usr/bin/env bash
# Session 40 (issue 23: the backward's K3 and K4 transposing the weights in
# their stages at T <= 256): the bundles s40d.sh reads, into .device/s40
# (or S40_OUT):
#   set/     the block tests' fp32 bundles at the new default: tf32 (Llama
#            shapes, (64, 128), (1088, 704), save=x in chunks of 1024),
#            tf32x3 at (1024, 2816), highest at (64, 128)
#   copies/, stages/         tf32 at the Llama shapes with
#            --fmlp-transpose-in-stages-max-tokens=0 (every K3 and K4 on the
#            transposed copies, as before) and the default (256)
#   copies-x3/, stages-x3/   the same at tf32x3, (1024, 2816)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${S40_OUT:-.device/s40} compile=$PWD/build/bin/fmlp-compile
rm -rf "$out"; mkdir -p "$out"/{set,copies,stages,copies-x3,stages-x3}
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh "$out/set" > /dev/null
keep="mlp-f32-1024-2816.bundle mlp-f32-4096-11008.bundle mlp-f32-64-128-tf32.bundle
  mlp-f32-1088-704-tf32.bundle mlp-f32-1024-2816-x-c1024.bundle"
(cd "$out/set" && for b in *.bundle; do [[ " $(echo $keep) " == *" $b "* ]] || rm -rf "$b"; done)
"$compile" "$out/set/mlp-f32-1024-2816.mlir" --chip=sm_90a --precision=tf32x3 --report=false \
  -o "$out/set/mlp-f32-1024-2816-tf32x3.bundle"
"$compile" "$out/set/mlp-f32-64-128.mlir" --chip=sm_90a --precision=highest --report=false \
  -o "$out/set/mlp-f32-64-128-highest.bundle"
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} src="$out/set/mlp-f32-$d-$h.mlir"
  for ab in copies:0 stages:256; do
    "$compile" "$src" --chip=sm_90a --precision=tf32 --report=false \
      --fmlp-transpose-in-stages-max-tokens=${ab#*:} -o "$out/${ab%:*}/mlp-f32-$d-$h.bundle"
  done
done
for ab in copies-x3:0 stages-x3:256; do
  "$compile" "$out/set/mlp-f32-1024-2816.mlir" --chip=sm_90a --precision=tf32x3 --report=false \
    --fmlp-transpose-in-stages-max-tokens=${ab#*:} -o "$out/${ab%:*}/mlp-f32-1024-2816.bundle"
done
rm -f "$out"/set/*.mlir
for b in "$out"/*/*.bundle; do
  echo "$b: $(grep -c '\.entry .*transpose_in_stages' "$b/kernels.ptx") kernels transposing in stages," \
    "spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
du -sh "$out"
