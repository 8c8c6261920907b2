#!/usr/bin/env bash
# Session 42 (issue 23): the consumers issuing their WGMMA groups in turn
# (--fmlp-ping-pong: tf32x3, the default, or all: tf32's too), on top of
# make-s42b.sh's MN-major A in registers (tf32x3's only by default now).
# Into .device/s42c:
#   x3/        the Llama shapes at tf32x3 (the default: ping-pong)
#   tf32pp/    the Llama shapes at tf32 with --fmlp-ping-pong=all
#   tf32/      the Llama shapes at tf32, the default (no ping-pong, A of the
#              weight gradients transposed by the producer: main's kernels
#              but for the direct loads' lookahead of the transposing variants)
#   test/      block-test bundles: tf32x3 and highest at (64, 128), tf32x3
#              at (1024, 2816) and (4096, 11008); tf32 with --fmlp-ping-pong=all
#              at (64, 128), (1088, 704), LoRA r16/rd16
# Main's Llama bundles: .device/s42a; make-s42b.sh's tf32x3 (MN-major A in
# registers, no ping-pong) .device/s42b/new/x3.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s42c compile=$PWD/build/bin/fmlp-compile set=/tmp/s42-set
[[ -f $set/mlp-f32-64-128.mlir ]] || \
  DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh $set > /dev/null
rm -rf "$out"; mkdir -p "$out"/{x3,tf32pp,tf32,test}
c() { local src=$1 dst=$2; shift 2; "$compile" "$set/$src.mlir" --chip=sm_90a --report=false "$@" -o "$out/$dst"; }
for s in 1024-2816 4096-11008; do
  c mlp-f32-$s x3/mlp-f32-$s.bundle --precision=tf32x3
  c mlp-f32-$s tf32pp/mlp-f32-$s.bundle --precision=tf32 --fmlp-ping-pong=all
  c mlp-f32-$s tf32/mlp-f32-$s.bundle --precision=tf32
done
c mlp-f32-64-128 test/mlp-f32-64-128-tf32x3.bundle --precision=tf32x3
c mlp-f32-64-128 test/mlp-f32-64-128-highest.bundle --precision=highest
c mlp-f32-1024-2816 test/mlp-f32-1024-2816-tf32x3.bundle --precision=tf32x3
c mlp-f32-4096-11008 test/mlp-f32-4096-11008-tf32x3.bundle --precision=tf32x3
c mlp-f32-64-128 test/mlp-f32-64-128-tf32pp.bundle --precision=tf32 --fmlp-ping-pong=all
c mlp-f32-1088-704 test/mlp-f32-1088-704-tf32pp.bundle --precision=tf32 --fmlp-ping-pong=all
c mlp-lora-f32-1024-2816-r16-rd16 test/mlp-lora-f32-1024-2816-tf32pp.bundle --precision=tf32 --fmlp-ping-pong=all
for b in "$out"/*/*.bundle; do
  echo "$b: spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
du -sh "$out"
