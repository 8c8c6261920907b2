#!/usr/bin/env bash
# Session 37 (issue 23; prepared, not run: no device machine was lent): the
# bundles s37a.sh and s37b.sh read, compiled here into .device/round (or
# ROUND_OUT), tf32 with its operands rounded to nearest
# (--fmlp-tf32-round-operands: fmlp-round-tf32-weights, bench/NOTES.md
# item 82) unless named base:
#   set/        test/GPU/make-bundles.sh's f32 set at precision tf32 (both
#               Llama shapes, save=x and save=u in chunks of 1024, LoRA
#               r16/rd16, the tf32 edge shapes 64-128 and 1088-704)
#   round/, base/   the Llama shapes at tf32 with and without the flag
#               (compare_bundles.py's B and A sides)
#   cache/      the Python package's cache with the flag: accuracy_fp32.py's
#               specs (highest, ieee, tf32, tf32x3; (1024, 2816) with and
#               without biases, (4096, 11008)) and bench_precision.py's
#               tf32 at save=agu and gu (the flag changes tf32's kernels
#               only)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${ROUND_OUT:-.device/round} compile=$PWD/build/bin/fmlp-compile
flags="--fmlp-tf32-round-operands"
rm -rf "$out"; mkdir -p "$out"/{round,base}
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32 $flags" bash test/GPU/make-bundles.sh "$out/set" > /dev/null
rm -rf "$out"/set/*-ieee.bundle "$out"/set/*-tf32x3.bundle "$out"/set/*-highest.bundle
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} src="$out/set/mlp-f32-$d-$h.mlir"
  "$compile" "$src" --chip=sm_90a --precision=tf32 $flags -o "$out/round/mlp-f32-$d-$h.bundle" --report=false
  "$compile" "$src" --chip=sm_90a --precision=tf32 -o "$out/base/mlp-f32-$d-$h.bundle" --report=false
done
rm -f "$out"/set/*.mlir
wrap=$(mktemp -d)
printf '#!/bin/sh\nexec %s "$@" %s\n' "$compile" "$flags" > "$wrap/fmlp-compile"
chmod +x "$wrap/fmlp-compile"
FMLP_CACHE_DIR=$out/cache PATH="$wrap:$PATH" PYTHONPATH="$PWD/python" python3 - <<'PY'
from fmlp.policy import DEFAULT
from fmlp.spec import BlockSpec, find_or_compile
for precision in ("highest", "ieee", "tf32", "tf32x3"):
    for d, h, bias in ((1024, 2816, False), (1024, 2816, True), (4096, 11008, False)):
        print(find_or_compile(BlockSpec(d, h, "f32", bias=bias, precision=precision, save=DEFAULT.save)))
for d, h in ((1024, 2816), (4096, 11008)):
    for save in ("agu", "gu"):
        print(find_or_compile(BlockSpec(d, h, "f32", precision="tf32", save=save)))
PY
rm -r "$wrap"
# Each bundle: its rounded copies and register-sourced WGMMAs, spills (none).
for b in "$out"/set/*.bundle "$out"/round/*.bundle "$out"/cache/*.bundle; do
  echo "$b: $(grep -c 'entry .*round_to_tf32' "$b/kernels.ptx") rounded copies," \
    "$(grep -cE 'k8.f32.tf32.tf32 \{[^}]*\}, \{' "$b/kernels.ptx") register-A WGMMAs," \
    "spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
du -sh "$out"
