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
#   .device/s53/warp           all three, and each slot released by one
#        arrive per warp (--fmlp-mma-sync-release-per-warp, session 54)
#   .device/s53/tests          test/GPU/make-bundles.sh's bf16 and f16
#        bundles (every memory policy, [in, out], LoRA) with all three (its
#        bf16 blocks are also the speed run's grid_staged_g), and the f32
#        LoRA block (tf32x3, whose input gradient now spreads its copies
#        over the k-tile's steps)
#   .device/s53/wgmma          the WGMMA default at (1024, 2816), for
#        the sanitizers (session 52's mbarrier-init fence)
# Each directory is make-bundles.sh's (bf16 only, its default and edge
# shapes, but for tests).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
rm -rf .device/s53; mkdir -p .device/s53
grid="--fmlp-mma-sync-grid-tiles" staged="--fmlp-mma-sync-staged-epilogue"
guarded="--fmlp-mma-sync-staged-epilogue-guarded"
bundles() {  # DIR DTYPES FLAGS
  DTYPES="$2" FMLP_COMPILE_FLAGS="--strategy=mma_sync $3" \
    test/GPU/make-bundles.sh "$1" > /dev/null || echo "make-bundles $1: rc=$?"
}
warp="--fmlp-mma-sync-release-per-warp"
for config in "mma:" "grid:$grid" "grid_staged:$grid $staged" "warp:$grid $staged $guarded $warp"; do
  dir=.device/s53/${config%%:*}
  bundles "$dir" bf16 "${config#*:}"
  # The default and edge shapes only (the device call's carry is 64 MiB).
  find "$dir" -maxdepth 1 -name '*.bundle' ! -regex '.*/mlp-bf16-[0-9]+-[0-9]+\.bundle' \
    -exec rm -rf {} +
done
# The WGMMA default (sm_90a's strategy) for the sanitizers' second run.
build/bin/fmlp-compile .device/s53/mma/mlp-bf16-1024-2816.mlir --chip=sm_90a \
  -o .device/s53/wgmma/mlp-bf16-1024-2816.bundle --report=false
bundles .device/s53/tests "bf16 f16" "$grid $staged $guarded"
tmp=$(mktemp -d)
bundles "$tmp" f32 ""
mv "$tmp"/mlp-lora-f32-*.bundle .device/s53/tests/
rm -rf "$tmp"
rm -f .device/s53/*/*.mlir
echo "spills: $(cat .device/s53/*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes (spill|stack)')"
echo "192-column kernels: $(cat .device/s53/grid/*.bundle/manifest.json | grep -o '"dynamic_shared_bytes": *163904' | wc -l)"
du -sh .device/s53 .device/s53/*
