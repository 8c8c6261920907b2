#!/usr/bin/env bash
# Session 46, call 4 (carry .device/g46s, .device/include; g46s is
# python/tests/make-gpu-cache.sh's cache less the benchmarks' policy,
# tensor-parallel, f16 and (4096, 11008) bundles: the 64 MB carry limit):
# the regimes users run, on main's kernels (the fp32 kernels changed in
# sessions 42-45 and were judged by the block tests only):
# gpu_modules.py's modules, precisions, regimes (checkpointing,
# torch.compile dynamic), graph-step (a whole step in one CUDA graph),
# tiny, train (30 AdamW steps, fp32 and bf16); the fp32 blocks at
# T = 65536 by the block tests (sampled reference), each precision.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/g46s || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
for mode in modules precisions regimes graph-step tiny train; do
  timeout 150 python3 python/tests/gpu_modules.py $mode > "$R/modules-$mode.log" 2>&1
  echo "$mode rc=$? $(grep -c '^pass' "$R/modules-$mode.log") pass, $(tail -1 "$R/modules-$mode.log") $(( $(date +%s) - s )) s"
  grep -E "^FAIL" "$R/modules-$mode.log" | head -5
done
t=build-gpu/fmlp-gpu-block-test C=.device/g46s L=$R/blocks-65536.log
for p in highest tf32x3 tf32; do
  timeout 100 $t $C/fmlp0.3.0-d1024-h2816-f32-silu-sm_90a-savegu-$p.bundle f32 1024 2816 65536 \
    --contraction=$p >> "$L" 2>&1 || echo "FAILED: $p" >> "$L"
done
echo "blocks at 65536: pass: $(grep -c ' pass$' "$L"), controls as they must: $(grep -c 'as it must' "$L"), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' "$L") $(( $(date +%s) - s )) s"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" "$L" | head -8
