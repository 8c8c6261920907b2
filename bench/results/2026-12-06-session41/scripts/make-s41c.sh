#!/usr/bin/env bash
# Session 41 (issue 23): the tf32 token variants' tiles at T = 129..256
# (fitted for 16-bit kernels): (4096, 11008) at tf32 with fixed tiles
# (--fmlp-token-tiles) for the no-grad forward's two kernels, into
# .device/s41c/<name>/ (default/: the rule's: gate_up 64 wide, down 128
# wide in 2 slices).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s41c compile=$PWD/build/bin/fmlp-compile
rm -rf "$out" /tmp/s41-set; mkdir -p "$out"
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh /tmp/s41-set > /dev/null
src=/tmp/s41-set/mlp-f32-4096-11008.mlir name=mlp-f32-4096-11008.bundle
c() { local dir=$1; shift; mkdir -p "$out/$dir"
      "$compile" "$src" --chip=sm_90a --report=false --precision=tf32 "$@" -o "$out/$dir/$name"; }
c default
c g128-d64s4 --fmlp-token-tiles=gate_up:128:64:1,gate_up:256:128:1,down:128:128:4,down:256:64:4
c d64s2 --fmlp-token-tiles=down:128:128:4,down:256:64:2
c d64s8 --fmlp-token-tiles=down:128:128:4,down:256:64:8
c d128s4 --fmlp-token-tiles=down:128:128:4,down:256:128:4
c d128s1 --fmlp-token-tiles=down:128:128:4,down:256:128:1
c d256s1 --fmlp-token-tiles=down:128:128:4,down:256:256:1
for b in "$out"/*/*.bundle; do
  echo "$b: spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
du -sh "$out"
