#!/usr/bin/env bash
# Session 44 (issue 23): tf32x3's weight gradients in groups of 4 k8 steps
# (the rule 4 over T too: branch s44-tf32x3-g4-over-t, not yet main's;
# build it first): the bundles s44e.sh reads, by that tree's compiler:
#   .device/s44e/new     test/GPU/make-bundles.sh's tf32x3 bundles ((64,
#                        128), (1024, 2816), (4096, 11008), LoRA r16/rd16)
#   .device/s44e/x3      tf32x3 at the Llama shapes, compare_bundles.py's
#                        names (against make-s44d.sh's .device/s44d/tf32x3,
#                        the rule before: 1 over T)
#   .device/acc44b       make-s44a.sh's .device/acc44 with its tf32x3
#                        bundles compiled again
set -euo pipefail
cd "$(dirname "$0")/../../../.."
compile=build/bin/fmlp-compile set=$(mktemp -d) out=.device/s44e/new
rm -rf .device/s44e .device/acc44b; mkdir -p "$out" .device/s44e/x3
DTYPES=f32 bash test/GPU/make-bundles.sh "$set" > /dev/null
cp -r "$set"/mlp-f32-64-128-tf32x3.bundle "$set"/mlp-f32-1024-2816-tf32x3.bundle "$out"/
for shape in 1024-2816 4096-11008; do
  $compile "$set/mlp-f32-$shape.mlir" --chip=sm_90a --precision=tf32x3 -o ".device/s44e/x3/mlp-f32-$shape.bundle" --report=false
done
cp -r .device/s44e/x3/mlp-f32-4096-11008.bundle "$out/mlp-f32-4096-11008-tf32x3.bundle"
$compile "$set/mlp-lora-f32-1024-2816-r16-rd16.mlir" --chip=sm_90a --precision=tf32x3 \
  -o "$out/mlp-lora-f32-1024-2816-r16-rd16-tf32x3.bundle" --report=false
rm -rf "$set"
echo "spills: $(cat .device/s44e/*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill'), C75xx: $(cat .device/s44e/*/*.bundle/ptxas.log | grep -c 'C75')"
cp -r .device/acc44 .device/acc44b
PYTHONPATH=python python3 - <<'PY'
import shutil, subprocess
from pathlib import Path
from fmlp.policy import DEFAULT
from fmlp.spec import BlockSpec, compile_command
directory = Path(".device/acc44b")
for d, h in ((1024, 2816), (4096, 11008)):
    spec = BlockSpec(d, h, "f32", precision="tf32x3", save=DEFAULT.save)
    bundle = directory / (spec.key + ".bundle")
    shutil.rmtree(bundle)
    source = bundle.with_suffix(".mlir"); source.write_text(spec.mlir())
    command = compile_command(spec, source, bundle)
    command[0] = str(Path("build/bin/fmlp-compile").resolve())
    subprocess.run(command, check=True)
PY
du -sh .device/s44e/* .device/acc44b
