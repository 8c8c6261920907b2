#!/usr/bin/env bash
# Session 39 (issue 23: tf32's rounded copies at few tokens): the bundles
# s39a.sh reads, compiled here into .device/stages (or STAGES_OUT):
#   set/        test/GPU/make-bundles.sh's f32 set at precision tf32 with the
#               default rule (the WGMMA token variants of T <= 2048 read the
#               weights as stored and round B in their stages; the rounded
#               copies launched only for the T the other kernels serve),
#               less what s39a.sh does not test
#   copies/, stages/, all/   the Llama shapes at tf32 with
#               --fmlp-tf32-round-in-stages-max-tokens=0 (session 38's
#               bundles: copies at every T), the default (2048), and -1
#               (every kernel rounds in its stages: no copy at all), for
#               compare_bundles.py and same_bits.py
#   trunc/      the same with --fmlp-tf32-round-operands=false (truncating:
#               same_bits.py's control)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=${STAGES_OUT:-.device/stages} compile=$PWD/build/bin/fmlp-compile
rm -rf "$out"; mkdir -p "$out"/{copies,stages,all,trunc}
DTYPES=f32 FMLP_COMPILE_FLAGS="--precision=tf32" bash test/GPU/make-bundles.sh "$out/set" > /dev/null
cd "$out/set"
keep="mlp-f32-1024-2816.bundle mlp-f32-4096-11008.bundle mlp-f32-64-128-tf32.bundle
  mlp-f32-1088-704-tf32.bundle mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle
  mlp-f32-1024-2816-x-c1024.bundle"
for b in *.bundle; do [[ " $(echo $keep) " == *" $b "* ]] || rm -rf "$b"; done
cd - > /dev/null
for shape in 1024x2816 4096x11008; do
  d=${shape%x*} h=${shape#*x} src="$out/set/mlp-f32-$d-$h.mlir"
  for ab in copies:0 stages:2048 all:-1; do
    "$compile" "$src" --chip=sm_90a --precision=tf32 --report=false \
      --fmlp-tf32-round-in-stages-max-tokens=${ab#*:} -o "$out/${ab%:*}/mlp-f32-$d-$h.bundle"
  done
  "$compile" "$src" --chip=sm_90a --precision=tf32 --report=false \
    --fmlp-tf32-round-operands=false -o "$out/trunc/mlp-f32-$d-$h.bundle"
done
rm -f "$out"/set/*.mlir
for b in "$out"/*/*.bundle; do
  echo "$b: $(grep -c '\.entry .*round_in_stages' "$b/kernels.ptx") kernels rounding in stages," \
    "copies: $(python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(sorted({(l['kernel'].split('_k')[-1], l.get('min_tokens',1)) for e in m['entry_points'] for l in e['launches'] if 'round_to_tf32' in l['kernel']}))" "$b/manifest.json")," \
    "spills: $(grep -E '[1-9][0-9]* bytes spill' "$b/ptxas.log" | wc -l)"
done
mkdir -p .device/include && cp -r /usr/include/nlohmann .device/include/
du -sh "$out"
