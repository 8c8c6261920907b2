#!/usr/bin/env bash
# Session 26 (issue 25): the GPU lowering of LoRA adapter terms judged on
# the H200 (test/GPU's fmlp-gpu-block-test, lib/Numerics' bounds, NaN-
# poisoned outputs, graph replay, the adapters-left-out control) on the
# LoRA bundles of test/GPU/shapes.sh compiled by this tree (.device/lora),
# and compute-sanitizer memcheck on one of them.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
source test/GPU/shapes.sh
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { # BUNDLE DTYPE D H T...
  local b=$1 dt=$2 d=$3 h=$4; shift 4
  for t in "$@"; do
    timeout 120 $test .device/lora/$b $dt $d $h $t >> "$R/lora-blocks.txt" 2>&1 || echo "FAILED $b T=$t" | tee -a "$R/lora-blocks.txt"
  done
  echo "$b done $(( $(date +%s) - s )) s"
}
run mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 $gpu_test_lora_tokens
run mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 $gpu_test_lora_tokens
run mlp-lora-bf16-1024-2816-r16-rd0-x-c1024.bundle bf16 1024 2816 0 1 17 1000 1024 2049 2597 4096
run mlp-lora-f16-1024-2816-r16-rd16-gu-c0.bundle f16 1024 2816 0 1 17 65 257 2597 4096
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $test .device/lora/mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 37 > "$R/memcheck.txt" 2>&1; echo "memcheck rc=$? $(( $(date +%s) - s )) s"
tail -3 "$R/memcheck.txt"
run mlp-lora-bf16-4096-11008-r32-rd16-agu-c0.bundle bf16 4096 11008 17 4096
grep -c " pass$" "$R/lora-blocks.txt"; grep -c "failed as it must" "$R/lora-blocks.txt"
grep -E "FAIL|PASSED|FAILED" "$R/lora-blocks.txt" | head -20
grep "not counted" "$R/lora-blocks.txt" | awk '{print $NF, $0}' | head -3
