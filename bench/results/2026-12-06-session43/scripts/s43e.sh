#!/usr/bin/env bash
# Session 43e (carry .device/x3land, .device/include; make-x3land.sh):
# tf32x3's weight gradients (K4, K6) with B landed by TMA and split as the
# producer transposes it (--fmlp-tf32x3-transpose=landing) against the
# default cp.async copies (copy). Raw launches copy vs landing at T = 8192,
# both Llama shapes; the block tests of the landing bundles by tf32x3's
# bound; racecheck and memcheck once at (64, 128), T = 300.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/none || exit 1
V=.device/x3land lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 150 python3 bench/compare_bundles.py $V/copy $V/landing $lib --dtype f32 \
  --tokens 8192 --rounds 3 --shapes 4096x11008,1024x2816 > "$R/copy-vs-landing.log" 2>&1
echo "copy-vs-landing rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/copy-vs-landing.log" | head -20
run() { timeout 150 $t "$@" >> "$R/blocks.log" 2>&1 || echo "FAILED: $*" >> "$R/blocks.log"; }
run $V/landing/mlp-f32-64-128.bundle f32 64 128 1 17 129 300 4096 --contraction=tf32x3
run $V/landing/mlp-f32-1024-2816.bundle f32 1024 2816 1 17 129 2597 --contraction=tf32x3
run $V/landing/mlp-f32-4096-11008.bundle f32 4096 11008 17 257 --contraction=tf32x3
L=$R/blocks.log
echo "blocks: pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
echo "largest error/bound of a passing output: $(awk '/ pass$/{print $(NF-3)}' "$L" | sort -g | tail -1)"
for tool in racecheck memcheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 3 $t $V/landing/mlp-f32-64-128.bundle f32 64 128 300 \
    --contraction=tf32x3 > "$R/$tool-landing.log" 2>&1
  echo "$tool landing rc=$? $(grep -E 'SUMMARY' "$R/$tool-landing.log") $(( $(date +%s) - s )) s"
done
