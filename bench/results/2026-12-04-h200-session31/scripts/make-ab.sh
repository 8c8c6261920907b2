#!/usr/bin/env bash
# Session 31: the bundles s31a.sh and s31b.sh read, compiled here (no GPU
# needed) into .device/ab/{d0..d5}/mlp-bf16-4096-11008.bundle, and d2's
# correctness set (K1 and K2 at 32 columns: bf16 and f16 (1024, 2816), the
# bf16 edge shapes); the nlohmann-json headers into .device/include. Then
# on the device: run(carry=[".device"], "bash .../s31a.sh").
#   d0  the default         d1  K1 at 32 columns      d2  K1 and K2 at 32
#   d3  weights .L1::no_allocate                      d4  d1 + d3
#   d5  weights .L1::no_allocate in the no-grad forward's kernels only
set -euo pipefail
cd "$(dirname "$0")/../../../.."
compile=build/bin/fmlp-compile
src=$(mktemp -d)
block() {  # DTYPE D H: test/GPU/make-bundles.sh's SwiGLU block
  local t=$1 d=$2 h=$3 f="$src/mlp-$1-$2-$3.mlir"
  cat > "$f" <<MLIR
func.func @mlp(%x: tensor<?x${d}x$t>, %wg: tensor<${h}x${d}x$t>,
               %wu: tensor<${h}x${d}x$t>, %wd: tensor<${d}x${h}x$t>)
    -> tensor<?x${d}x$t> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x${d}x$t>, tensor<${h}x${d}x$t>, tensor<${h}x${d}x$t>,
         tensor<${d}x${h}x$t>) -> tensor<?x${d}x$t>
  return %y : tensor<?x${d}x$t>
}
MLIR
  echo "$f"
}
declare -A flags=(
  [d0]=""
  [d1]="--fmlp-small-tokens-gate-up-columns=32"
  [d2]="--fmlp-small-tokens-gate-up-columns=32 --fmlp-small-tokens-down-columns=32"
  [d3]="--fmlp-small-tokens-weights-l1=skip"
  [d4]="--fmlp-small-tokens-gate-up-columns=32 --fmlp-small-tokens-weights-l1=skip"
  [d5]="--fmlp-small-tokens-weights-l1=skip-nograd"
)
for v in d0 d1 d2 d3 d4 d5; do
  mkdir -p .device/ab/$v
  # shellcheck disable=SC2086
  $compile "$(block bf16 4096 11008)" --chip=sm_90a --report=false ${flags[$v]} \
    -o .device/ab/$v/mlp-bf16-4096-11008.bundle
done
for shape in bf16:1024:2816 f16:1024:2816 bf16:64:128 bf16:1088:704; do
  IFS=: read -r t d h <<<"$shape"
  # shellcheck disable=SC2086
  $compile "$(block "$t" "$d" "$h")" --chip=sm_90a --report=false ${flags[d2]} \
    -o .device/ab/d2/mlp-$t-$d-$h.bundle
done
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
rm -r "$src"
du -sh .device
