#!/usr/bin/env bash
# Session 52, prepared for the next call (not run): the mma_sync kernels
# with their epilogue staged in the ring (--fmlp-mma-sync-staged-epilogue,
# item 106) on the whole GPU-test set, before it becomes the default.
#   .device/s52b/tests  test/GPU/make-bundles.sh's bf16 and f16 bundles,
#        --strategy=mma_sync (f16, LoRA, save=gu/u/x, chunks, [in, out])
set -euo pipefail
cd "$(dirname "$0")/../../../.."
rm -rf .device/s52b; mkdir -p .device/s52b
DTYPES="bf16 f16" FMLP_COMPILE_FLAGS="--strategy=mma_sync --fmlp-mma-sync-staged-epilogue" \
  test/GPU/make-bundles.sh .device/s52b/tests > /dev/null || echo "make-bundles: rc=$?"
rm -f .device/s52b/tests/*.mlir
echo "spills: $(cat .device/s52b/tests/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes (spill|stack)')"
du -sh .device/s52b
