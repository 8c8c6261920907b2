#!/usr/bin/env bash
# Session 35, call 5 (issue 23): the 30-step fp32 training check
# (python/tests/gpu_modules.py train: a small LlamaForCausalLM, D = 1024, H
# = 2816, AdamW, HF and fmlp against float64 from the same start) with this
# tree's default, `highest` on tf32x3 WGMMA kernels (bundles compiled here
# into .device/train35 by find_or_compile).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/train35 || exit 1
timeout ${S35E_SECONDS:-150} python3 python/tests/gpu_modules.py train > "$R/train.log" 2>&1
echo "train rc=$? $(( $(date +%s) - s )) s"; grep -v "per step" "$R/train.log" | tail -12
