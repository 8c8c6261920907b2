#!/usr/bin/env bash
# Session 43 (issue 23, tf32x3's speed): the bundles s43b.sh reads, into
# .device/s43b/<variant>/mlp-f32-<D>-<H>.bundle, tf32x3 at (64, 128),
# (1024, 2816), (4096, 11008):
#   g1   the default (each k8's three products one WGMMA group)
#   g2   --fmlp-tf32x3-group-k8s=2 (two k8s summed from zero on the tensor
#        core before the wait and the fp32 adds: half the waits and adds)
#   g4   --fmlp-tf32x3-group-k8s=4 (a whole k-step a group)
#   g2n  g2 without the consumers' ping-pong
# and tf32/ (the tf32 bundle of (64, 128): the negative control).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s43b compile=$PWD/build/bin/fmlp-compile
rm -rf "$out"; mkdir -p "$out"/tf32
DTYPES=f32 bash test/GPU/make-bundles.sh "$out/set" > /dev/null
for v in "g1:" "g2:--fmlp-tf32x3-group-k8s=2" "g4:--fmlp-tf32x3-group-k8s=4" \
         "g2n:--fmlp-tf32x3-group-k8s=2 --fmlp-ping-pong=none"; do
  name=${v%%:*} flags=${v#*:}
  mkdir -p "$out/$name"
  for shape in 64-128 1024-2816 4096-11008; do
    # shellcheck disable=SC2086
    "$compile" "$out/set/mlp-f32-$shape.mlir" --chip=sm_90a --precision=tf32x3 $flags \
      -o "$out/$name/mlp-f32-$shape.bundle" --report=false
  done
  b=$out/$name/mlp-f32-4096-11008.bundle
  echo "$name: wait_groups $(grep -c 'wgmma.wait_group' "$b/kernels.ptx")," \
    "spills $(cat "$out/$name"/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')," \
    "C75xx $(cat "$out/$name"/*.bundle/ptxas.log | grep -c 'C75')"
done
"$compile" "$out/set/mlp-f32-64-128.mlir" --chip=sm_90a --precision=tf32 \
  -o "$out/tf32/mlp-f32-64-128.bundle" --report=false
rm -rf "$out/set"
du -sh "$out"
