#!/usr/bin/env bash
# Session 50: the bundles s50b.sh reads: the mma_sync kernels staged by TMA
# with their slots released on mbarriers (--fmlp-mma-sync-release-mbarrier;
# call 2 tried a ninth producer warp, which the register file refused:
# CUDA error 701) and/or their tiles
# in grouped order (--fmlp-mma-sync-grouped-tiles), beside call 1's
# (make-s50a.sh: .device/s50/{mma_sync,mma_tma}).
#   .device/s50b/{mma_rel,mma_rel_g,mma_tma_g,x32_cpa4,x64_tma2,x64_tma3}
#                  bf16 at the Llama shapes
#   .device/s50b/tests   bf16 (1024, 2816), (64, 128), (1088, 704) and a
#                  LoRA block, mma_sync with TMA and slots released by mbarriers
set -euo pipefail
cd "$(dirname "$0")/../../../.."
compile=$PWD/build/bin/fmlp-compile
rm -rf .device/s50b; mkdir -p .device/s50b/{mma_rel,mma_rel_g,mma_tma_g,x32_cpa4,x64_tma2,x64_tma3,tests}
# The sm_120 question, asked on the H200's chip: sm_120 (101,376 B a block)
# runs k-tiles of 32 in 4 stages by cp.async today (x32_cpa4); TMA stages
# rows of 128 bytes, of which two stages fit there (x64_tma2); x64_tma3 for
# reference.
declare -A flags=([mma_rel]="--fmlp-mma-sync-release-mbarrier"
  [mma_rel_g]="--fmlp-mma-sync-release-mbarrier --fmlp-mma-sync-grouped-tiles"
  [mma_tma_g]="--fmlp-mma-sync-grouped-tiles"
  [x32_cpa4]="--fmlp-mma-sync-tile-k-bytes=64 --fmlp-mma-sync-tma=false"
  [x64_tma2]="--fmlp-mma-sync-tile-k-bytes=128 --fmlp-mma-sync-stages=2"
  [x64_tma3]="--fmlp-mma-sync-tile-k-bytes=128 --fmlp-mma-sync-stages=3")
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} x="tensor<?x${d}xbf16>" w="tensor<${h}x${d}xbf16>" wd="tensor<${d}x${h}xbf16>"
  src=.device/s50b/mlp-bf16-$d-$h.mlir
  cat > "$src" <<MLIR
func.func @mlp(%x: $x, %wg: $w, %wu: $w, %wd: $wd) -> $x {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : ($x, $w, $w, $wd) -> $x
  return %y : $x
}
MLIR
  for v in "${!flags[@]}"; do
    "$compile" "$src" --chip=sm_90a --strategy=mma_sync ${flags[$v]} --report=false \
      -o .device/s50b/$v/mlp-bf16-$d-$h.bundle
  done
  rm "$src"
done
tmp=$(mktemp -d)
DTYPES=bf16 FMLP_COMPILE_FLAGS="--strategy=mma_sync --fmlp-mma-sync-release-mbarrier" \
  test/GPU/make-bundles.sh "$tmp" > /dev/null || true
for b in mlp-bf16-1024-2816 mlp-bf16-64-128 mlp-bf16-1088-704 mlp-lora-bf16-1024-2816-r32-rd16-agu-c0; do
  mv "$tmp/$b.bundle" .device/s50b/tests/
done
rm -rf "$tmp"
echo "spills: $(cat .device/s50b/*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')"
grep -h "Used" .device/s50b/*/*.bundle/ptxas.log | sort | uniq -c | sort -rn | head -5
du -sh .device/s50b
