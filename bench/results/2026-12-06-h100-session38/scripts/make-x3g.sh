#!/usr/bin/env bash
# Session 38 (issue 23's tf32x3 speed): the bundles s38x.sh reads, compiled
# here into .device/x3g (or X3G_OUT), tf32x3 at (64, 128), (1024, 2816),
# (4096, 11008), one directory a variant of the tf32x3 WGMMA kernels:
#   g1    the default (each k8's three products summed on the tensor core
#         from zero, waited for, added to the accumulators in fp32)
#   g4    --fmlp-tf32x3-group-k8s=4 (a k-step's four k8s in one group: one
#         wait a k-step, not four)
#   c     --fmlp-tf32x3-compact-stages (no low part of A in the stages: 48
#         KiB stages, 4 of them where 3 fitted)
#   g4c   both
# and tf32/ (the tf32 bundle of (64, 128): the negative control, judged by
# tf32x3's bound at groups of 4 k8s, must fail).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${X3G_OUT:-.device/x3g} compile=$PWD/build/bin/fmlp-compile
rm -rf "$out"; mkdir -p "$out"/tf32
DTYPES=f32 bash test/GPU/make-bundles.sh "$out/set" > /dev/null
for v in "g1:" "g4:--fmlp-tf32x3-group-k8s=4" "c:--fmlp-tf32x3-compact-stages" \
         "g4c:--fmlp-tf32x3-group-k8s=4 --fmlp-tf32x3-compact-stages"; do
  name=${v%%:*} flags=${v#*:}
  mkdir -p "$out/$name"
  for shape in 64-128 1024-2816 4096-11008; do
    # shellcheck disable=SC2086
    "$compile" "$out/set/mlp-f32-$shape.mlir" --chip=sm_90a --precision=tf32x3 $flags \
      -o "$out/$name/mlp-f32-$shape.bundle" --report=false
  done
  b=$out/$name/mlp-f32-4096-11008.bundle
  echo "$name: wait_groups $(grep -c 'wgmma.wait_group' "$b/kernels.ptx")," \
    "spills $(cat "$out/$name"/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')"
done
mv "$out/set/mlp-f32-64-128-tf32.bundle" "$out/tf32/"
rm -rf "$out/set"
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
du -sh "$out"
