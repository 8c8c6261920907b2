#!/usr/bin/env bash
# Session 52: the bundles s52a.sh reads. Every TMA kernel (WGMMA and
# mma_sync) now fences its mbarrier inits for the async proxy
# (fence.proxy.async.shared::cta) before the block barrier that publishes
# them; the mma_sync ones also fence each slot's reads before releasing it
# (session 51, not yet run).
#   .device/s52/{mma,mma_2b}  bf16 (1024, 2816) and (4096, 11008), the
#        mma_sync default and two blocks a multiprocessor
#   .device/s52/mma_staged  the default with its epilogue staged in the ring
#        (--fmlp-mma-sync-staged-epilogue), also at (64, 128), (1088, 704)
#   .device/s52/tests  test/GPU/make-bundles.sh's bf16 bundles (the default
#        strategy: WGMMA on sm_90a), f32 at tf32x3
set -euo pipefail
cd "$(dirname "$0")/../../../.."
rm -rf .device/s52; mkdir -p .device/s52/{mma,mma_2b,mma_staged,tests}
for shape in 1024x2816 4096x11008 64x128 1088x704; do
  d=${shape%x*} h=${shape#*x} x="tensor<?x${d}xbf16>" w="tensor<${h}x${d}xbf16>" wd="tensor<${d}x${h}xbf16>"
  src=.device/s52/mlp-bf16-$d-$h.mlir
  cat > "$src" <<MLIR
func.func @mlp(%x: $x, %wg: $w, %wu: $w, %wd: $wd) -> $x {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : ($x, $w, $w, $wd) -> $x
  return %y : $x
}
MLIR
  # (as run: the knob's default was off then; it is on since)
  build/bin/fmlp-compile "$src" --chip=sm_90a --strategy=mma_sync --report=false \
    --fmlp-mma-sync-staged-epilogue=false -o .device/s52/mma/mlp-bf16-$d-$h.bundle
  build/bin/fmlp-compile "$src" --chip=sm_90a --strategy=mma_sync --report=false \
    --fmlp-mma-sync-blocks-per-multiprocessor=2 -o .device/s52/mma_2b/mlp-bf16-$d-$h.bundle
  build/bin/fmlp-compile "$src" --chip=sm_90a --strategy=mma_sync --report=false \
    --fmlp-mma-sync-staged-epilogue -o .device/s52/mma_staged/mlp-bf16-$d-$h.bundle
  rm "$src"
done
tmp=$(mktemp -d)
DTYPES="bf16 f32" test/GPU/make-bundles.sh "$tmp" > /dev/null || echo "make-bundles: rc=$?"
for b in mlp-bf16-1024-2816 mlp-bf16-4096-11008 mlp-bf16-64-128 mlp-bf16-1088-704 \
         mlp-bf16-1024-2816-x-c1024 mlp-f32-1024-2816-tf32x3 mlp-f32-1024-2816; do
  mv "$tmp/$b.bundle" .device/s52/tests/
done
rm -rf "$tmp"
echo "spills: $(cat .device/s52/*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes (spill|stack)')"
for b in .device/s52/mma/mlp-bf16-1024-2816.bundle .device/s52/tests/mlp-bf16-1024-2816.bundle; do
  echo "$b: $(grep -c 'fence.proxy.async' $b/kernels.ptx) proxy fences, $(grep -c 'mbarrier.init' $b/kernels.ptx) mbarrier inits"
done
du -sh .device/s52
