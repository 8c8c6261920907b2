#!/usr/bin/env bash
# Session 49, call 6: bf16's gate_up_weight_grad at (1024, 2816) is 0.76x
# cuBLAS's speed at T = 8192 (session 46) and 1.23x its time at T = 2048
# (call 5), while down_weight_grad, the same layouts (both operands
# MN-major, K = T), is at 0.96x: Nsight Compute of both, T = 8192, and of
# bench_strategies' raw launches beside cuBLAS.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so F=/tmp/s49-bf16
mkdir -p $F && ln -sfn "$PWD/.device/c49/fmlp0.3.0-d1024-h2816-bf16-silu-sm_90a-savegu.bundle" \
  $F/mlp-bf16-1024-2816.bundle
timeout 60 python3 bench/bench_strategies.py $lib wgmma=$F --dtype bf16 --shapes 1024x2816 \
  --rounds 3 --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| [a-z]" "$R/strategies.md"
for k in mlp_backward_k3_gate_up_weight_grad mlp_backward_k1_down_weight_grad; do
  timeout 90 ncu -k regex:$k -c 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section LaunchStats \
    python3 bench/bench_strategies.py $lib wgmma=$F --dtype bf16 \
    --shapes 1024x2816 --rounds 1 > "$R/ncu-$k.txt" 2>&1
  echo "ncu $k rc=$? $(( $(date +%s) - s )) s"
  grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Hit|L1/TEX Hit|Issue Slots Busy|Eligible Warps|Tensor|Waves Per SM|Registers Per|SM Frequency" "$R/ncu-$k.txt" | head -20
done
