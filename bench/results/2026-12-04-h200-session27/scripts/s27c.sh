#!/usr/bin/env bash
# Session 27: (issue 24) Nsight Compute's view of main's mma_sync K1, K4
# and K5 at (4096, 11008), T = 8192 (.device/mma-old: fmlp-compile
# --strategy=mma_sync): where their warps stall; (issue 25) where fused
# LoRA's step spends its GPU time (bench_lora.py --profile), and fused
# LoRA's no-grad forward at T = 1, 16, 256 against PEFT's (serving with
# unmerged adapters), eager and compiled, .device/cache's bundles.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache
for k in forward_k0_gate_up_mma_sync input_grad_mma_sync gate_up_weight_grad_mma_sync; do
  timeout 100 ncu -k regex:$k -c 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
    python3 bench/bench_strategies.py $FMLP_RUNTIME_LIB mma=.device/mma-old \
    --shapes 4096x11008 --rounds 1 > "$R/ncu-$k.txt" 2>&1
  echo "ncu $k rc=$? $(( $(date +%s) - s )) s"
  grep -E "Stall|Issue Slot|Warp Cycles|Eligible|Active Warps|Compute \(SM\) Throughput|Memory Throughput|No Eligible|Registers Per|Achieved Occ" "$R/ncu-$k.txt" | head -24
done
timeout 100 python3 bench/bench_lora.py --shape 4096x11008 --profile fmlp_lora > "$R/lora-profile-4096.txt" 2>&1
echo "profile rc=$? $(( $(date +%s) - s )) s"; grep -v -i warn "$R/lora-profile-4096.txt" | head -30
for t in 1 16 256; do
  timeout 120 python3 bench/bench_lora.py --shape 4096x11008 --tokens $t --no-grad --rounds 3 \
    --impls peft_eager,peft_compile,fmlp_lora,fmlp_lora_compile,fmlp_frozen > "$R/lora-nograd-4096-t$t.txt" 2>&1
  echo "no-grad T=$t rc=$? $(( $(date +%s) - s )) s"; grep -v -i warn "$R/lora-nograd-4096-t$t.txt" | tail -6
done
