#!/usr/bin/env bash
# Session 42, call 1 (issue 23): each fp32 tensor-core kernel of main beside
# cuBLAS at T = 8192 (tf32 against cuBLAS TF32, tf32x3 against strict fp32),
# and Nsight Compute's view of tf32x3's gate_up and gate_up_weight_grad and
# tf32's gate_up at (4096, 11008): where their warps stall, how busy the
# tensor pipe and shared memory are (.device/s42a, make-s42a.sh).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/none || exit 1
B=.device/s42a
for p in high highest; do
  timeout 200 python3 bench/bench_strategies.py $FMLP_RUNTIME_LIB tf32=$B/tf32 tf32x3=$B/tf32x3 \
    --dtype f32 --torch-precision $p --rounds 3 --out "$R" > "$R/strategies-$p.txt" 2>&1
  echo "strategies $p rc=$? $(( $(date +%s) - s )) s"; tail -18 "$R/strategies-$p.txt"
done
run_ncu() {  # NAME BUNDLES KERNEL-REGEX
  timeout 150 ncu -k regex:$3 -c 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section InstructionStats --section SourceCounters \
    python3 bench/bench_strategies.py $FMLP_RUNTIME_LIB $1=$2 --dtype f32 \
    --shapes 4096x11008 --rounds 1 > "$R/ncu-$1-$3.txt" 2>&1
  echo "ncu $1 $3 rc=$? $(( $(date +%s) - s )) s"
  grep -E "Stall|Issue Slot|Warp Cycles|Eligible|Active Warps|Compute \(SM\) Throughput|Memory Throughput|No Eligible|Registers Per|Bank|Shared|Tensor|Duration" "$R/ncu-$1-$3.txt" | head -40
}
run_ncu tf32x3 $B/tf32x3 mlp_forward_k0_gate_up
run_ncu tf32x3 $B/tf32x3 mlp_backward_k6_gate_up_weight_grad
run_ncu tf32 $B/tf32 mlp_forward_k0_gate_up
echo "done $(( $(date +%s) - s )) s"
