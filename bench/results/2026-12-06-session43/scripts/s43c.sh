#!/usr/bin/env bash
# Session 43, call 3 (issue 23; carry .device/s43c, .device/s43b/g1,
# .device/acc43, .device/include): tf32x3 (and highest's tensor-core
# products) in groups of 4 k8s over a static K, 1 over T (make-s43c.sh):
# the module's training step beside HF's; raw launches against main's
# (g1); the block tests by the default bound (groups of up to 4); the
# negative control; memcheck and racecheck; each output's error against
# float64 beside PyTorch strict's, main's and this tree's bundles.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/acc43/new || exit 1
N=.device/s43c/new lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 150 python3 bench/bench_precision.py --modes tf32x3,tf32 --tokens 8192 --rounds 2 --shapes 4096x11008,1024x2816 \
  --out "$R" > "$R/precision.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| \(" "$R/precision.txt" | tail -2
cmp() { local tokens=$1 tag=$2
  timeout 120 python3 bench/compare_bundles.py .device/s43b/g1 .device/s43c/x3 $lib --dtype f32 \
    --tokens $tokens --rounds 3 --shapes 4096x11008,1024x2816 > "$R/$tag.log" 2>&1
  echo "$tag rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/$tag.log" | grep -v transpose; }
cmp 8192 main-vs-new-8192
cmp 257,1024 main-vs-new-small
run() { timeout 150 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
run $N/mlp-f32-64-128-tf32x3.bundle f32 64 128 1 17 129 300 4096 --contraction=tf32x3
run $N/mlp-f32-64-128-highest.bundle f32 64 128 1 83 84 129 4096 --contraction=highest
run $N/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 17 129 2597 --contraction=tf32x3
run $N/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 83 84 257 2597 --contraction=highest
run $N/mlp-lora-f32-1024-2816-r16-rd16-tf32x3.bundle f32 1024 2816 1 300 2597 --contraction=tf32x3
run $N/mlp-f32-4096-11008-tf32x3.bundle f32 4096 11008 17 257 --contraction=tf32x3
run $N/mlp-f32-1088-704.bundle f32 1088 704 1 129 2049 --contraction=highest
run $N/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 17 2597 --contraction=highest
run $N/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 17 2597 --contraction=highest
L=$R/blocks.log
echo "blocks: pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
echo "largest error/bound of a passing output: $(awk '/ pass$/{print $(NF-3)}' "$L" | sort -g | tail -1)"
timeout 60 $t $N/mlp-f32-64-128-tf32.bundle f32 64 128 129 4096 --contraction=tf32x3 > "$R/negative.log" 2>&1
echo "negative control (tf32 by tf32x3's bound; must fail) rc=$? failing rows $(grep -c FAIL "$R/negative.log")"
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 3 $t $N/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 300 --contraction=tf32x3 > "$R/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/memcheck.log") $(( $(date +%s) - s )) s"
for p in tf32x3 highest; do
  timeout 90 compute-sanitizer --tool racecheck --error-exitcode 3 $t $N/mlp-f32-64-128-$p.bundle f32 64 128 300 --contraction=$p > "$R/racecheck-$p.log" 2>&1
  echo "racecheck $p rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck-$p.log") $(( $(date +%s) - s )) s"
done
for g in g1 new; do
  (( $(date +%s) - s > 500 )) && { echo "skip accuracy $g: time"; continue; }
  FMLP_CACHE_DIR=$PWD/.device/acc43/$g timeout 90 python3 bench/accuracy_fp32.py --out "$R/acc-$g" \
    --tokens 74,8192 --bias false > "$R/acc-$g.log" 2>&1
  echo "accuracy $g rc=$? $(( $(date +%s) - s )) s"
  grep -E "T=" "$R/acc-$g.log" | awk '{print "T", $3, $4, "strict", $7, "highest", $9, "tf32x3", $13, "highest/strict", $20, "tf32x3/strict", $24}'
done
