#!/usr/bin/env bash
# Session 49, call 7: every bf16 WGMMA kernel at the rule's tile width
# (wmain) against 128 columns a tile (w128: --fmlp-wgmma-tile-n=128; K1
# has 128 a gate and up already), raw launches beside cuBLAS in one run,
# T = 8192 and 2048, both shapes: does a tile whose columns are all
# inside N (gate_up_weight_grad at (1024, 2816): 1024 = 5 x 192 + 64,
# 12.5 % of its products on zero-filled columns) pay on a power-capped
# H100?
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so
for t in 8192 2048; do
  timeout 150 python3 bench/bench_strategies.py $lib wmain=.device/wmain w128=.device/w128 \
    --dtype bf16 --tokens $t --rounds 5 --out "$R/T$t" > "$R/strategies-T$t.txt" 2>&1
  echo "strategies T=$t rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| [a-z]|^## " "$R/T$t/strategies.md"
done
