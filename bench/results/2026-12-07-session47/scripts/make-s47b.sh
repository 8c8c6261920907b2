#!/usr/bin/env bash
# Session 47: the bundles s47b.sh reads. a47: main's bf16 bundles (copied
# from session 46's .device/c46, b2c0ceb's compiler); b47: this tree's
# compiler with --fmlp-small-tokens-max=64, through a PATH wrapper so that
# the modules' cache names and policy flags stay the package's.
set -euo pipefail
cd "$(dirname "$0")/../../../.."
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
printf '#!/bin/sh\nexec %s "$@" --fmlp-small-tokens-max=64\n' "$PWD/build/bin/fmlp-compile" > "$w/fmlp-compile"
chmod +x "$w/fmlp-compile"
rm -rf .device/a47 .device/b47; mkdir -p .device/a47 .device/b47
cp -r .device/c46/*bf16*.bundle .device/a47/
PATH=$w:$PATH FMLP_CACHE_DIR=$PWD/.device/b47 PYTHONPATH=python python3 - <<'PY'
from fmlp.policy import DEFAULT
from fmlp.spec import BlockSpec, find_or_compile
for d, h in ((1024, 2816), (4096, 11008)):
    print(find_or_compile(BlockSpec(d, h, "bf16", save=DEFAULT.save)), flush=True)
PY
