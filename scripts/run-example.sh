#!/usr/bin/env bash
# The main job: builds fmlp (installing what is missing), compiles the
# bundled Llama-7B MLP block (written as torch-mlir emits it) and runs it.
#
#   1. fmlp-compile reports the block it found and the memory its plan
#      needs at T = 65536 tokens, and writes its kernel bundle for the H100/
#      H200 (sm_90a) to build/llama-7b-mlp.bundle (ptxas-checked cubin and
#      PTX, launch manifest); fmlp-bundle-info shows it as the runtime does.
#   2. With an NVIDIA GPU (nvidia-smi answers) and the CUDA toolkit, the
#      bundle's forward, backward and no-grad forward run on the GPU through
#      fmlp's runtime and are judged against a float64 reference
#      (test/GPU/BlockTest.cpp; a GPU other than sm_90 gets a bundle
#      compiled for it, with its chip's strategy from the README's table:
#      mma_sync since sm_80). Otherwise the same plan runs
#      on the CPU (fmlp-run, lowered to loops) and is judged the same way.
# Extra arguments go to fmlp-run (e.g. --save=x --tokens=8).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FMLP_BUILD_DIR:-$root/build}
example=$root/examples/llama-7b-mlp.linalg.bf16.mlir
bundle=$build/llama-7b-mlp.bundle

"$root/scripts/build.sh" >/dev/null
chip=sm_90a
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  capability=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
  [[ $capability == 90 ]] || chip=sm_$capability
fi
echo "== fmlp-compile $(basename "$example") --tokens=65536 --chip=$chip -o $bundle"
rm -rf "$bundle"
"$build/bin/fmlp-compile" "$example" --tokens=65536 --chip="$chip" -o "$bundle"
echo
"$build/bin/fmlp-bundle-info" "$bundle" --tokens=65536
echo
if [[ -n ${capability:-} ]] && command -v nvcc >/dev/null 2>&1; then
  echo "== on the GPU ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)): fmlp-gpu-block-test"
  cmake -S "$root/test/GPU" -B "$build/gpu" -G Ninja >/dev/null
  cmake --build "$build/gpu" >/dev/null
  "$build/gpu/fmlp-gpu-block-test" "$bundle" bf16 4096 11008 37 4096
else
  echo "== no GPU here: fmlp-run $(basename "$example") on the CPU"
  "$build/bin/fmlp-run" "$example" --tokens=4 "$@"
fi
