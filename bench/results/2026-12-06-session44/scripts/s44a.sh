#!/usr/bin/env bash
# Session 44, call 1 (issue 23; carry .device/s44a, .device/include;
# make-s44a.sh): tf32x3's MN-major B landed by TMA and split as it is
# transposed, now the default. Bitwise: the default's training step against
# the copies' (tf32x3 and highest, both Llama shapes, T = 8192), and a
# negative control (highest in single k8 steps, other bits); raw launches
# of highest copy vs landing; the block tests of the default's bundles
# (tf32x3, highest, LoRA at both, save=u and save=x in chunks) by their
# bounds; racecheck and memcheck.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/none || exit 1
V=.device/s44a N=.device/s44a/new lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
ab() { local a=$1 b=$2 tag=$3; shift 3
  timeout 150 python3 bench/compare_bundles.py $a $b $lib --dtype f32 --bitwise "$@" > "$R/$tag.log" 2>&1
  echo "$tag rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A|same bits" "$R/$tag.log" | grep -v transpose; }
ab $V/hicopy $V/hiland highest-copy-vs-landing --tokens 8192 --rounds 3 --shapes 4096x11008,1024x2816
ab $V/x3copy $V/x3land tf32x3-copy-vs-landing --tokens 8192,300 --rounds 1 --entries-only --shapes 4096x11008,1024x2816
ab $V/hig1 $V/hiland negative-control-g1-vs-g2 --tokens 8192 --rounds 1 --entries-only --shapes 1024x2816
run() { timeout 150 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
run $N/mlp-f32-64-128-tf32x3.bundle f32 64 128 1 17 129 300 4096 --contraction=tf32x3
run $N/mlp-f32-64-128-highest.bundle f32 64 128 1 83 84 129 4096 --contraction=highest
run $N/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 17 129 2597 --contraction=tf32x3
run $N/mlp-f32-1024-2816.bundle f32 1024 2816 0 1 83 84 257 2597 --contraction=highest
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
  for p in highest tf32x3; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $t $N/mlp-f32-64-128-$p.bundle f32 64 128 300 \
      --contraction=$p > "$R/$tool-$p.log" 2>&1
    echo "$tool $p rc=$? $(grep -E 'SUMMARY' "$R/$tool-$p.log") $(( $(date +%s) - s )) s"
  done
done
