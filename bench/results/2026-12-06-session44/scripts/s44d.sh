#!/usr/bin/env bash
# Session 44, call 2 (issue 23; carry .device/s44d, .device/include;
# make-s44d.sh): with the landing default, each fp32 tensor-core kernel
# beside cuBLAS at T = 8192 (tf32 against TF32, tf32x3 against strict);
# tf32x3 in groups of 2 and 4 on every kernel against the rule's (the
# weight gradients' times are the question); Nsight Compute's view of
# tf32x3's gate_up and gate_up_weight_grad and tf32's gate_up_weight_grad
# at (4096, 11008).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/none || exit 1
B=.device/s44d lib=build-gpu/lib/libfmlp_runtime.so
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
for p in high highest; do
  timeout 150 python3 bench/bench_strategies.py $lib tf32=$B/tf32 tf32x3=$B/tf32x3 \
    --dtype f32 --torch-precision $p --rounds 2 --out "$R" > "$R/strategies-$p.txt" 2>&1
  echo "strategies $p rc=$? $(( $(date +%s) - s )) s"; tail -16 "$R/strategies-$p.txt"
done
for g in 2 4; do
  timeout 120 python3 bench/compare_bundles.py $B/tf32x3 $B/x3g$g $lib --dtype f32 \
    --tokens 8192 --rounds 3 --shapes 4096x11008,1024x2816 > "$R/rule-vs-g$g.log" 2>&1
  echo "rule vs g$g rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/rule-vs-g$g.log"
done
run_ncu() {  # NAME BUNDLES KERNEL-REGEX
  timeout 120 ncu -k regex:$3 -c 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section InstructionStats \
    python3 bench/bench_strategies.py $lib $1=$2 --dtype f32 \
    --shapes 4096x11008 --rounds 1 > "$R/ncu-$1-$3.txt" 2>&1
  echo "ncu $1 $3 rc=$? $(( $(date +%s) - s )) s"
  grep -E "Issue Slots Busy|Eligible Warps|Compute \(SM\) Throughput|L1/TEX Cache Throughput|Mem Pipes|Shared Memory|Bank|Tensor|Duration|Stall" "$R/ncu-$1-$3.txt" | head -24
}
run_ncu tf32x3 $B/tf32x3 mlp_forward_k0_gate_up
run_ncu tf32x3 $B/tf32x3 mlp_backward_k6_gate_up_weight_grad
run_ncu tf32 $B/tf32 mlp_backward_k6_gate_up_weight_grad
echo "done $(( $(date +%s) - s )) s"
