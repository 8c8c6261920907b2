#!/usr/bin/env bash
# Session 43 (issue 23): the bundles s43d.sh reads, by this tree's compiler
# (highest's tensor-core products in groups of at most 2 k8 steps, tf32x3's
# of 4, over a static K; 1 over T):
#   .device/s43d/new    test/GPU/make-bundles.sh's f32 set (highest by
#                       default, the precision variants, LoRA r16/rd16)
#   .device/s43d/hi     highest at the Llama shapes, compare_bundles.py's names
#   .device/s43d/hi1    the same with --fmlp-tf32x3-group-k8s=1 (main's
#                       kernels: single k8 steps)
#   .device/acc43/new2  accuracy_fp32.py's and bench_precision.py's cache:
#                       (1024, 2816) at highest, ieee, tf32x3, tf32; (4096,
#                       11008) at highest and tf32x3
set -euo pipefail
cd "$(dirname "$0")/../../../.."
compile=build/bin/fmlp-compile out=.device/s43d/new
rm -rf .device/s43d .device/acc43/new2; mkdir -p "$out" .device/s43d/hi .device/s43d/hi1
DTYPES=f32 bash test/GPU/make-bundles.sh "$out" > /dev/null
for shape in 1024-2816 4096-11008; do
  $compile "$out/mlp-f32-$shape.mlir" --chip=sm_90a --precision=highest -o ".device/s43d/hi/mlp-f32-$shape.bundle" --report=false
  $compile "$out/mlp-f32-$shape.mlir" --chip=sm_90a --precision=highest --fmlp-tf32x3-group-k8s=1 \
    -o ".device/s43d/hi1/mlp-f32-$shape.bundle" --report=false
done
rm -f "$out"/*.mlir
echo "spills: $(cat "$out"/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill'), C75xx: $(cat "$out"/*.bundle/ptxas.log | grep -c 'C75')"
PYTHONPATH=python python3 - <<'PY'
import subprocess
from pathlib import Path
from fmlp.policy import DEFAULT
from fmlp.spec import BlockSpec, compile_command
directory = Path(".device/acc43/new2"); directory.mkdir(parents=True, exist_ok=True)
for d, h, precisions in ((1024, 2816, ("highest", "ieee", "tf32x3", "tf32")),
                         (4096, 11008, ("highest", "tf32x3"))):
    for precision in precisions:
        spec = BlockSpec(d, h, "f32", precision=precision, save=DEFAULT.save)
        bundle = directory / (spec.key + ".bundle")
        source = bundle.with_suffix(".mlir"); source.write_text(spec.mlir())
        command = compile_command(spec, source, bundle)
        command[0] = str(Path("build/bin/fmlp-compile").resolve())
        subprocess.run(command, check=True)
PY
du -sh .device/s43d/* .device/acc43/new2
