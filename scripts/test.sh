#!/usr/bin/env bash
# The test command: builds fmlp (installing what is missing), then runs every
# test (lit files and GoogleTest cases) under ctest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FMLP_BUILD_DIR:-$root/build}

"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
