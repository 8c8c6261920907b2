#!/usr/bin/env bash
# Everything the GPU measures, in one go (one device call): correctness
# (test/GPU/run.sh full, T up to 65536, with compute-sanitizer), per-kernel and per-step timings against cuBLAS, eager and
# torch.compile (bench/bench_mlp.py), and K1's SASS. Bundles come from
# test/GPU/make-bundles.sh, compiled where fmlp is built.
#   bench/run-on-gpu.sh BUNDLES OUTDIR [JSON_INCLUDE_DIR]
set -uo pipefail
bundles=${1:?usage: run-on-gpu.sh BUNDLES OUTDIR [JSON_INCLUDE_DIR]}
out=${2:?usage: run-on-gpu.sh BUNDLES OUTDIR [JSON_INCLUDE_DIR]}
json=${3:-}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
export PYTHONUNBUFFERED=1
bash "$root/test/GPU/run.sh" "$bundles" full $json > "$out/gpu-test.log" 2>&1
echo "correctness: exit $? ($(grep -c ' pass$' "$out/gpu-test.log") outputs pass," \
  "$(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$out/gpu-test.log") failures)"
cuobjdump -sass "$bundles/mlp-bf16-4096-11008.bundle/kernels.cubin" 2>&1 |
  grep -E "Function|HGMMA|UTMALDG|LDL|STL" | sed 's/ *\/\* 0x[0-9a-f]* \*\///' > "$out/sass-summary.txt"
timeout 300 python3 "$root/bench/bench_mlp.py" "$bundles" "$root/build-gpu/lib/libfmlp_runtime.so" \
  --out "$out/bench.json" --tokens 8192,32768 2>&1 | grep -v -i "warn\|execution_engine" | tee "$out/bench.log"
