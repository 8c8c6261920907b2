#!/usr/bin/env bash
# The test command: builds fmlp (installing what is missing), makes the
# Python environment of the PyTorch tests (scripts/setup-torch.sh; they are
# skipped where it cannot be made), then runs every test (lit files,
# GoogleTest cases, Python tests) under ctest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FMLP_BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
torch_python=$("$root/scripts/setup-torch.sh")
if [[ -n $torch_python ]]; then
  cmake -DFMLP_TORCH_PYTHON="$torch_python" "$build" >/dev/null
fi
cd "$build"
ctest --output-on-failure -j "$(nproc)"
