#!/usr/bin/env bash
# Session 41 (issue 23): tf32's rounding bound at 1024 (TileSelection's
# roundingTokenVariants: the kernel_config's tiles rounding in their stages
# up to the bound), with the splitting producer in one loop (loop/) or
# apart (apart/: warp 0 loads, warps 1..3 split), against main's bound of
# 512 (main/: s41a's copies/, compiled before both changes). Run with
# APART=1 on a tree with the apart producer (it compiles apart/ only),
# then without on one without (loop/); into .device/s41d.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s41d compile=$PWD/build/bin/fmlp-compile
dir=${APART:+apart}; dir=${dir:-loop}
mkdir -p "$out/$dir" /tmp/s41-set
[[ -f /tmp/s41-set/mlp-f32-64-128.mlir ]] ||
  DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh /tmp/s41-set > /dev/null
[[ -d $out/main ]] || cp -r .device/s41a/copies "$out/main"
[[ -d $out/trunc ]] || cp -r .device/s41a/trunc "$out/trunc"
for s in 1024-2816 4096-11008 64-128 1088-704; do
  "$compile" /tmp/s41-set/mlp-f32-$s.mlir --chip=sm_90a --report=false --precision=tf32 \
    -o "$out/$dir/mlp-f32-$s.bundle"
  echo "$dir/$s: spills: $(grep -E '[1-9][0-9]* bytes spill' "$out/$dir/mlp-f32-$s.bundle/ptxas.log" | wc -l)"
done
du -sh "$out"
