#!/usr/bin/env bash
# Session 51: the bundles s51a.sh reads (issue 24). The mma_sync kernels
# staged by TMA now release their slots on mbarriers (no block barrier a
# k-tile) and take their tiles in grouped order; sm_120 stages 2 k-tiles of
# 128-byte rows by TMA; --fmlp-mma-sync-blocks-per-multiprocessor=2 now
# runs two blocks of 4 warps on 64 x 64 warp tiles.
#   .device/s51/{mma,mma_2b,mma_2b_cpa,mma_s2,mma_cpa}  bf16 at the Llama
#        shapes: the default, two blocks a multiprocessor (by TMA and by
#        cp.async, as sm_80 would run them), 2 stages in PTX 8.7
#        (what sm_120 runs, TMA loads into shared::cta, on the H100's
#        chip), cp.async (in the grid's order, as before)
#   .device/s51/tests    test/GPU/make-bundles.sh's bf16 and f16 bundles,
#        --strategy=mma_sync
#   .device/s51/tests2b  bf16 (1024, 2816), (64, 128), (1088, 704), f16
#        (1024, 2816) and a LoRA block with two blocks a multiprocessor
#   .device/s51/tests-s2 the same with 2 stages in PTX 8.7 (sm_120's)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
compile=$PWD/build/bin/fmlp-compile
rm -rf .device/s51; mkdir -p .device/s51/{mma,mma_2b,mma_2b_cpa,mma_s2,mma_cpa,tests2b,tests-s2}
declare -A flags=([mma]="" [mma_2b]="--fmlp-mma-sync-blocks-per-multiprocessor=2"
  [mma_2b_cpa]="--fmlp-mma-sync-blocks-per-multiprocessor=2 --fmlp-mma-sync-tma=false"
  [mma_s2]="--fmlp-mma-sync-stages=2 --fmlp-ptx-version=87" [mma_cpa]="--fmlp-mma-sync-tma=false")
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} x="tensor<?x${d}xbf16>" w="tensor<${h}x${d}xbf16>" wd="tensor<${d}x${h}xbf16>"
  src=.device/s51/mlp-bf16-$d-$h.mlir
  cat > "$src" <<MLIR
func.func @mlp(%x: $x, %wg: $w, %wu: $w, %wd: $wd) -> $x {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : ($x, $w, $w, $wd) -> $x
  return %y : $x
}
MLIR
  for v in "${!flags[@]}"; do
    "$compile" "$src" --chip=sm_90a --strategy=mma_sync ${flags[$v]} --report=false \
      -o .device/s51/$v/mlp-bf16-$d-$h.bundle
  done
  rm "$src"
done
DTYPES="bf16 f16" FMLP_COMPILE_FLAGS="--strategy=mma_sync" \
  test/GPU/make-bundles.sh .device/s51/tests > /dev/null || echo "make-bundles: rc=$?"
rm -f .device/s51/tests/*.mlir
for v in "tests2b:--fmlp-mma-sync-blocks-per-multiprocessor=2" "tests-s2:--fmlp-mma-sync-stages=2 --fmlp-ptx-version=87"; do
  dir=${v%%:*} tmp=$(mktemp -d)
  DTYPES="bf16 f16" FMLP_COMPILE_FLAGS="--strategy=mma_sync ${v#*:}" \
    test/GPU/make-bundles.sh "$tmp" > /dev/null || true
  for b in mlp-bf16-1024-2816 mlp-f16-1024-2816 mlp-bf16-64-128 mlp-bf16-1088-704 \
           mlp-lora-bf16-1024-2816-r32-rd16-agu-c0; do
    mv "$tmp/$b.bundle" .device/s51/$dir/
  done
  rm -rf "$tmp"
done
echo "spills: $(cat .device/s51/*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')"
grep -h "Used" .device/s51/*/*.bundle/ptxas.log | sort | uniq -c | sort -rn | head -5
python3 - .device/s51/tests/*.bundle <<'PY'
import json, sys
launches = [l for b in sys.argv[1:] for e in json.load(open(b + "/manifest.json"))["entry_points"]
            for l in e["launches"] if "mma_sync" in l["kernel"]]
by_tma = sum(any("tensor_map" in p for p in l["params"]) for l in launches)
print(f"mma_sync launches staged by TMA: {by_tma} of {len(launches)}")
PY
for s in 1024-2816 4096-11008; do
  cmp .device/s51/mma_cpa/mlp-bf16-$s.bundle/kernels.cubin .device/s50/mma_sync/mlp-bf16-$s.bundle/kernels.cubin &&
    echo "cp.async cubin of $s: session 50's"
done
echo "shared::cta loads in tests-s2: $(cat .device/s51/tests-s2/*.bundle/kernels.ptx | grep -c 'shared::cta.global')"
du -sh .device/s51/*
