#!/usr/bin/env bash
# Session 47, call 1 (carry .device/p46, .device/c46, .device/include;
# bundles by main at 65841b7, whose compiler is b2c0ceb's: session 46's
# make-s46.sh and make-s46-caches.sh). Session 46's s46f.sh, less the bf16
# Nsight Compute run (done in session 46), plus the issue-23 bar on an H200:
# 1. gpu_modules.py precisions, its tf32-by-tf32x3 control now at (64, 128);
# 2. on an H200 only: bench_precision.py (the module's fp32 step beside HF,
#    T = 8192, both shapes), the bar of issue 23;
# 3. each fp32 tensor-core kernel beside cuBLAS (tf32 against TF32, tf32x3
#    against strict), T = 8192, and Nsight Compute of tf32's gate_up and
#    gate_up_weight_grad at (4096, 11008).
cd "$(dirname "$0")/../../../.." || exit 1
R=${OUT:-/tmp}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
( source bench/device-session.sh .device/p46 || exit 1
  timeout 100 python3 python/tests/gpu_modules.py precisions > "$R/modules-precisions.log" 2>&1
  echo "precisions rc=$? $(grep -c '^pass' "$R/modules-precisions.log") pass, $(tail -1 "$R/modules-precisions.log")"
  grep -E "^FAIL|^note|control \(tf32 by|D=64 H=128" "$R/modules-precisions.log" | head -8 )
source bench/device-session.sh .device/c46 || exit 1
if grep -q H200 "$R/gpu.txt"; then
  timeout 150 python3 bench/bench_precision.py --modes highest,tf32x3,tf32 --tokens 8192 --rounds 3 \
    --shapes 4096x11008,1024x2816 --out "$R" > "$R/precision.txt" 2>&1
  echo "precision rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| " "$R/precision.txt" | tail -10
fi
lib=build-gpu/lib/libfmlp_runtime.so F=/tmp/s47-f32
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
run_ncu() {  # NAME BUNDLES KERNEL-REGEX
  timeout 60 ncu -k regex:$3 -c 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section InstructionStats \
    python3 bench/bench_strategies.py $lib $1=$2 --dtype f32 \
    --shapes 4096x11008 --rounds 1 > "$R/ncu-$1-$3.txt" 2>&1
  echo "ncu $1 $3 rc=$? $(( $(date +%s) - s )) s"
  grep -E "Issue Slots Busy|Eligible Warps|Compute \(SM\) Throughput|L1/TEX Cache Throughput|Shared Memory|Tensor|Duration" "$R/ncu-$1-$3.txt" | head -12
}
run_ncu tf32x3 $F/tf32x3 mlp_backward_k6_gate_up_weight_grad
run_ncu tf32x3 $F/tf32x3 mlp_forward_k3_gate_up$
echo "done $(( $(date +%s) - s )) s"
