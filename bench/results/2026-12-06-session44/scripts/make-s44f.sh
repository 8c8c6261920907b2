#!/usr/bin/env bash
# Session 44 (issues 23; prepared, not run): the transposing producer's
# loads one round ahead (branch s44-transpose-loads-ahead) against main's.
# Run from a checkout of main, built, with a built worktree of the branch
# at $AHEAD_ROOT (default ../ahead: git worktree add ../ahead
# s44-transpose-loads-ahead, then scripts/build.sh there):
#   .device/s44f/main/{tf32,tf32x3}   main's compiler
#   .device/s44f/ahead/{tf32,tf32x3}  the branch's
#   .device/s44f/set                  the branch's f32 set of make-bundles.sh
set -euo pipefail
cd "$(dirname "$0")/../../../.."
root=${AHEAD_ROOT:-../ahead}
main=build/bin/fmlp-compile ahead=$root/build/bin/fmlp-compile set=$(mktemp -d)
rm -rf .device/s44f; mkdir -p .device/s44f/{main,ahead}/{tf32,tf32x3}
DTYPES=f32 bash "$root/test/GPU/make-bundles.sh" "$PWD/.device/s44f/set" > /dev/null
DTYPES=f32 bash test/GPU/make-bundles.sh "$set" > /dev/null
for side in main ahead; do
  compile=${!side}
  for p in tf32 tf32x3; do
    for shape in 1024-2816 4096-11008; do
      $compile "$set/mlp-f32-$shape.mlir" --chip=sm_90a --precision=$p \
        -o ".device/s44f/$side/$p/mlp-f32-$shape.bundle" --report=false
    done
  done
done
rm -rf "$set" .device/s44f/set/*.mlir
echo "spills: $(cat .device/s44f/*/*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')"
du -sh .device/s44f/*
