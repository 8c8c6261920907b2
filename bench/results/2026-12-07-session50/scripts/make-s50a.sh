#!/usr/bin/env bash
# Session 50: the bundles s50a.sh reads (issue 24: mma_sync kernels whose
# operands TMA stages, --fmlp-mma-sync-tma, beside cp.async's).
#   .device/s50/{wgmma,mma_sync,mma_tma}  bf16 at the Llama shapes, named as
#                  bench_strategies.py reads them
#   .device/s50/tests   test/GPU/make-bundles.sh's bf16 and f16 bundles with
#                  --strategy=mma_sync --fmlp-mma-sync-tma
set -euo pipefail
cd "$(dirname "$0")/../../../.."
compile=$PWD/build/bin/fmlp-compile
rm -rf .device/s50; mkdir -p .device/s50/{wgmma,mma_sync,mma_tma}
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} x="tensor<?x${d}xbf16>" w="tensor<${h}x${d}xbf16>" wd="tensor<${d}x${h}xbf16>"
  src=.device/s50/mlp-bf16-$d-$h.mlir
  cat > "$src" <<MLIR
func.func @mlp(%x: $x, %wg: $w, %wu: $w, %wd: $wd) -> $x {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : ($x, $w, $w, $wd) -> $x
  return %y : $x
}
MLIR
  "$compile" "$src" --chip=sm_90a --report=false -o .device/s50/wgmma/mlp-bf16-$d-$h.bundle
  # Call 1 ran a compiler whose --fmlp-mma-sync-tma was off by default (on
  # the pass then); since 7f7eadc it is on, so the cp.async one says =false.
  "$compile" "$src" --chip=sm_90a --strategy=mma_sync --fmlp-mma-sync-tma=false --report=false \
    -o .device/s50/mma_sync/mlp-bf16-$d-$h.bundle
  "$compile" "$src" --chip=sm_90a --strategy=mma_sync --fmlp-mma-sync-tma --report=false \
    -o .device/s50/mma_tma/mlp-bf16-$d-$h.bundle
  rm "$src"
done
DTYPES="bf16 f16" FMLP_COMPILE_FLAGS="--strategy=mma_sync --fmlp-mma-sync-tma" \
  test/GPU/make-bundles.sh .device/s50/tests || echo "make-bundles: rc=$? (LoRA bundles it could not make?)"
rm -f .device/s50/tests/*.mlir
echo "spills: $(cat .device/s50/*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')"
python3 - .device/s50/tests/*.bundle <<'PY'
import json, sys
launches = [l for b in sys.argv[1:] for e in json.load(open(b + "/manifest.json"))["entry_points"]
            for l in e["launches"] if "mma_sync" in l["kernel"]]
by_tma = sum(any("tensor_map" in p for p in l["params"]) for l in launches)
print(f"mma_sync launches staged by TMA: {by_tma} of {len(launches)}")
PY
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
du -sh .device/s50 .device/include
