#!/usr/bin/env bash
# Session 26 (issue 25), last call: the kernels the one-box tile rule
# changed, judged again (test/GPU's bf16 edge block D = 64, H = 128, whose
# K2, K4, K5 now take 64-wide tiles; the LoRA bundles, whose adapters'
# kernels do), then PEFT on fmlp's patched models (python/tests: both
# orders, fused LoRA judged against float64, the fine-tuning run).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
{ timeout 30 $test .device/edge/mlp-bf16-64-128.bundle bf16 64 128 1 16 17 37 4096
  for t in 17 4096; do timeout 20 $test .device/lora/mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 $t; done
  timeout 20 $test .device/lora/mlp-lora-bf16-1024-2816-r16-rd0-x-c1024.bundle bf16 1024 2816 2049
  timeout 20 $test .device/lora/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 257
} > "$R/blocks.txt" 2>&1; echo "blocks rc=$? $(( $(date +%s) - s )) s"
grep -c " pass$" "$R/blocks.txt"; grep -c "failed as it must" "$R/blocks.txt"; grep -E "FAIL|PASSED" "$R/blocks.txt" | head
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache
L="$R/logs"; mkdir -p "$L"; st=0
timeout 110 python3 python/tests/gpu_peft_guard.py --compile-backend aot_eager > $L/peft-guard.log 2>&1 || st=1
echo "peft-guard $(( $(date +%s) - s )) s"
timeout 50 python3 python/tests/gpu_peft_guard.py --cases compiled_then_adapted --dtypes bf16 > $L/peft-guard-inductor.log 2>&1 || st=1
for f in $L/peft-guard*.log; do echo "== $f"; grep -E "^FAIL|passed, .* failed|^  failed:" $f | cut -c1-300; done
sed -n '/^PEFT with fmlp/,/^$/p' $L/peft-guard.log
grep -E "^(pass|FAIL).*fine-tuning|fine-tuning.*: loss" $L/peft-guard.log | cut -c1-250
exit $st
