#!/usr/bin/env bash
# Device: K1 and K3 under Nsight Compute, main's kernels (bundles-fin) and the
# tile pairs (bundles-pair2), D=1024, H=2816, T=8192.
cd "$(dirname "$0")/.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null 2>&1 && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
export FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so PYTHONPATH=$PWD/python
for set in fin pair2; do
  timeout 120 ncu --kernel-name regex:"mlp_forward_k0_gate_up|backward_k1_down_grad" --launch-skip 2 --launch-count 2 \
    --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats \
    python3 bench/kernel_probe.py .device/bundles-$set 1024 2816 > $R/ncu-$set.txt 2>&1; echo "ncu $set rc=$? $(( $(date +%s) - s )) s"
  grep -E "  mlp_|Duration|Compute \(SM\) Throughput|Memory Throughput|Issued Warp|No Eligible|Shared Memory|Stall|Warp Cycles Per Issued" $R/ncu-$set.txt | head -40
done
