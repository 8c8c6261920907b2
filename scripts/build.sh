#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), then configures and builds fmlp
# in $FMLP_BUILD_DIR (default: build/).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FMLP_BUILD_DIR:-$root/build}

"$root/scripts/setup.sh"
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build"
