"""Session 43: the f32 bundles accuracy_fp32.py reads through the modules at
(1024, 2816) without biases, one cache directory a tf32x3 grouping:
.device/acc43/g1 (the default) and .device/acc43/g2 (--fmlp-tf32x3-group-
k8s=2, which highest's tensor-core products take too), every precision the
script runs (highest, ieee, tf32x3, tf32), by this tree's compiler.

  PYTHONPATH=python python3 bench/results/2026-12-06-session43/scripts/make-cache43.py
"""
import subprocess
from pathlib import Path

from fmlp.policy import DEFAULT
from fmlp.spec import BlockSpec, compile_command

compiler = Path("build/bin/fmlp-compile").resolve()
for name, flags in (("g1", []), ("g2", ["--fmlp-tf32x3-group-k8s=2"])):
    directory = Path(".device/acc43") / name
    directory.mkdir(parents=True, exist_ok=True)
    for precision in ("highest", "ieee", "tf32x3", "tf32"):
        spec = BlockSpec(1024, 2816, "f32", precision=precision, save=DEFAULT.save)
        bundle = directory / (spec.key + ".bundle")
        source = bundle.with_suffix(".mlir")
        source.write_text(spec.mlir())
        command = compile_command(spec, source, bundle)
        command[0] = str(compiler)
        subprocess.run(command + flags, check=True)
        print(bundle, flush=True)
