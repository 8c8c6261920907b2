#!/usr/bin/env bash
# Session 36, one call: (1) issue 23: the 30-step fp32 training check
# (python/tests/gpu_modules.py train: a small LlamaForCausalLM, D = 1024, H
# = 2816, AdamW, HF and fmlp against float64 from the same start; fp32 at
# PyTorch's default setting, so fmlp's `highest`: tf32x3 on WGMMA with the
# K-major weight copies, this tree's default; bundles of mk36t.py in
# .device/train36). (2) issue 22: session 31's s31a.sh in part: K1 (d1) and
# K1 + K2 (d2) small_tokens blocks of 32 columns and 16 warps against the
# default (d0), raw launches, 7 alternating rounds, (4096, 11008), T = 1, 4,
# 16 (.device/ab, session 31's make-ab.sh); d2's block tests.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/train36 || exit 1
nvidia-smi --query-gpu=name --format=csv > "$R/gpu.txt"
timeout 200 python3 python/tests/gpu_modules.py train > "$R/train.log" 2>&1
echo "train rc=$? $(( $(date +%s) - s )) s"; grep -v "per step" "$R/train.log" | tail -6
for v in d1 d2; do
  timeout 100 python3 bench/compare_bundles.py .device/ab/d0 .device/ab/$v build-gpu/lib/libfmlp_runtime.so \
    --tokens 1,4,16 --shapes 4096x11008 --entries-only --rounds 7 > "$R/ab-$v.txt" 2>&1
  echo "ab $v rc=$? $(( $(date +%s) - s )) s"; grep -E "B/A" "$R/ab-$v.txt"
done
t=build-gpu/fmlp-gpu-block-test b=.device/ab/d2
{
  timeout 60 $t $b/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 3 8 9 16 17
  timeout 40 $t $b/mlp-f16-1024-2816.bundle f16 1024 2816 1 16
  timeout 30 $t $b/mlp-bf16-64-128.bundle bf16 64 128 1 2 16 17
  timeout 40 $t $b/mlp-bf16-1088-704.bundle bf16 1088 704 1 15 16 17
  timeout 100 $t $b/mlp-bf16-4096-11008.bundle bf16 4096 11008 16
} > "$R/blocks-d2.txt" 2>&1
echo "blocks rc=$? $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' "$R/blocks-d2.txt") failures: $(grep -cE 'FAIL|CONTROL PASSED' "$R/blocks-d2.txt")"
