#!/usr/bin/env bash
# Session 44 (issue 23): the bundles s44d.sh reads, at the Llama shapes
# (compare_bundles.py's and bench_strategies.py's names), by this tree's
# compiler (the landing default):
#   .device/s44d/tf32    --precision=tf32
#   .device/s44d/tf32x3  --precision=tf32x3 (groups of 4 k8s over a static
#                        K, 1 over T)
#   .device/s44d/x3g2    tf32x3, --fmlp-tf32x3-group-k8s=2 on every kernel
#   .device/s44d/x3g4    tf32x3, --fmlp-tf32x3-group-k8s=4 on every kernel
# (x3g2 and x3g4 ask whether the weight gradients, over T, now gain from
# longer groups: with the cp.async copies they lost 1.22-1.31x, item 90.)
set -euo pipefail
cd "$(dirname "$0")/../../../.."
compile=build/bin/fmlp-compile set=$(mktemp -d)
rm -rf .device/s44d; mkdir -p .device/s44d/{tf32,tf32x3,x3g2,x3g4}
DTYPES=f32 bash test/GPU/make-bundles.sh "$set" > /dev/null
for shape in 1024-2816 4096-11008; do
  for v in "tf32:--precision=tf32" "tf32x3:--precision=tf32x3" \
           "x3g2:--precision=tf32x3 --fmlp-tf32x3-group-k8s=2" "x3g4:--precision=tf32x3 --fmlp-tf32x3-group-k8s=4"; do
    # shellcheck disable=SC2086
    $compile "$set/mlp-f32-$shape.mlir" --chip=sm_90a ${v#*:} -o ".device/s44d/${v%%:*}/mlp-f32-$shape.bundle" --report=false
  done
done
rm -rf "$set"
echo "spills: $(cat .device/s44d/*/*.bundle/ptxas.log | grep -cE '[1-9][0-9]* bytes spill'), C75xx: $(cat .device/s44d/*/*.bundle/ptxas.log | grep -c 'C75')"
du -sh .device/s44d/*
