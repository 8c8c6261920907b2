#!/usr/bin/env bash
# Session 46 (the H200's numbers for issues 22, 23 and 24, by main's
# compiler): the bundles s46a.sh and s46b.sh read.
#   .device/c46       the modules' cache (FMLP_CACHE_DIR): bf16 at the
#                     Llama shapes (bench_sweep.py), f32 at highest, tf32x3
#                     and tf32 (bench_precision.py)
#   .device/s46/{wgmma,mma_sync,simt}   bf16 at the Llama shapes per
#                     strategy, named as bench_strategies.py reads them
set -euo pipefail
cd "$(dirname "$0")/../../../.."
compile=$PWD/build/bin/fmlp-compile
rm -rf .device/c46 .device/s46; mkdir -p .device/s46/{wgmma,mma_sync,simt}
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} x="tensor<?x${d}xbf16>" w="tensor<${h}x${d}xbf16>" wd="tensor<${d}x${h}xbf16>"
  src=.device/s46/mlp-bf16-$d-$h.mlir
  cat > "$src" <<MLIR
func.func @mlp(%x: $x, %wg: $w, %wu: $w, %wd: $wd) -> $x {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : ($x, $w, $w, $wd) -> $x
  return %y : $x
}
MLIR
  for strategy in wgmma mma_sync simt; do
    "$compile" "$src" --chip=sm_90a --strategy=${strategy/wgmma/auto} --report=false \
      -o .device/s46/$strategy/mlp-bf16-$d-$h.bundle
  done
  rm "$src"
done
PATH=$PWD/build/bin:$PATH FMLP_CACHE_DIR=$PWD/.device/c46 PYTHONPATH=python python3 - <<'PY'
from fmlp.policy import DEFAULT
from fmlp.spec import BlockSpec, find_or_compile
for d, h in ((1024, 2816), (4096, 11008)):
    print(find_or_compile(BlockSpec(d, h, "bf16", save=DEFAULT.save)), flush=True)
    for precision in ("highest", "tf32x3", "tf32"):
        print(find_or_compile(BlockSpec(d, h, "f32", precision=precision, save=DEFAULT.save)), flush=True)
PY
echo "spills: $(cat .device/s46/*/*.bundle/ptxas.log .device/c46/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')"
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
du -sh .device/c46 .device/s46 .device/include
