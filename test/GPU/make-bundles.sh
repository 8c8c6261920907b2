#!/usr/bin/env bash
# Compiles the GPU tests' bundles: a SwiGLU block (fmlp.gated_mlp, weights
# in nn.Linear's [out, in] layout) for each element type and each (D, H) of
# shapes.sh, bf16 also at its edge shapes, with fmlp-compile from the build
# tree; then the memory-policy variants of shapes.sh (save=gu, save=x,
# chunk-tokens), and the fp32 precisions' (ieee, tf32, tf32x3, highest);
# last, the blocks with LoRA adapters of shapes.sh. Usage:
# make-bundles.sh OUTDIR [CHIP]; DTYPES (default
# "bf16 f16 f32") narrows them all, FMLP_COMPILE_FLAGS adds fmlp-compile flags
# (A/B runs: e.g. --fmlp-wgmma-tile-n=64). A LoRA bundle fmlp-compile
# refuses (until the GPU lowering takes adapters, docs/LoRA.md) is reported
# and the others are still made; the exit status is then 1.
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
source_of() {  # DTYPE D H [R RD]: the block's MLIR file, written once; with
  # adapters of ranks R (gate and up, stacked) and RD (down), 0 = none, as
  # test/Tools/Inputs/lora-block.mlir writes them ([out, in])
  local dtype=$1 d=$2 h=$3 r=${4:-0} rd=${5:-0} src="$out/mlp-$1-$2-$3.mlir"
  local x="tensor<?x${d}x${dtype}>" args types lora=""
  (( r || rd )) && src="$out/mlp-lora-$dtype-$d-$h-r$r-rd$rd.mlir"
  args="%x: $x, %wg: tensor<${h}x${d}x${dtype}>,
               %wu: tensor<${h}x${d}x${dtype}>, %wd: tensor<${d}x${h}x${dtype}>"
  types="$x, tensor<${h}x${d}x${dtype}>, tensor<${h}x${d}x${dtype}>,
         tensor<${d}x${h}x${dtype}>"
  if (( r )); then
    args="$args,
               %lora_a: tensor<${r}x${d}x${dtype}>, %gate_lora_b: tensor<${h}x${r}x${dtype}>,
               %up_lora_b: tensor<${h}x${r}x${dtype}>"
    types="$types, tensor<${r}x${d}x${dtype}>,
         tensor<${h}x${r}x${dtype}>, tensor<${h}x${r}x${dtype}>"
    lora="$lora lora(%lora_a, %gate_lora_b, %up_lora_b)"
  fi
  if (( rd )); then
    args="$args,
               %down_lora_a: tensor<${rd}x${h}x${dtype}>, %down_lora_b: tensor<${d}x${rd}x${dtype}>"
    types="$types, tensor<${rd}x${h}x${dtype}>,
         tensor<${d}x${rd}x${dtype}>"
    lora="$lora down_lora(%down_lora_a, %down_lora_b)"
  fi
  [[ -f $src ]] || cat >"$src" <<MLIR
func.func @mlp($args)
    -> $x {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd$lora
      : ($types) -> $x
  return %y : $x
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
# Weights stored [in, out]: gate and up [D, H], down [H, D].
for variant in $gpu_test_in_out_variants; do
  IFS=: read -r dtype shape <<<"$variant"
  [[ " ${DTYPES:-bf16 f16 f32} " == *" $dtype "* ]] || continue
  d=${shape%x*} h=${shape#*x} src="$out/mlp-$dtype-$d-$h-in-out.mlir"
  x="tensor<?x${d}x${dtype}>" wgu="tensor<${d}x${h}x${dtype}>" wd="tensor<${h}x${d}x${dtype}>"
  cat >"$src" <<MLIR
func.func @mlp(%x: $x, %wg: $wgu, %wu: $wgu, %wd: $wd) -> $x {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      {gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>,
       down_layout = #fmlp.layout<in_out>}
      : ($x, $wgu, $wgu, $wd) -> $x
  return %y : $x
}
MLIR
  precision=""
  [[ $dtype == f32 ]] && precision=--precision=tf32
  "$compile" "$src" --chip="$chip" ${FMLP_COMPILE_FLAGS:-} $precision \
    -o "$out/mlp-$dtype-$d-$h-in-out.bundle" --report=false
done
for variant in $gpu_test_variants $gpu_test_sanitized_variant; do
  IFS=: read -r dtype shape save chunk <<<"$variant"
  [[ " ${DTYPES:-bf16 f16 f32} " == *" $dtype "* ]] || continue
  d=${shape%x*} h=${shape#*x}
  "$compile" "$(source_of $dtype $d $h)" --chip="$chip" ${FMLP_COMPILE_FLAGS:-} --save="$save" --chunk-tokens="$chunk" \
    -o "$out/mlp-$dtype-$d-$h-$save-c$chunk.bundle" --report=false
done
# Blocks with adapters: each refusal reported, the loop goes on.
refused=()
for variant in $gpu_test_lora_variants; do
  IFS=: read -r dtype shape r rd save chunk <<<"$variant"
  [[ " ${DTYPES:-bf16 f16 f32} " == *" $dtype "* ]] || continue
  d=${shape%x*} h=${shape#*x}
  bundle="$out/mlp-lora-$dtype-$d-$h-r$r-rd$rd-$save-c$chunk.bundle"
  "$compile" "$(source_of $dtype $d $h $r $rd)" --chip="$chip" ${FMLP_COMPILE_FLAGS:-} --save="$save" \
    --chunk-tokens="$chunk" -o "$bundle" --report=false || refused+=("$(basename "$bundle")")
done
echo "bundles in $out"
if (( ${#refused[@]} )); then
  echo "make-bundles.sh: not made (fmlp-compile failed, above): ${refused[*]}" >&2
  exit 1
fi
