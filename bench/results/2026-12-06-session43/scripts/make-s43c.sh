#!/usr/bin/env bash
# Session 43 (issue 23): the bundles s43c.sh reads, by this tree's compiler
# (tf32x3 in groups of 4 k8s over a static K, 1 over T; highest's as long
# as its bound allows):
#   .device/s43c/new   test/GPU/make-bundles.sh's f32 set (highest by
#                      default, the precision variants, LoRA r16/rd16) and
#                      a LoRA block at tf32x3
#   .device/s43c/x3    tf32x3 at the Llama shapes, named as compare_bundles.py
#                      reads them
#   .device/acc43/new  accuracy_fp32.py's and bench_precision.py's cache:
#                      (1024, 2816) at highest, ieee, tf32x3, tf32; (4096,
#                      11008) at tf32x3 and tf32
# (.device/s43b/g1 and .device/acc43/g1, main's, from make-s43b.sh and
# make-cache43.py.)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
out=.device/s43c/new
rm -rf .device/s43c; mkdir -p "$out"
DTYPES=f32 bash test/GPU/make-bundles.sh "$out" > /dev/null
build/bin/fmlp-compile "$out/mlp-lora-f32-1024-2816-r16-rd16.mlir" --chip=sm_90a --precision=tf32x3 \
  -o "$out/mlp-lora-f32-1024-2816-r16-rd16-tf32x3.bundle" --report=false
mkdir -p .device/s43c/x3
for shape in 1024-2816 4096-11008; do  # compare_bundles.py's names
  build/bin/fmlp-compile "$out/mlp-f32-$shape.mlir" --chip=sm_90a --precision=tf32x3 \
    -o ".device/s43c/x3/mlp-f32-$shape.bundle" --report=false
done
rm -f "$out"/*.mlir
echo "spills: $(cat "$out"/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill'), C75xx: $(cat "$out"/*.bundle/ptxas.log | grep -c 'C75')"
PYTHONPATH=python python3 - <<'PY'
import subprocess
from pathlib import Path
from fmlp.policy import DEFAULT
from fmlp.spec import BlockSpec, compile_command
directory = Path(".device/acc43/new"); directory.mkdir(parents=True, exist_ok=True)
for d, h, precisions in ((1024, 2816, ("highest", "ieee", "tf32x3", "tf32")),
                         (4096, 11008, ("tf32x3", "tf32"))):
    for precision in precisions:
        spec = BlockSpec(d, h, "f32", precision=precision, save=DEFAULT.save)
        bundle = directory / (spec.key + ".bundle")
        source = bundle.with_suffix(".mlir"); source.write_text(spec.mlir())
        command = compile_command(spec, source, bundle)
        command[0] = str(Path("build/bin/fmlp-compile").resolve())
        subprocess.run(command, check=True)
PY
du -sh .device/s43c .device/acc43/* .device/s43b/g1
