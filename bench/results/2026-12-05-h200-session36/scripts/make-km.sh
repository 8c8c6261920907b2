#!/usr/bin/env bash
# Session 36: the bundles s36b.sh reads, compiled here into .device/km, all
# with --fmlp-k-major-weights (fmlp-transpose-weights: the backward's
# down_grad and input_grad read K-major copies of Wd, Wg, Wu that one
# transpose kernel per weight writes into workspaces):
#   set/     test/GPU/make-bundles.sh's f32 set at precision tf32 (both Llama
#            shapes, save=x and save=u in chunks of 1024, LoRA r16/rd16) and
#            its precision variants (tf32 at 64-128 and 1088-704, tf32x3 at
#            1024-2816, 64-128 and 4096-11008, highest at 64-128)
#   km-tf32/, km-x3/     the Llama shapes at tf32 / tf32x3 with the flag
#   base-tf32/, base-x3/ the same without it (=false: the flag is the
#            default from call 2 on): compare_bundles.py's A side
# KM_OUT (default .device/km) makes the set elsewhere.
#   cache/   the Python package's cache (bench_precision.py: tf32 and tf32x3,
#            save agu and gu, both shapes) with the flag
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${KM_OUT:-.device/km} compile=$PWD/build/bin/fmlp-compile flags="--fmlp-k-major-weights"
rm -rf "$out"; mkdir -p "$out"/{km-tf32,km-x3,base-tf32,base-x3}
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32 $flags" bash test/GPU/make-bundles.sh "$out/set" > /dev/null
rm -rf "$out"/set/*-ieee.bundle
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} src="$out/set/mlp-f32-$d-$h.mlir"
  for p in tf32 x3; do
    precision=$p; [[ $p == x3 ]] && precision=tf32x3
    "$compile" "$src" --chip=sm_90a --precision=$precision $flags -o "$out/km-$p/mlp-f32-$d-$h.bundle" --report=false
    "$compile" "$src" --chip=sm_90a --precision=$precision --fmlp-k-major-weights=false \
      -o "$out/base-$p/mlp-f32-$d-$h.bundle" --report=false
  done
done
rm -f "$out"/set/*.mlir
wrap=$(mktemp -d)
printf '#!/bin/sh\nexec %s "$@" %s\n' "$compile" "$flags" > "$wrap/fmlp-compile"
chmod +x "$wrap/fmlp-compile"
FMLP_CACHE_DIR=$out/cache PATH="$wrap:$PATH" PYTHONPATH="$PWD/python" python3 - <<'PY'
from fmlp.spec import BlockSpec, find_or_compile
for d, h in ((1024, 2816), (4096, 11008)):
    for precision in ("tf32", "tf32x3"):
        for save in ("agu", "gu"):
            print(find_or_compile(BlockSpec(d, h, "f32", save=save, precision=precision)))
PY
rm -r "$wrap"
# Each bundle: its transposes and spills (none).
for b in "$out"/set/*.bundle "$out"/km-*/*.bundle "$out"/cache/*.bundle; do
  echo "$b: $(grep -c 'entry .*transpose' "$b/kernels.ptx") transposes," \
    "spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
du -sh "$out"
