#!/usr/bin/env bash
# Session 41 (issue 23): after the review, thread 0 alone (not all of warp
# 0) waits for each stage's release and issues the loads of the splitting
# producer apart. The Llama shapes at tf32 and tf32x3 and (64, 128) at both,
# into .device/s41i/new (x3/ for tf32x3), beside main's (s41a: copies/,
# trunc/, x3b1/).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s41i compile=$PWD/build/bin/fmlp-compile
rm -rf "$out" /tmp/s41-set; mkdir -p "$out"/{new/x3,main}
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh /tmp/s41-set > /dev/null
for s in 1024-2816 4096-11008 64-128; do
  "$compile" /tmp/s41-set/mlp-f32-$s.mlir --chip=sm_90a --report=false --precision=tf32 -o "$out/new/mlp-f32-$s.bundle"
  "$compile" /tmp/s41-set/mlp-f32-$s.mlir --chip=sm_90a --report=false --precision=tf32x3 -o "$out/new/x3/mlp-f32-$s.bundle"
done
for v in copies trunc x3b1; do cp -r .device/s41a/$v "$out/main/"; done
for b in "$out"/new/*.bundle "$out"/new/x3/*.bundle; do
  echo "$b: spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
du -sh "$out"
