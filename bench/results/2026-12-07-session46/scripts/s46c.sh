#!/usr/bin/env bash
# Session 46, call 3 (same carry as s46a.sh; session 45's s45b.sh on main's
# bundles): each fp32 tensor-core kernel beside cuBLAS at T = 8192 (tf32
# against TF32, tf32x3 against strict), then Nsight Compute of tf32's
# gate_up_weight_grad and gate_up and of bf16's gate_up at (4096, 11008)
# (item 98's lead: do bf16's gate_up WGMMAs, both reading A from shared
# memory, wait on it?).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c46 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so F=/tmp/s46-f32
for p in tf32 tf32x3; do  # bench_strategies.py's names, linked to the cache's bundles
  mkdir -p $F/$p
  for shape in 1024-2816 4096-11008; do
    ln -sfn "$PWD/.device/c46/fmlp0.3.0-d${shape%-*}-h${shape#*-}-f32-silu-sm_90a-savegu-$p.bundle" \
      $F/$p/mlp-f32-$shape.bundle
  done
done
for p in high highest; do
  timeout 150 python3 bench/bench_strategies.py $lib tf32=$F/tf32 tf32x3=$F/tf32x3 \
    --dtype f32 --torch-precision $p --rounds 2 --out "$R" > "$R/strategies-$p.txt" 2>&1
  echo "strategies $p rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| [a-z]" "$R/strategies-f32-$p.md"
done
run_ncu() {  # NAME BUNDLES KERNEL-REGEX [DTYPE]
  timeout 60 ncu -k regex:$3 -c 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section InstructionStats \
    python3 bench/bench_strategies.py $lib $1=$2 --dtype ${4:-f32} \
    --shapes 4096x11008 --rounds 1 > "$R/ncu-$1-$3.txt" 2>&1
  echo "ncu $1 $3 rc=$? $(( $(date +%s) - s )) s"
  grep -E "Issue Slots Busy|Eligible Warps|Compute \(SM\) Throughput|L1/TEX Cache Throughput|Mem Pipes|Shared Memory|Tensor|Duration|Stall" "$R/ncu-$1-$3.txt" | head -20
}
run_ncu tf32 $F/tf32 mlp_backward_k6_gate_up_weight_grad
run_ncu tf32 $F/tf32 mlp_forward_k3_gate_up$
run_ncu bf16 .device/s46/wgmma mlp_forward_k0_gate_up$ bf16
echo "done $(( $(date +%s) - s )) s"
