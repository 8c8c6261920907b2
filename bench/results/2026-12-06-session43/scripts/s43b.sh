#!/usr/bin/env bash
# Session 43, call 2 (issue 23; carry .device/s43b, .device/acc43,
# .device/include): tf32x3's k8s summed on the tensor core in groups of
# 2 and 4 (--fmlp-tf32x3-group-k8s; make-s43b.sh). Raw launches against
# the default (g1) at T = 8192, both Llama shapes; the block tests of g2 by
# the bound of groups of 2 (and the tf32 bundle by it: must fail);
# racecheck once; each output's error against float64 beside PyTorch
# strict's (accuracy_fp32.py) with g1's and g2's bundles.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/acc43/g1 || exit 1
V=.device/s43b lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
cmp() { local b=$1 tag=$2
  timeout 120 python3 bench/compare_bundles.py $V/g1 $V/$b $lib --dtype f32 \
    --tokens 8192 --rounds 3 --shapes 4096x11008,1024x2816 > "$R/$tag.log" 2>&1
  echo "$tag rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/$tag.log" | head -20; }
cmp g2 g1-vs-g2
cmp g4 g1-vs-g4
cmp g2n g1-vs-g2n
run() { timeout 150 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
run $V/g2/mlp-f32-64-128.bundle f32 64 128 1 17 129 300 4096 --contraction=tf32x3 --tf32x3-group-k8s=2
run $V/g2/mlp-f32-1024-2816.bundle f32 1024 2816 1 17 129 2597 --contraction=tf32x3 --tf32x3-group-k8s=2
run $V/g2/mlp-f32-4096-11008.bundle f32 4096 11008 17 257 --contraction=tf32x3 --tf32x3-group-k8s=2
run $V/g4/mlp-f32-64-128.bundle f32 64 128 1 129 4096 --contraction=tf32x3 --tf32x3-group-k8s=4
L=$R/blocks.log
echo "blocks: pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
echo "largest error/bound of a passing output: $(awk '/ pass$/{print $(NF-3)}' "$L" | sort -g | tail -1)"
timeout 60 $t $V/tf32/mlp-f32-64-128.bundle f32 64 128 129 4096 --contraction=tf32x3 --tf32x3-group-k8s=2 > "$R/negative.log" 2>&1
echo "negative control (tf32 by g2's tf32x3 bound; must fail) rc=$? failing rows $(grep -c FAIL "$R/negative.log")"
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 3 $t $V/g2/mlp-f32-64-128.bundle f32 64 128 300 --contraction=tf32x3 --tf32x3-group-k8s=2 > "$R/racecheck-g2.log" 2>&1
echo "racecheck g2 rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck-g2.log") $(( $(date +%s) - s )) s"
for g in g1 g2; do
  FMLP_CACHE_DIR=$PWD/.device/acc43/$g timeout 120 python3 bench/accuracy_fp32.py --out "$R/acc-$g" \
    --tokens 74,8192 --bias false > "$R/acc-$g.log" 2>&1
  echo "accuracy $g rc=$? $(( $(date +%s) - s )) s"
  grep -E "T=" "$R/acc-$g.log" | sed -E 's/ieee [^ ]+ +//; s/ieee\/torch [^ ]+ +//' | cut -c1-200
done
