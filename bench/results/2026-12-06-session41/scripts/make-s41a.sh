#!/usr/bin/env bash
# Session 41 (issue 23): the splitting producer's loads batched
# (--fmlp-wgmma-split-batch, 8 the default) against one piece at a time
# (1: the code before), and tf32's rounding in the stages at every T
# against the rounded copies past T = 512. Compiled here into .device/s41a:
#   copies/  the Llama shapes at tf32, the default (stages to T = 512, copies past)
#   all1/    tf32, every WGMMA kernel rounding in its stages, one piece at a time
#   all8/    the same, 8 pieces in flight (all4/: 4)
#   trunc/   tf32 truncating (--fmlp-tf32-round-operands=false): same_bits' control
#   x3b1/, x3b8/  tf32x3 (its producer splits B) one piece / 8 at a time
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s41a compile=$PWD/build/bin/fmlp-compile
rm -rf "$out" /tmp/s41-set; mkdir -p "$out"
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh /tmp/s41-set > /dev/null
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} src=/tmp/s41-set/mlp-f32-$d-$h.mlir name=mlp-f32-$d-$h.bundle
  c() { local dir=$1; shift; mkdir -p "$out/$dir"
        "$compile" "$src" --chip=sm_90a --report=false "$@" -o "$out/$dir/$name"; }
  c copies --precision=tf32
  c all1 --precision=tf32 --fmlp-tf32-round-in-stages-max-tokens=-1 --fmlp-wgmma-split-batch=1
  c all4 --precision=tf32 --fmlp-tf32-round-in-stages-max-tokens=-1 --fmlp-wgmma-split-batch=4
  c all8 --precision=tf32 --fmlp-tf32-round-in-stages-max-tokens=-1 --fmlp-wgmma-split-batch=8
  c trunc --precision=tf32 --fmlp-tf32-round-operands=false
  c x3b1 --precision=tf32x3 --fmlp-wgmma-split-batch=1
  c x3b8 --precision=tf32x3 --fmlp-wgmma-split-batch=8
done
for b in "$out"/*/*.bundle; do
  echo "$b: spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
du -sh "$out"
