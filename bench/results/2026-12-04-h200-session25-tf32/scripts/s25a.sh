#!/usr/bin/env bash
# Session 25, call 1 (issue 23): fp32 blocks at precision tf32 on WGMMA
# (K1 gate_up, K2 down: K-major operands) against the same compiler's
# mma_sync kernels (--fmlp-tf32-wgmma=false: main's kernels). Bundles made
# here by fmlp-compile --chip=sm_90a --precision=tf32 from this tree:
# .device/tf32-wgmma (the default) and .device/tf32-mma.
# 1. bench/wgmma_tf32_operands.cu: what the tensor cores make of fp32 bits
#    as tf32 operands (wgmma from shared memory, mma.sync from registers).
# 2. fmlp-gpu-block-test of the wgmma bundles by tf32's bound: (1024, 2816)
#    T = 1, 17, 129, 2597; (4096, 11008) T = 17; (64, 128) and (1088, 704);
#    the negative control (tf32x3's bound, must fail); memcheck once.
# 3. Speed at T = 8192: compare_bundles.py (mma against wgmma, per kernel
#    and entries), bench_strategies.py beside cuBLAS TF32, and the no-grad
#    forward beside PyTorch TF32 eager (nograd_vs_torch.py).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s); S=bench/results/2026-12-04-h200-session25-tf32/scripts
el() { echo "$(( $(date +%s) - s )) s"; }
nvcc -gencode=arch=compute_90a,code=sm_90a -O2 -o /tmp/wgmma_tf32_operands \
  bench/wgmma_tf32_operands.cu > "$R/probe.txt" 2>&1 && /tmp/wgmma_tf32_operands >> "$R/probe.txt" 2>&1
echo "probe rc=$? $(el)"; cat "$R/probe.txt"
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > /tmp/build.log 2>&1 &&
  cmake --build build-gpu >> /tmp/build.log 2>&1 || { tail /tmp/build.log; exit 1; }
echo "built $(el)"
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 200 "$test" "$@" >> "$R/$log" 2>&1; echo "$log: $* rc=$? $(el)"; }
W=.device/tf32-wgmma M=.device/tf32-mma
run gpu-tf32.log $W/mlp-f32-1024-2816.bundle f32 1024 2816 1 17 129 2597 --contraction=tf32 &
run gpu-tf32.log $W/mlp-f32-4096-11008.bundle f32 4096 11008 17 --contraction=tf32 &
wait
run gpu-tf32.log $W/mlp-f32-64-128.bundle f32 64 128 1 17 129 4096 --contraction=tf32 &
run gpu-tf32.log $W/mlp-f32-1088-704.bundle f32 1088 704 1 17 129 --contraction=tf32 &
run control-tf32-by-tf32x3.log $W/mlp-f32-64-128.bundle f32 64 128 17 4096 --contraction=tf32x3 &
run control-tf32-by-tf32x3.log $W/mlp-f32-1024-2816.bundle f32 1024 2816 129 --contraction=tf32x3 &
wait
grep -hE "failure\(s\)|FAIL|DID NOT" "$R"/gpu-tf32.log "$R"/control-*.log | sort | uniq -c
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $test $W/mlp-f32-64-128.bundle \
  f32 64 128 17 129 --contraction=tf32 > "$R/memcheck.txt" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/memcheck.txt") $(el)"
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 150 python3 $S/nograd_vs_torch.py $FMLP_RUNTIME_LIB mma_sync=$M wgmma=$W --rounds 5 > "$R/nograd.txt" 2>&1
echo "nograd rc=$? $(el)"; cat "$R/nograd.txt"
timeout 200 python3 bench/compare_bundles.py $M $W $FMLP_RUNTIME_LIB --dtype f32 --tokens 8192 --rounds 5 > "$R/compare.txt" 2>&1
echo "compare rc=$? $(el)"; cat "$R/compare.txt"
left=$(( 570 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_strategies.py $FMLP_RUNTIME_LIB wgmma=$W mma_sync=$M --dtype f32 \
  --torch-precision high --tokens 8192 --rounds 5 --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(el)"; tail -25 "$R/strategies.txt"
