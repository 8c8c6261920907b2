#!/usr/bin/env bash
# Session 32: the bundles s32a.sh and s32b.sh read, compiled here (no GPU
# needed) into .device/tf32mn, and the nlohmann-json headers into
# .device/include. Then on the device: run(carry=[".device"],
# "bash bench/results/2026-12-05-h200-session32/scripts/s32a.sh"), then s32b.sh.
#   mn/        fp32 blocks at precision tf32 with the backward's MN-major
#              operands transposed in shared memory (--fmlp-tf32-wgmma-mn-
#              major): test/GPU/make-bundles.sh's f32 set at tf32 (both
#              shapes, the edge shapes, save=x and save=u in chunks of 1024,
#              LoRA r16/rd16), K1..K6 all on WGMMA
#   mn3/       the same with three landing slots (--fmlp-tf32-landing-slots=3)
#              at both shapes
#   mma/       the default (K3..K6 on mma_sync) at both shapes, for the A/B
#   cache-mn/, cache-mma/   the Python package's cache (bench_precision.py:
#              BlockSpec(D, H, "f32", precision="tf32") at both shapes)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/tf32mn
rm -rf "$out"; mkdir -p "$out/mma"
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32 --fmlp-tf32-wgmma-mn-major" \
  bash test/GPU/make-bundles.sh "$out/mn" > /dev/null
# make-bundles.sh's other precisions (its --precision after the flags'):
# not needed here.
rm -rf "$out"/mn/mlp-f32-1024-2816-tf32.bundle "$out"/mn/*-ieee.bundle "$out"/mn/*-tf32x3.bundle "$out"/mn/*-highest.bundle
for shape in 1024x2816 4096x11008; do
  mv "$out/mn/mlp-f32-${shape%x*}-${shape#*x}.mlir" "$out/mn/source-${shape%x*}-${shape#*x}.mlir"
done
# The A/B's other side: the same blocks, K3..K6 on mma_sync (the default).
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x}
  grep -q '"precision": "tf32"' "$out/mn/mlp-f32-$d-$h.bundle/manifest.json"
  build/bin/fmlp-compile "$out/mn/source-$d-$h.mlir" --chip=sm_90a --precision=tf32 \
    --fmlp-tf32-wgmma-mn-major=false --report=false -o "$out/mma/mlp-f32-$d-$h.bundle"
done
# Three landing slots (each k-step's tiles loaded two steps ahead; K5 and
# K6 then take 128-wide tiles): the A/B of the producer's lookahead.
mkdir -p "$out/mn3"
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x}
  build/bin/fmlp-compile "$out/mn/source-$d-$h.mlir" --chip=sm_90a --precision=tf32 \
    --fmlp-tf32-wgmma-mn-major --fmlp-tf32-landing-slots=3 --report=false \
    -o "$out/mn3/mlp-f32-$d-$h.bundle"
done
rm "$out"/mn/*.mlir
# The Python package's bundles: its fmlp-compile, through wrappers that
# set the knob (on for cache-mn, off for cache-mma; on by default since
# session 33).
wrap=$(mktemp -d)
for v in true false; do
  mkdir -p "$wrap/$v"
  printf '#!/bin/sh\nexec %s "$@" --fmlp-tf32-wgmma-mn-major=%s\n' "$PWD/build/bin/fmlp-compile" $v > "$wrap/$v/fmlp-compile"
  chmod +x "$wrap/$v/fmlp-compile"
done
fill() {  # CACHE_DIR PATH_PREFIX
  FMLP_CACHE_DIR=$1 PATH="$2:$PATH" PYTHONPATH="$PWD/python" python3 - <<'PY'
from fmlp.spec import BlockSpec, find_or_compile
# save="gu": the modules' default policy (session 33: without it
# bench_precision.py found no bundle).
for d, h in ((1024, 2816), (4096, 11008)):
    for save in ("agu", "gu"):
        print(find_or_compile(BlockSpec(d, h, "f32", save=save, precision="tf32")))
PY
}
fill "$out/cache-mn" "$wrap/true"
fill "$out/cache-mma" "$wrap/false"
rm -r "$wrap"
# The caches' kernels differ where they should: K3..K6 transposing in mn.
for c in cache-mn cache-mma; do
  echo "$c: $(cat "$out"/$c/*.bundle/kernels.ptx | grep -c 'fence.proxy.async.shared::cta') transposing kernels"
done
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
du -sh .device "$out"
