#!/usr/bin/env bash
# Session 45, call 1 (issue 23; carry .device/s45, .device/acc45,
# .device/include, .device/none; make-s45a.sh):
# 1. the transposing producer's loads one round ahead against main's: the
#    same bits (compare_bundles.py --bitwise) and raw launches, tf32
#    and tf32x3 at both Llama shapes, T = 8192;
# 2. both branches together (loads ahead, tf32x3's weight gradients in
#    groups of 4): the block tests of the f32 set by each bound, racecheck
#    and memcheck;
# 3. the module's fp32 step beside HF's and each output's error against
#    float64 (T = 74 and 8192).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/acc45 || exit 1
V=.device/s45 N=.device/s45/set lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
for p in tf32 tf32x3; do  # highest's tensor-core kernels are tf32x3's (64 MiB carry limit)
  shapes=4096x11008,1024x2816
  timeout 150 python3 bench/compare_bundles.py $V/main/$p $V/ahead/$p $lib --dtype f32 --bitwise \
    --tokens 8192 --rounds 3 --shapes $shapes > "$R/ahead-$p.log" 2>&1
  echo "ahead-$p rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A|same bits|differ" "$R/ahead-$p.log"
done
run() { timeout 150 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
for p in tf32 tf32x3 highest; do
  run $N/mlp-f32-64-128-$p.bundle f32 64 128 1 17 129 300 4096 --contraction=$p
done
run $N/mlp-f32-1024-2816-tf32.bundle f32 1024 2816 1 129 300 513 2597 --contraction=tf32
run $N/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 17 129 2597 --contraction=tf32x3
run $N/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 83 84 257 2597 --contraction=highest
run $N/mlp-f32-1024-2816-in-out.bundle f32 1024 2816 1 300 2597 --contraction=tf32
run $N/mlp-lora-f32-1024-2816-r16-rd16-tf32x3.bundle f32 1024 2816 1 300 2597 --contraction=tf32x3
run $N/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 1 84 300 2597 --contraction=highest
run $N/mlp-f32-4096-11008-tf32x3.bundle f32 4096 11008 17 257 --contraction=tf32x3
run $N/mlp-f32-4096-11008.bundle f32 4096 11008 129 --contraction=highest
run $N/mlp-f32-1024-2816-u-c1024.bundle f32 1024 2816 17 2597 --contraction=highest
run $N/mlp-f32-1024-2816-x-c1024.bundle f32 1024 2816 17 2597 --contraction=highest
L=$R/blocks.log
echo "blocks: pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
echo "largest error/bound of a passing output: $(awk '/ pass$/{print $(NF-3)}' "$L" | sort -g | tail -1)"
for tool in racecheck memcheck; do
  for p in tf32 tf32x3; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $t $N/mlp-f32-64-128-$p.bundle f32 64 128 300 \
      --contraction=$p > "$R/$tool-$p.log" 2>&1
    echo "$tool $p rc=$? $(grep -E 'SUMMARY' "$R/$tool-$p.log") $(( $(date +%s) - s )) s"
  done
done
timeout 300 python3 bench/bench_precision.py --modes highest,tf32x3,tf32 --tokens 8192 --rounds 2 \
  --shapes 4096x11008,1024x2816 --out "$R" > "$R/precision.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| " "$R/precision.txt" | tail -8
timeout 150 python3 bench/accuracy_fp32.py --out "$R/acc" --tokens 74,8192 --bias false > "$R/acc.log" 2>&1
echo "accuracy rc=$? $(( $(date +%s) - s )) s"
grep -E "T=" "$R/acc.log" | awk '{print "T", $3, $4, "strict", $7, "highest", $9, "tf32x3", $13, "highest/strict", $20, "tf32x3/strict", $24, "tf32/high", $26}'
