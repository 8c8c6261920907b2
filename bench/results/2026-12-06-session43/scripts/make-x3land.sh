#!/usr/bin/env bash
# tf32x3's MN-major operands landed by TMA and split as they are transposed
# (--fmlp-tf32x3-transpose=landing, codegen/WgmmaGemm.cpp) against the
# default cp.async copies (copy): the bundles s43e.sh reads, into
# .device/x3land/<variant>/mlp-f32-<D>-<H>.bundle, tf32x3 at (64, 128),
# (1024, 2816), (4096, 11008):
#   copy     the default (cp.async copies of 4 bytes, then the splitting
#            producer)
#   landing  --fmlp-tf32x3-transpose=landing (TMA into landing slots, the
#            transposing producer writes hi and lo K-major in one pass)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/x3land compile=$PWD/build/bin/fmlp-compile
rm -rf "$out"; mkdir -p "$out"
DTYPES=f32 bash test/GPU/make-bundles.sh "$out/set" > /dev/null
for v in "copy:" "landing:--fmlp-tf32x3-transpose=landing"; do
  name=${v%%:*} flags=${v#*:}
  mkdir -p "$out/$name"
  for shape in 64-128 1024-2816 4096-11008; do
    # shellcheck disable=SC2086
    "$compile" "$out/set/mlp-f32-$shape.mlir" --chip=sm_90a --precision=tf32x3 $flags \
      -o "$out/$name/mlp-f32-$shape.bundle" --report=false
  done
  echo "$name: landing TMA loads $(grep -c 'cp.async.bulk.tensor' "$out/$name/mlp-f32-4096-11008.bundle/kernels.ptx")," \
    "4-byte cp.async $(grep -cE 'cp\.async\.ca\.shared\.global[^;]*, 4' "$out/$name/mlp-f32-4096-11008.bundle/kernels.ptx")," \
    "spills $(cat "$out/$name"/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')," \
    "C75xx $(cat "$out/$name"/*.bundle/ptxas.log | grep -c 'C75')"
done
rm -rf "$out/set"
du -sh "$out"
