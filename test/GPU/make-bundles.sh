#!/usr/bin/env bash
# Compiles the GPU tests' bundles: a SwiGLU block (fmlp.gated_mlp, weights
# in nn.Linear's [out, in] layout) for each element type and each (D, H) of
# shapes.sh, bf16 also at its edge shapes, with fmlp-compile from the build
# tree; then the memory-policy variants of shapes.sh (save=gu, save=x,
# chunk-tokens), and the fp32 precisions' (ieee, tf32, tf32x3, highest). Usage:
# make-bundles.sh OUTDIR [CHIP]; DTYPES (default
# "bf16 f16 f32") narrows both, FMLP_COMPILE_FLAGS adds fmlp-compile flags
# (A/B runs: e.g. --fmlp-wgmma-tile-n=64).
set -euo pipefail
out=${1:?usage: make-bundles.sh OUTDIR [CHIP]}
chip=${2:-sm_90a}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/test/GPU/shapes.sh"
compile="$root/build/bin/fmlp-compile"
mkdir -p "$out"
shapes() {  # the shapes of DTYPE
  if [[ $1 == bf16 ]]; then echo $gpu_test_shapes $gpu_test_edge_shapes; else echo $gpu_test_shapes; fi
}
source_of() {  # DTYPE D H: the block's MLIR file, written once
  local dtype=$1 d=$2 h=$3 src="$out/mlp-$1-$2-$3.mlir"
  [[ -f $src ]] || cat >"$src" <<MLIR
func.func @mlp(%x: tensor<?x${d}x${dtype}>, %wg: tensor<${h}x${d}x${dtype}>,
               %wu: tensor<${h}x${d}x${dtype}>, %wd: tensor<${d}x${h}x${dtype}>)
    -> tensor<?x${d}x${dtype}> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x${d}x${dtype}>, tensor<${h}x${d}x${dtype}>, tensor<${h}x${d}x${dtype}>,
         tensor<${d}x${h}x${dtype}>) -> tensor<?x${d}x${dtype}>
  return %y : tensor<?x${d}x${dtype}>
}
MLIR
  echo "$src"
}
for dtype in ${DTYPES:-bf16 f16 f32}; do
  for shape in $(shapes $dtype); do
    d=${shape%x*} h=${shape#*x}
    "$compile" "$(source_of $dtype $d $h)" --chip="$chip" ${FMLP_COMPILE_FLAGS:-} -o "$out/mlp-$dtype-$d-$h.bundle" --report=false
  done
done
if [[ " ${DTYPES:-bf16 f16 f32} " == *" f32 "* ]]; then
  for variant in $gpu_test_precisions; do
    IFS=: read -r precision shape <<<"$variant"
    d=${shape%x*} h=${shape#*x}
    "$compile" "$(source_of f32 $d $h)" --chip="$chip" ${FMLP_COMPILE_FLAGS:-} --precision="$precision" \
      -o "$out/mlp-f32-$d-$h-$precision.bundle" --report=false
  done
fi
for variant in $gpu_test_variants $gpu_test_sanitized_variant; do
  IFS=: read -r dtype shape save chunk <<<"$variant"
  [[ " ${DTYPES:-bf16 f16 f32} " == *" $dtype "* ]] || continue
  d=${shape%x*} h=${shape#*x}
  "$compile" "$(source_of $dtype $d $h)" --chip="$chip" ${FMLP_COMPILE_FLAGS:-} --save="$save" --chunk-tokens="$chunk" \
    -o "$out/mlp-$dtype-$d-$h-$save-c$chunk.bundle" --report=false
done
echo "bundles in $out"
