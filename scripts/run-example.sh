#!/usr/bin/env bash
# The main job: builds fmlp (installing what is missing), compiles the
# bundled Llama-7B MLP block (written as torch-mlir emits it) and runs it.
#
#   1. fmlp-compile reports the block it found and the memory its plan
#      needs at T = 65536 tokens;
#   2. fmlp-run compiles the block's forward, backward and no-grad forward,
#      runs them on random inputs of a few tokens, and checks every output
#      against a float64 reference by the error-bound method.
#
# The GPU code generator is not written yet (see README, "What exists"), so
# the block runs on the CPU, through the kernel plan lowered to loops, on
# every machine. Extra arguments go to fmlp-run (e.g. --save=x --tokens=8).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FMLP_BUILD_DIR:-$root/build}
example=$root/examples/llama-7b-mlp.linalg.bf16.mlir

"$root/scripts/build.sh" >/dev/null
echo "== fmlp-compile $(basename "$example") --tokens=65536"
"$build/bin/fmlp-compile" "$example" --tokens=65536
echo
if command -v nvidia-smi >/dev/null 2>&1; then
  echo "(a GPU is present, but fmlp has no GPU code generator yet: running on the CPU)"
fi
echo "== fmlp-run $(basename "$example") on the CPU"
"$build/bin/fmlp-run" "$example" --tokens=4 "$@"
