#!/usr/bin/env bash
# Session 40 (issue 23), after the backward's transposing variants: the LoRA
# block at tf32 (its adapters' input_grad transposes Bg and Bu in its
# stages at T <= 256) by tf32's bound; gpu_modules.py precisions on bundles
# of this compiler (the module's training path at T = 74 through the
# transposing variants, the copies' workspaces passed null); the module
# path against Hugging Face at PyTorch's TF32, T = 1, 16, 256.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/cache40b || exit 1
t=build-gpu/fmlp-gpu-block-test L=$R/blocks.log
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 150 "$t" .device/s40e/set/mlp-lora-f32-1024-2816-r16-rd16-agu-c0.bundle f32 1024 2816 \
  1 17 129 256 257 2597 --contraction=tf32 > "$L" 2>&1
echo "lora rc=$? $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$L"), controls failed as they must: $(grep -c 'failed as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L")"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -5
timeout 150 python3 python/tests/gpu_modules.py precisions > "$R/precisions.log" 2>&1
echo "precisions rc=$? $(tail -1 "$R/precisions.log") $(( $(date +%s) - s )) s"
grep -E "^FAIL" "$R/precisions.log" | head -10
timeout 200 python3 bench/bench_sweep.py --out "$R/sweep" --dtype f32 --matmul-precision high \
  --shapes 4096x11008,1024x2816 --tokens 1,16,256 --first 1,16,256 --impls fmlp,hf_eager \
  --modes nograd,train --launches eager,graph --rounds 3 --deadline-s 170 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"
grep -E "^D=|us:|peak" "$R/sweep.log"
