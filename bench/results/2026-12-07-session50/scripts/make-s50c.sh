#!/usr/bin/env bash
# Session 50: the bundles s50b.sh's correctness part reads after the shared
# TMA tile loader (KernelBuilder's loadTmaTile, used by the WGMMA and the
# mma_sync kernels; the mma_sync kernels now skip A's boxes past T):
#   .device/s50c/wgmma     bf16 and f16 (1024, 2816), bf16 (1088, 704), the
#                          LoRA block, by the default (WGMMA) strategy
#   .device/s50c/mma       the same with --strategy=mma_sync
set -euo pipefail
cd "$(dirname "$0")/../../../.."
rm -rf .device/s50c; mkdir -p .device/s50c/{wgmma,mma}
for v in wgmma mma; do
  tmp=$(mktemp -d)
  flags=""; [[ $v == mma ]] && flags="--strategy=mma_sync"
  DTYPES="bf16 f16" FMLP_COMPILE_FLAGS="$flags" test/GPU/make-bundles.sh "$tmp" > /dev/null || true
  for b in mlp-bf16-1024-2816 mlp-f16-1024-2816 mlp-bf16-1088-704 mlp-lora-bf16-1024-2816-r32-rd16-agu-c0; do
    mv "$tmp/$b.bundle" .device/s50c/$v/
  done
  rm -rf "$tmp"
done
echo "spills: $(cat .device/s50c/*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')"
du -sh .device/s50c
