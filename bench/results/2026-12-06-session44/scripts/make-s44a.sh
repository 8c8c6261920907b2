#!/usr/bin/env bash
# Session 44 (issue 23): the bundles s44a.sh reads, by this tree's compiler
# (tf32x3's MN-major B landed by TMA and split as it is transposed, the
# default now: --fmlp-tf32x3-transpose=landing):
#   .device/s44a/new     test/GPU/make-bundles.sh's f32 set (highest by
#                        default, the precision variants, LoRA r16/rd16,
#                        save=u and save=x in chunks; LoRA r16/rd16 at
#                        tf32x3 too)
#   .device/s44a/hicopy  highest at the Llama shapes with the copies
#                        (--fmlp-tf32x3-transpose=copy), compare_bundles.py's
#                        names
#   .device/s44a/hiland  the same by the default
#   .device/s44a/x3copy, x3land  tf32x3 at the Llama shapes, the copies and
#                        the default (for the bitwise check)
#   .device/s44a/hig1    highest at (1024, 2816) in single k8 steps
#                        (--fmlp-tf32x3-group-k8s=1): other bits, the
#                        bitwise check's negative control
#   .device/acc44        accuracy_fp32.py's and bench_precision.py's cache:
#                        (1024, 2816) at highest, ieee, tf32x3, tf32;
#                        (4096, 11008) at highest, tf32x3, tf32
set -euo pipefail
cd "$(dirname "$0")/../../../.."
compile=build/bin/fmlp-compile out=.device/s44a/new
rm -rf .device/s44a .device/acc44; mkdir -p "$out" .device/s44a/{hicopy,hiland,x3copy,x3land,hig1}
DTYPES=f32 bash test/GPU/make-bundles.sh "$out" > /dev/null
for shape in 1024-2816 4096-11008; do
  $compile "$out/mlp-f32-$shape.mlir" --chip=sm_90a --precision=highest --fmlp-tf32x3-transpose=copy \
    -o ".device/s44a/hicopy/mlp-f32-$shape.bundle" --report=false
  $compile "$out/mlp-f32-$shape.mlir" --chip=sm_90a --precision=highest \
    -o ".device/s44a/hiland/mlp-f32-$shape.bundle" --report=false
  $compile "$out/mlp-f32-$shape.mlir" --chip=sm_90a --precision=tf32x3 --fmlp-tf32x3-transpose=copy \
    -o ".device/s44a/x3copy/mlp-f32-$shape.bundle" --report=false
  $compile "$out/mlp-f32-$shape.mlir" --chip=sm_90a --precision=tf32x3 \
    -o ".device/s44a/x3land/mlp-f32-$shape.bundle" --report=false
done
$compile "$out/mlp-f32-1024-2816.mlir" --chip=sm_90a --precision=highest --fmlp-tf32x3-group-k8s=1 \
  -o ".device/s44a/hig1/mlp-f32-1024-2816.bundle" --report=false
$compile "$out/mlp-lora-f32-1024-2816-r16-rd16.mlir" --chip=sm_90a --precision=tf32x3 \
  -o "$out/mlp-lora-f32-1024-2816-r16-rd16-tf32x3.bundle" --report=false
rm -f "$out"/*.mlir
echo "landing TMA loads in highest's (4096, 11008): copy $(grep -c 'cp.async.bulk.tensor' .device/s44a/hicopy/mlp-f32-4096-11008.bundle/kernels.ptx)," \
  "landing $(grep -c 'cp.async.bulk.tensor' .device/s44a/hiland/mlp-f32-4096-11008.bundle/kernels.ptx)"
echo "spills: $(cat "$out"/*.bundle/ptxas.log .device/s44a/hi*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')," \
  "C75xx: $(cat "$out"/*.bundle/ptxas.log .device/s44a/hi*/*.bundle/ptxas.log | grep -c 'C75')"
PYTHONPATH=python python3 - <<'PY'
import subprocess
from pathlib import Path
from fmlp.policy import DEFAULT
from fmlp.spec import BlockSpec, compile_command
directory = Path(".device/acc44"); directory.mkdir(parents=True, exist_ok=True)
for d, h, precisions in ((1024, 2816, ("highest", "ieee", "tf32x3", "tf32")),
                         (4096, 11008, ("highest", "tf32x3", "tf32"))):
    for precision in precisions:
        spec = BlockSpec(d, h, "f32", precision=precision, save=DEFAULT.save)
        bundle = directory / (spec.key + ".bundle")
        source = bundle.with_suffix(".mlir"); source.write_text(spec.mlir())
        command = compile_command(spec, source, bundle)
        command[0] = str(Path("build/bin/fmlp-compile").resolve())
        subprocess.run(command, check=True)
PY
du -sh .device/s44a/* .device/acc44
