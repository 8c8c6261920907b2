#!/usr/bin/env bash
# Session 34: the bundles s34a.sh and s34b.sh read, compiled here (no GPU
# needed) into .device/cpa, beside .device/tf32mn/mn (session 32's landing
# bundles, this tree's default: the A/B's other side).
#   cpa/        fp32 blocks at precision tf32, the backward's MN-major
#               operands copied element by element into the stages by
#               cp.async (--fmlp-tf32-transpose=cp-async): test/GPU/make-
#               bundles.sh's f32 set at tf32 (both shapes, the edge shapes,
#               save=x and save=u in chunks of 1024, LoRA r16/rd16)
#   cache-cpa/  the Python package's cache (bench_precision.py:
#               BlockSpec(D, H, "f32", precision="tf32"), save agu and gu,
#               both shapes) with the same flag
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/cpa
rm -rf "$out"; mkdir -p "$out"
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32 --fmlp-tf32-transpose=cp-async" \
  bash test/GPU/make-bundles.sh "$out/cpa" > /dev/null
rm -rf "$out"/cpa/mlp-f32-1024-2816-tf32.bundle "$out"/cpa/*-ieee.bundle "$out"/cpa/*-tf32x3.bundle \
  "$out"/cpa/*-highest.bundle "$out"/cpa/*.mlir
wrap=$(mktemp -d)
printf '#!/bin/sh\nexec %s "$@" --fmlp-tf32-transpose=cp-async\n' "$PWD/build/bin/fmlp-compile" > "$wrap/fmlp-compile"
chmod +x "$wrap/fmlp-compile"
FMLP_CACHE_DIR=$out/cache-cpa PATH="$wrap:$PATH" PYTHONPATH="$PWD/python" python3 - <<'PY'
from fmlp.spec import BlockSpec, find_or_compile
for d, h in ((1024, 2816), (4096, 11008)):
    for save in ("agu", "gu"):
        print(find_or_compile(BlockSpec(d, h, "f32", save=save, precision="tf32")))
PY
rm -r "$wrap"
# Every copying kernel's barrier arrivals: one cp.async.mbarrier.arrive each.
for b in "$out"/cpa/mlp-f32-1024-2816.bundle "$out"/cache-cpa/*.bundle; do
  echo "$b: $(grep -c 'cp.async.mbarrier.arrive.noinc' "$b/kernels.ptx") copying kernels," \
    "$(grep -c 'spill' "$b/ptxas.log" 2>/dev/null) ptxas lines, spills: $(grep -E '[1-9][0-9]* B spill' "$b/ptxas.log" | wc -l)"
done
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
du -sh .device "$out"
