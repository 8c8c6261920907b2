#!/usr/bin/env bash
# Session 54, prepared for the next call: the bundles s54b.sh reads, sm_90a
# with --strategy=mma_sync (the mma_sync kernels as the chips without
# WGMMA get them), bf16, test/GPU/make-bundles.sh's default and edge shapes:
#   .device/s54/mma      the default (since session 54: 192-column weight
#                        gradients, the staged epilogue, guarded)
#   .device/s54/release  + --fmlp-mma-sync-release-after-next-wait (each
#                        slot released once the next k-tile has arrived:
#                        bench/NOTES.md item 108)
#   .device/s54/release2 the same in 2 stages, as sm_120 has them
#                        (--fmlp-mma-sync-stages=2 --fmlp-ptx-version=87)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
rm -rf .device/s54; mkdir -p .device/s54
release="--fmlp-mma-sync-release-after-next-wait"
for config in "mma:" "release:$release" \
  "release2:$release --fmlp-mma-sync-stages=2 --fmlp-ptx-version=87"; do
  dir=.device/s54/${config%%:*}
  DTYPES=bf16 FMLP_COMPILE_FLAGS="--strategy=mma_sync ${config#*:}" \
    test/GPU/make-bundles.sh "$dir" > /dev/null || echo "make-bundles $dir: rc=$?"
  rm -f "$dir"/*.mlir
  find "$dir" -maxdepth 1 -name '*.bundle' ! -regex '.*/mlp-bf16-[0-9]+-[0-9]+\.bundle' \
    ! -name 'mlp-bf16-1024-2816-x-c1024.bundle' -exec rm -rf {} +
done
echo "spills: $(cat .device/s54/*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes (spill|stack)')"
du -sh .device/s54/*
