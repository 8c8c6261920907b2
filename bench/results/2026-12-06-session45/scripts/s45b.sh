#!/usr/bin/env bash
# Session 45 (issue 23; carry .device/s45b, .device/s45, .device/include; make-s45b.sh):
# with both branches (the loads ahead, tf32x3's groups of 4 over T), each
# fp32 tensor-core kernel beside cuBLAS at T = 8192 (tf32 against TF32,
# tf32x3 against strict); Nsight Compute of tf32's gate_up and
# gate_up_weight_grad at (4096, 11008), and bf16's gate_up.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/none || exit 1
B=.device/s45b lib=build-gpu/lib/libfmlp_runtime.so
for p in high highest; do
  timeout 150 python3 bench/bench_strategies.py $lib tf32=.device/s45/ahead/tf32 tf32x3=$B/tf32x3 \
    --dtype f32 --torch-precision $p --rounds 2 --out "$R" > "$R/strategies-$p.txt" 2>&1
  echo "strategies $p rc=$? $(( $(date +%s) - s )) s"; tail -16 "$R/strategies-$p.txt"
done
run_ncu() {  # NAME BUNDLES KERNEL-REGEX [DTYPE]
  timeout 90 ncu -k regex:$3 -c 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section InstructionStats \
    python3 bench/bench_strategies.py $lib $1=$2 --dtype ${4:-f32} \
    --shapes 4096x11008 --rounds 1 > "$R/ncu-$1-$3.txt" 2>&1
  echo "ncu $1 $3 rc=$? $(( $(date +%s) - s )) s"
  grep -E "Issue Slots Busy|Eligible Warps|Compute \(SM\) Throughput|L1/TEX Cache Throughput|Mem Pipes|Shared Memory|Tensor|Duration|Stall" "$R/ncu-$1-$3.txt" | head -20
}
run_ncu tf32 .device/s45/ahead/tf32 mlp_backward_k6_gate_up_weight_grad
run_ncu tf32 .device/s45/ahead/tf32 mlp_forward_k3_gate_up$
# item 98's lead: does bf16's gate_up (A read from shared memory by both
# B's WGMMAs) wait on shared memory?
run_ncu bf16 $B/bf16 mlp_forward_k0_gate_up$ bf16
echo "done $(( $(date +%s) - s )) s"
