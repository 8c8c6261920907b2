#!/usr/bin/env bash
# Makes the Python environment that the PyTorch half of the tests runs in,
# all on the CPU (python/tests/test_ops.py: the ops under opcheck and
# torch.compile; test_lora.py: fused LoRA against PEFT;
# cpu_guard_fast_path.py: the guard on transformers' and PEFT's modules;
# gpu_peft_guard.py's dry run; bench/'s report tests: the sweep's plot,
# bench_mlp's step against autograd), and prints its
# interpreter's path. A virtual environment in $FMLP_TORCH_VENV (default
# .venv-torch/) with the versions below from PyPI; reused when it already
# has them. Prints nothing, with the reason on stderr, where it cannot be
# made (no venv module, no network, less than 8 GiB of free disk: PyPI's
# torch brings its CUDA libraries) or FMLP_SKIP_TORCH=1: those tests then
# report themselves skipped, and nothing else changes.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${FMLP_TORCH_VENV:-$root/.venv-torch}
python="$venv/bin/python"
# Known to pass the tests together (2026-12-04); the GPU machine's torch is
# 2.11, the modules are checked there.
requirements=(torch==2.15.0 transformers==5.25.0 peft==0.21.2 numpy matplotlib)

skip() {
  echo "setup-torch: $1; the torch tests will be skipped" >&2
  exit 0
}
ready() {  # every requirement imports, at its pinned version where it has one
  "$python" - "${requirements[@]}" <<'PY' 2>/dev/null
import importlib, importlib.metadata, sys
for requirement in sys.argv[1:]:
    name, _, version = requirement.partition("==")
    importlib.import_module(name)
    if version and importlib.metadata.version(name).split("+")[0] != version:
        raise SystemExit(1)
PY
}

[[ ${FMLP_SKIP_TORCH:-0} == 1 ]] && skip "FMLP_SKIP_TORCH=1"
if [[ -x $python ]] && ready; then
  echo "$python"
  exit 0
fi
free_kib=$(df -Pk "$(dirname "$venv")" | awk 'NR == 2 { print $4 }')
(( free_kib >= 8 * 1024 * 1024 )) || skip "less than 8 GiB free beside $venv"
python3 -m venv "$venv" >/dev/null 2>&1 || skip "python3 -m venv failed (python3-venv missing?)"
echo "setup-torch: installing ${requirements[*]} into $venv" >&2
"$python" -m pip install -q --disable-pip-version-check "${requirements[@]}" >&2 ||
  skip "pip install failed"
ready || skip "the installed packages do not import"
echo "$python"
