#!/usr/bin/env bash
# Session 42 (issue 23): an MN-major fp32 A read by the consumers into
# registers as TMA stores it (--fmlp-tf32-mn-major-a-in-registers, on), the
# producer transposing B alone. Into .device/s42b:
#   new/     test/GPU/make-bundles.sh's f32 set (the Llama shapes at tf32,
#            (64, 128), (1088, 704), (1024, 2816) at tf32 and tf32x3, highest
#            at (64, 128), LoRA r16/rd16 at tf32, [in, out] (1024, 2816),
#            save=u / save=x in chunks)
#   new/x3/  the Llama shapes at tf32x3
#   trunc/   the Llama shapes at tf32 truncating (same_bits.py's control)
# Main's Llama bundles are .device/s42a/{tf32,tf32x3} (make-s42a.sh).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s42b compile=$PWD/build/bin/fmlp-compile
rm -rf "$out"; mkdir -p "$out"/{new/x3,trunc}
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh "$out/new" > /dev/null
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} src=$out/new/mlp-f32-$d-$h.mlir name=mlp-f32-$d-$h.bundle
  "$compile" "$src" --chip=sm_90a --report=false --precision=tf32x3 -o "$out/new/x3/$name"
  "$compile" "$src" --chip=sm_90a --report=false --precision=tf32 --fmlp-tf32-round-operands=false \
    -o "$out/trunc/$name"
done
rm -f "$out"/new/*.mlir
for b in "$out"/*/*.bundle "$out"/new/x3/*.bundle; do
  echo "$b: spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
du -sh "$out"
