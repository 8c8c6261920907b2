#!/usr/bin/env bash
# Session 45 (issue 23): the bundles s45a.sh reads. Three compilers, each
# built from its tree and passed by path:
#   MAIN   main at 159aced
#   AHEAD  main + branch s44-transpose-loads-ahead (the transposing
#          producer's loads one round ahead)
#   BOTH   AHEAD + branch s44-tf32x3-g4-over-t (tf32x3's weight gradients
#          in groups of 4 k8 steps)
# into
#   .device/s45/{main,ahead}/{tf32,tf32x3,highest}  the Llama shapes, for (highest removed before the call: 64 MiB carry limit)
#          compare_bundles.py --bitwise (ahead must give main's bits)
#   .device/s45/set   BOTH's f32 set of test/GPU/make-bundles.sh (run from
#          BOTH's tree) and LoRA r16/rd16 at tf32x3
#   .device/acc45     accuracy_fp32.py's and bench_precision.py's cache by BOTH
set -euo pipefail
cd "$(dirname "$0")/../../../.."
: "${MAIN:?} ${AHEAD:?} ${BOTH:?}"
set=$(mktemp -d) out=.device/s45/set
rm -rf .device/s45 .device/acc45; mkdir -p "$out"
# make-bundles.sh compiles with its tree's build/bin/fmlp-compile: this
# tree, built as BOTH.
cmp -s "$BOTH" build/bin/fmlp-compile || { echo "build/bin/fmlp-compile is not BOTH"; exit 1; }
DTYPES=f32 bash test/GPU/make-bundles.sh "$out" > /dev/null
"$BOTH" "$out/mlp-lora-f32-1024-2816-r16-rd16.mlir" --chip=sm_90a --precision=tf32x3 \
  -o "$out/mlp-lora-f32-1024-2816-r16-rd16-tf32x3.bundle" --report=false
for side in main ahead; do
  compile=$MAIN; [[ $side == ahead ]] && compile=$AHEAD
  for p in tf32 tf32x3 highest; do
    for shape in 1024-2816 4096-11008; do
      "$compile" "$out/mlp-f32-$shape.mlir" --chip=sm_90a --precision=$p \
        -o ".device/s45/$side/$p/mlp-f32-$shape.bundle" --report=false
    done
  done
done
rm -f "$out"/*.mlir
echo "spills: $(cat .device/s45/*/*/*.bundle/ptxas.log "$out"/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill')," \
  "C75xx: $(cat .device/s45/*/*/*.bundle/ptxas.log "$out"/*.bundle/ptxas.log | grep -c 'C75')"
PYTHONPATH=python python3 - <<'PY'
import os, subprocess
from pathlib import Path
from fmlp.policy import DEFAULT
from fmlp.spec import BlockSpec, compile_command
directory = Path(".device/acc45"); directory.mkdir(parents=True, exist_ok=True)
for d, h, precisions in ((1024, 2816, ("highest", "ieee", "tf32x3", "tf32")),
                         (4096, 11008, ("highest", "tf32x3", "tf32"))):
    for precision in precisions:
        spec = BlockSpec(d, h, "f32", precision=precision, save=DEFAULT.save)
        bundle = directory / (spec.key + ".bundle")
        source = bundle.with_suffix(".mlir"); source.write_text(spec.mlir())
        command = compile_command(spec, source, bundle)
        command[0] = os.environ["BOTH"]
        subprocess.run(command, check=True)
PY
rm -rf "$set"
du -sh .device/s45/* .device/acc45
