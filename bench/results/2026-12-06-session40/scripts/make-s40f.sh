#!/usr/bin/env bash
# Session 40: the [in, out] blocks s40f.sh reads, into .device/s40f: set/
# as test/GPU/make-bundles.sh makes them (bf16; f32 at tf32), and for the
# A/B the f32 block at tf32 with --fmlp-transpose-in-stages-max-tokens=0
# (copies/: every kernel on the transposed copies) and the default
# (stages/), named as compare_bundles.py reads them.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s40f compile=$PWD/build/bin/fmlp-compile
rm -rf "$out"; mkdir -p "$out"/{set,copies,stages}
for dtype in bf16 f32; do
  d=1024 h=2816 x="tensor<?x1024x$dtype>" wgu="tensor<1024x2816x$dtype>" wd="tensor<2816x1024x$dtype>"
  cat > "$out/set/mlp-$dtype-$d-$h-in-out.mlir" <<MLIR
func.func @mlp(%x: $x, %wg: $wgu, %wu: $wgu, %wd: $wd) -> $x {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      {gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>,
       down_layout = #fmlp.layout<in_out>}
      : ($x, $wgu, $wgu, $wd) -> $x
  return %y : $x
}
MLIR
done
"$compile" "$out/set/mlp-bf16-1024-2816-in-out.mlir" --chip=sm_90a --report=false -o "$out/set/mlp-bf16-1024-2816-in-out.bundle"
"$compile" "$out/set/mlp-f32-1024-2816-in-out.mlir" --chip=sm_90a --precision=tf32 --report=false -o "$out/set/mlp-f32-1024-2816-in-out.bundle"
for ab in copies:0 stages:256; do
  "$compile" "$out/set/mlp-f32-1024-2816-in-out.mlir" --chip=sm_90a --precision=tf32 --report=false \
    --fmlp-transpose-in-stages-max-tokens=${ab#*:} -o "$out/${ab%:*}/mlp-f32-1024-2816.bundle"
done
rm -f "$out"/set/*.mlir
for b in "$out"/*/*.bundle; do
  echo "$b: $(grep -c '\.entry .*transpose_in_stages' "$b/kernels.ptx") kernels transposing in stages," \
    "spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
