#!/usr/bin/env bash
# Session 53 (prepared, not run: no device was lent): the bundles s53a.sh
# reads, sm_90a with --strategy=mma_sync, for three A/B knobs of the
# mma_sync kernels (bench/NOTES.md item 107):
#   --fmlp-mma-sync-grid-tiles: 192-column tiles (8 warps of 64 x 48) over
#     a static grid where they cut the busiest multiprocessor's waves (the
#     weight gradients at (1024, 2816) on 132 multiprocessors: 120 blocks
#     for the down weight gradient, 264 for gate/up's, against 88 and 176
#     of 256; (4096, 11008) keeps 256);
#   --fmlp-mma-sync-staged-epilogue (session 52: 1.03-1.33x on the H100);
#   --fmlp-mma-sync-staged-epilogue-guarded: each staged element under its
#     bounds guard (fits sm_100's GeGLU [in, out] no-grad K1, which the
#     unguarded one spills).
#   .device/s53/mma            the default (256 columns, unstaged)
#   .device/s53/grid           192-column weight gradients
#   .device/s53/grid_staged    + the staged epilogue, unguarded
#   .device/s53/grid_staged_g  + the staged epilogue, guarded
#   .device/s53/tests          test/GPU/make-bundles.sh's bf16 and f16
#        bundles (every memory policy, [in, out], LoRA) with all three, and
#        the f32 LoRA block (tf32x3, whose input gradient now spreads its
#        copies over the k-tile's steps)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
rm -rf .device/s53; mkdir -p .device/s53/{mma,grid,grid_staged,grid_staged_g,tests}
grid="--fmlp-mma-sync-grid-tiles" staged="--fmlp-mma-sync-staged-epilogue"
guarded="--fmlp-mma-sync-staged-epilogue-guarded"
for shape in 1024x2816 4096x11008 64x128 1088x704; do
  d=${shape%x*} h=${shape#*x} x="tensor<?x${d}xbf16>" w="tensor<${h}x${d}xbf16>" wd="tensor<${d}x${h}xbf16>"
  src=.device/s53/mlp-bf16-$d-$h.mlir
  cat > "$src" <<MLIR
func.func @mlp(%x: $x, %wg: $w, %wu: $w, %wd: $wd) -> $x {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : ($x, $w, $w, $wd) -> $x
  return %y : $x
}
MLIR
  c="build/bin/fmlp-compile $src --chip=sm_90a --strategy=mma_sync --report=false"
  $c -o .device/s53/mma/mlp-bf16-$d-$h.bundle
  $c $grid -o .device/s53/grid/mlp-bf16-$d-$h.bundle
  $c $grid $staged -o .device/s53/grid_staged/mlp-bf16-$d-$h.bundle
  $c $grid $staged $guarded -o .device/s53/grid_staged_g/mlp-bf16-$d-$h.bundle
  rm "$src"
done
DTYPES="bf16 f16" FMLP_COMPILE_FLAGS="--strategy=mma_sync $grid $staged $guarded" \
  test/GPU/make-bundles.sh .device/s53/tests > /dev/null || echo "make-bundles: rc=$?"
tmp=$(mktemp -d)
DTYPES="f32" FMLP_COMPILE_FLAGS="--strategy=mma_sync" test/GPU/make-bundles.sh "$tmp" > /dev/null || echo "make-bundles f32: rc=$?"
mv "$tmp"/mlp-lora-f32-*.bundle .device/s53/tests/
rm -rf "$tmp" .device/s53/tests/*.mlir
echo "spills: $(cat .device/s53/*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes (spill|stack)')"
echo "192-column kernels: $(cat .device/s53/grid/*.bundle/manifest.json | grep -o '"dynamic_shared_bytes": *163904' | wc -l)"
du -sh .device/s53 .device/s53/*
