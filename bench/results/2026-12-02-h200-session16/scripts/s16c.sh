#!/usr/bin/env bash
# Session 16, call 3: what limits the mma_sync kernels, and their SASS.
# .device/sm80 holds the (1024, 2816) bf16 bundle compiled for sm_80
# (fmlp-compile --chip=sm_80: its GEMMs are mma_sync kernels).
# 1. bench/mma_sync_peak.cu: what mma.sync m16n8k16 can issue on the H200.
# 2. cuobjdump -sass of K1 (gate_up) for sm_80: HMMA, LDSM, LDGSTS.
# 3. Nsight Compute on the mma_sync K1 and K2 at (4096, 11008), T = 8192:
#    speed of light, warp states (stall reasons), scheduler statistics.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
nvcc -O3 -arch=sm_90a -o build-gpu/mma_sync_peak bench/mma_sync_peak.cu && build-gpu/mma_sync_peak | tee "$R/mma-sync-peak.txt"
cuobjdump -sass -fun mlp_forward_k0_gate_up_mma_sync .device/sm80/mlp-bf16-1024-2816.bundle/kernels.cubin > "$R/k1-gate-up-sm80.sass" 2>&1
echo "sm_80 K1 SASS: $(grep -c HMMA "$R/k1-gate-up-sm80.sass") HMMA, $(grep -c LDSM "$R/k1-gate-up-sm80.sass") LDSM, $(grep -c LDGSTS "$R/k1-gate-up-sm80.sass") LDGSTS"
grep -m4 -E "HMMA|LDSM" "$R/k1-gate-up-sm80.sass"
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
for k in mlp_forward_k1_down_mma_sync mlp_forward_k0_gate_up_mma_sync; do
  timeout 150 ncu --kernel-name $k --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
    python3 bench/kernel_probe.py .device/bundles-mma 4096 11008 --tokens 8192 > "$R/ncu-$k.txt" 2>&1
  echo "ncu $k rc=$? $(( $(date +%s) - s )) s"
  grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Issue Slots Busy|No Eligible|Achieved Occupancy|Stall|stall|Warp Cycles Per Issued" "$R/ncu-$k.txt" | head -20
done
