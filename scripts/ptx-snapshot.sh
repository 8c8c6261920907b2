#!/usr/bin/env bash
# The code generator's output on a fixed set of inputs, for byte-identity
# checks of refactors (a change that must not move any kernel):
#   scripts/ptx-snapshot.sh OUT [BUILD]      (BUILD: default build/)
#   scripts/ptx-snapshot.sh --compare A B    (exit 1 if anything differs)
# OUT gets, per input, fmlp-compile's --emit=gpu-mlir (the examples on
# sm_90a, sm_80 and sm_120a, save=agu/gu/x on sm_90a; six frontend-corpus
# files with biases, [in, out] layouts and multipliers) and five bundles
# (PTX and manifest; the fp32 example also as tf32 and tf32x3). --compare
# ignores the NVPTX backend's compile time in the gpu-mlir files.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ ${1:-} == --compare ]]; then
  a=$2 b=$3 bad=0
  for f in "$a"/*; do
    n=$(basename "$f")
    if [[ -d $f ]]; then
      cmp -s "$f/kernels.ptx" "$b/$n/kernels.ptx" && cmp -s "$f/manifest.json" "$b/$n/manifest.json" ||
        { echo "differs: $n"; bad=1; }
    else
      cmp -s <(sed 's/LLVMIRToISATimeInMs = [0-9]*/T/' "$f") <(sed 's/LLVMIRToISATimeInMs = [0-9]*/T/' "$b/$n") ||
        { echo "differs: $n"; bad=1; }
    fi
  done
  [[ $bad == 0 ]] && echo "identical: $(ls "$a" | wc -l) outputs"
  exit $bad
fi
out=${1:?usage: ptx-snapshot.sh OUT [BUILD] | --compare A B}
compile=${2:-$root/build}/bin/fmlp-compile
mkdir -p "$out"
for f in "$root"/examples/*.mlir; do
  n=$(basename "$f" .mlir)
  for chip in sm_90a sm_80 sm_120a; do
    for save in agu gu x; do
      [[ $chip != sm_90a && $save != agu ]] && continue
      "$compile" "$f" --chip=$chip --save=$save --emit=gpu-mlir --report=false \
        -o "$out/$n.$chip.$save.gpu.mlir" || echo "failed: $n $chip $save"
    done
  done
done
for n in onnx-input.llama.float16.static.bias onnx-torch-mlir.falcon_h1.float32.static.bias \
         onnx-input.phi3.float32.static jax-input.gemma.bfloat16.static \
         onnx-input.mistral.float16.static jax-input.llama.bfloat16.dynamic.bias; do
  "$compile" "$root/test/Frontends/$n.mlir" --chip=sm_90a --emit=gpu-mlir --report=false \
    -o "$out/$n.gpu.mlir" || echo "failed: $n"
done
"$compile" "$root/examples/llama-7b-mlp.linalg.bf16.mlir" --chip=sm_90a -o "$out/llama-bf16.bundle" --report=false
"$compile" "$root/examples/llama-7b-mlp.linalg.f32.mlir" --chip=sm_90a -o "$out/llama-f32.bundle" --report=false
"$compile" "$root/test/Frontends/onnx-input.llama.float16.static.bias.mlir" --chip=sm_90a \
  -o "$out/onnx-f16-bias.bundle" --report=false
# fp32 contracted as tf32 (WGMMA) and tf32x3 (mma_sync).
for precision in tf32 tf32x3; do
  "$compile" "$root/examples/llama-7b-mlp.linalg.f32.mlir" --chip=sm_90a --precision=$precision \
    -o "$out/llama-f32-$precision.bundle" --report=false
done
echo "snapshot in $out"
