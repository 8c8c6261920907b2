#!/usr/bin/env bash
# Session 35: the bundles s35.sh reads, compiled here (no GPU needed) into
# .device/x3:
#   x3/        fp32 blocks at precision tf32x3 on WGMMA (--fmlp-tf32x3-wgmma:
#              each stage split into tf32 high and low parts by the
#              producer, three products a k8): test/GPU/make-bundles.sh's
#              f32 set (both Llama shapes, save=x and save=u in chunks of
#              1024, LoRA r16/rd16; 64-128 and 1088-704 at tf32x3, 64-128 at
#              highest, tf32 for the negative control)
#   mma/       the same two Llama shapes at tf32x3 on mma_sync (the
#              default): compare_bundles.py's other side
#   cache-x3/  the Python package's cache (bench_precision.py: precision
#              tf32x3 and highest, save agu and gu, both shapes) with the flag
# X3_OUT (default .device/x3) and X3_FLAGS (more fmlp-compile flags, e.g.
# --fmlp-tf32x3-register-a) make another such set for an A/B run.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${X3_OUT:-.device/x3} compile=$PWD/build/bin/fmlp-compile flags="--fmlp-tf32x3-wgmma ${X3_FLAGS:-}"
rm -rf "$out"; mkdir -p "$out/mma"
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32x3 $flags" \
  bash test/GPU/make-bundles.sh "$out/x3" > /dev/null
rm -rf "$out"/x3/*-ieee.bundle "$out"/x3/mlp-f32-1024-2816-tf32x3.bundle "$out"/x3/mlp-f32-1088-704-tf32.bundle
for shape in 64x128 1088x704; do
  d=${shape%x*} h=${shape#*x}
  "$compile" "$out/x3/mlp-f32-$d-$h.mlir" --chip=sm_90a --precision=tf32x3 $flags \
    -o "$out/x3/mlp-f32-$d-$h-tf32x3.bundle" --report=false
done
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x}
  "$compile" "$out/x3/mlp-f32-$d-$h.mlir" --chip=sm_90a --precision=tf32x3 \
    -o "$out/mma/mlp-f32-$d-$h.bundle" --report=false
done
rm -f "$out"/x3/*.mlir
wrap=$(mktemp -d)
printf '#!/bin/sh\nexec %s "$@" %s\n' "$compile" "$flags" > "$wrap/fmlp-compile"
chmod +x "$wrap/fmlp-compile"
FMLP_CACHE_DIR=$out/cache-x3 PATH="$wrap:$PATH" PYTHONPATH="$PWD/python" python3 - <<'PY'
from fmlp.spec import BlockSpec, find_or_compile
for d, h in ((1024, 2816), (4096, 11008)):
    for precision in ("tf32x3", "highest"):
        for save in ("agu", "gu"):
            print(find_or_compile(BlockSpec(d, h, "f32", save=save, precision=precision)))
PY
rm -r "$wrap"
# Each bundle's kernels: how many on WGMMA (384 threads), spills (none).
for b in "$out"/x3/*.bundle "$out"/mma/*.bundle "$out"/cache-x3/*.bundle; do
  echo "$b: $(grep -c 'wgmma.mma_async' "$b/kernels.ptx") wgmma, $(grep -c 'cvt.rna.tf32' "$b/kernels.ptx") cvt.rna," \
    "spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
du -sh "$out"
