#!/usr/bin/env bash
# Session 41 (issue 23): the splitting producer apart (warp 0 loads, warps
# 1..3 split: WgmmaGemm.cpp's splitsApart) against the one loop (s41a's
# bundles, compiled before the change: copies/, all8/, trunc/, x3b8/ taken
# from .device/s41a). Compiled here into .device/s41b:
#   apart/     tf32, every WGMMA kernel rounding in its stages (-1)
#   default/   tf32, the default rule (stages to T = 512, copies past)
#   x3apart/   tf32x3
#   set/       (64, 128) at tf32 (-1) and tf32x3 for racecheck
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s41b compile=$PWD/build/bin/fmlp-compile
rm -rf "$out" /tmp/s41-set; mkdir -p "$out"/{set,old}
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh /tmp/s41-set > /dev/null
for v in copies all8 trunc x3b8; do cp -r .device/s41a/$v "$out/old/"; done
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} src=/tmp/s41-set/mlp-f32-$d-$h.mlir name=mlp-f32-$d-$h.bundle
  c() { local dir=$1; shift; mkdir -p "$out/$dir"
        "$compile" "$src" --chip=sm_90a --report=false "$@" -o "$out/$dir/$name"; }
  c apart --precision=tf32 --fmlp-tf32-round-in-stages-max-tokens=-1
  c default --precision=tf32
  c x3apart --precision=tf32x3
done
"$compile" /tmp/s41-set/mlp-f32-64-128.mlir --chip=sm_90a --report=false --precision=tf32 \
  --fmlp-tf32-round-in-stages-max-tokens=-1 -o "$out/set/mlp-f32-64-128-tf32.bundle"
"$compile" /tmp/s41-set/mlp-f32-64-128.mlir --chip=sm_90a --report=false --precision=tf32x3 \
  -o "$out/set/mlp-f32-64-128-tf32x3.bundle"
for b in "$out"/*/*.bundle "$out"/old/*/*.bundle; do
  echo "$b: spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
du -sh "$out"
