#!/usr/bin/env bash
# The main job: builds fmlp (installing what is missing), then compiles the
# bundled Llama-7B MLP example, written as torch-mlir emits it, and reports
# the gated MLP block fmlp found in it, then shows the IR it became.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FMLP_BUILD_DIR:-$root/build}
example=${1:-$root/examples/llama-7b-mlp.linalg.bf16.mlir}

"$root/scripts/build.sh" >/dev/null
echo "== fmlp-compile $(basename "$example")"
"$build/bin/fmlp-compile" "$example"
echo
echo "== the IR after fmlp's pipeline"
"$build/bin/fmlp-compile" "$example" --report=false --emit=mlir
