#!/usr/bin/env bash
# Session 42, call 2 (issue 23; carry .device/s42a, .device/s42b,
# .device/include): an MN-major fp32 A read into registers by the consumers
# (make-s42b.sh). The block tests by each precision's bound (the weight
# gradients, K4 and K6, read two MN-major operands at every T), memcheck
# and racecheck once, same bits as main's bundles (the truncating bundle
# the control that must differ), then raw launches against main's and each
# kernel beside cuBLAS.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/none || exit 1
M=.device/s42a N=.device/s42b/new lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
run() { timeout 200 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
run $N/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 17 129 257 2049 2597 --contraction=tf32
run $N/mlp-f32-64-128-tf32.bundle f32 64 128 1 17 300 2049 4096 --contraction=tf32
run $N/mlp-f32-1088-704-tf32.bundle f32 1088 704 1 129 2049 --contraction=tf32
run $N/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 17 129 2597 --contraction=tf32x3
run $N/mlp-f32-64-128-tf32x3.bundle f32 64 128 1 129 4096 --contraction=tf32x3
run $N/mlp-f32-64-128-highest.bundle f32 64 128 1 83 84 129 4096 --contraction=highest
run $N/mlp-f32-4096-11008-tf32x3.bundle f32 4096 11008 17 257 --contraction=tf32x3
run $N/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 1 300 2597 --contraction=tf32
run $N/mlp-f32-1024-2816-in-out.bundle f32 1024 2816 1 257 2597 --contraction=tf32
run $N/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 17 2597 --contraction=tf32
run $N/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 17 2597 --contraction=tf32
L=$R/blocks.log
echo "blocks: $(grep -E 'failure\(s\)' "$L" | tr '\n' ' ') pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 3 $t $N/mlp-f32-1088-704-tf32.bundle f32 1088 704 300 --contraction=tf32 > "$R/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/memcheck.log") $(( $(date +%s) - s )) s"
for p in tf32 tf32x3; do
  timeout 120 compute-sanitizer --tool racecheck --error-exitcode 3 $t $N/mlp-f32-64-128-$p.bundle f32 64 128 300 --contraction=$p > "$R/racecheck-$p.log" 2>&1
  echo "racecheck $p rc=$? $(grep -E 'RACECHECK SUMMARY' "$R/racecheck-$p.log") $(( $(date +%s) - s )) s"
done
export PYTHONPATH=$PYTHONPATH:$PWD/bench/results/2026-12-06-session41/scripts
timeout 150 python3 bench/results/2026-12-06-session41/scripts/same_bits.py $M/tf32 $N .device/s42b/trunc \
  --tokens 1,257,2049 --shapes 1024x2816,4096x11008 > "$R/same-bits-tf32.log" 2>&1
echo "same bits tf32 rc=$? $(tail -2 "$R/same-bits-tf32.log" | tr '\n' ' ') $(( $(date +%s) - s )) s"
timeout 150 python3 bench/results/2026-12-06-session41/scripts/same_bits.py $M/tf32x3 $N/x3 .device/s42b/trunc \
  --tokens 1,2049 --shapes 1024x2816,4096x11008 > "$R/same-bits-tf32x3.log" 2>&1
echo "same bits tf32x3 rc=$? $(tail -2 "$R/same-bits-tf32x3.log" | tr '\n' ' ') $(( $(date +%s) - s )) s"
cmp() { local a=$1 b=$2 tokens=$3 shapes=$4 tag=$5 limit=$6
  timeout $limit python3 bench/compare_bundles.py $a $b $lib --dtype f32 \
    --tokens $tokens --rounds 3 --shapes $shapes > "$R/$tag.log" 2>&1
  echo "$tag rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A|weight_grad|step|nograd" "$R/$tag.log" | head -40; }
cmp $M/tf32 $N 8192 4096x11008,1024x2816 tf32-main-vs-new 150
cmp $M/tf32x3 $N/x3 8192 4096x11008,1024x2816 tf32x3-main-vs-new 200
timeout 200 python3 bench/bench_strategies.py $lib tf32=$N tf32x3=$N/x3 \
  --dtype f32 --torch-precision high --rounds 3 --out "$R" > "$R/strategies-high.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; tail -9 "$R/strategies-high.txt"
