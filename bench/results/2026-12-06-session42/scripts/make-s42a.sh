#!/usr/bin/env bash
# Session 42 (issue 23): where the fp32 tensor-core kernels stand at T = 8192
# on main (a28df48): tf32 and tf32x3 bundles of the Llama shapes, the
# default flags, into .device/s42a/{tf32,tf32x3}.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s42a compile=$PWD/build/bin/fmlp-compile
rm -rf "$out" /tmp/s42-set; mkdir -p "$out"
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh /tmp/s42-set > /dev/null
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} src=/tmp/s42-set/mlp-f32-$d-$h.mlir name=mlp-f32-$d-$h.bundle
  for p in tf32 tf32x3; do
    mkdir -p "$out/$p"
    "$compile" "$src" --chip=sm_90a --report=false --precision=$p -o "$out/$p/$name"
  done
done
for b in "$out"/*/*.bundle; do
  echo "$b: spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
