#!/usr/bin/env bash
# Session 29, call 3: gpu_lanes.py again (the no-grad control now nudges a
# token's row: one f32 element moved no y), the block test at (4096, 11008)
# with time to finish, the no-grad forward at T = 8192 and 65536 (new rule
# against main's bundles, eager and graph), and where the time goes at T =
# 256 and 1024: each kernel of fmlp's and torch.compile's modules.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache \
  FMLP_B_CACHE_DIR=$PWD/.device/main
timeout 120 python3 python/tests/gpu_lanes.py > "$R/gpu-lanes.log" 2>&1
echo "gpu_lanes rc=$? $(( $(date +%s) - s )) s"; grep -E "FAIL|passed" "$R/gpu-lanes.log" | tail -5
timeout 150 build-gpu/fmlp-gpu-block-test .device/cache/fmlp0.3.0-d4096-h11008-bf16-silu-sm_90a-savegu.bundle bf16 4096 11008 1 33 257 513 > "$R/blocks-4096.log" 2>&1
echo "blocks 4096 rc=$? pass: $(grep -c ' pass$' $R/blocks-4096.log), controls failed as they must: $(grep -c 'failed as it must' $R/blocks-4096.log) $(( $(date +%s) - s )) s"
grep -E "FAIL|NOT REFUSED|CONTROL PASSED" "$R/blocks-4096.log" | head -5
timeout 150 python3 bench/kernel_times.py x build-gpu/lib/libfmlp_runtime.so --modules fmlp,hf_compile \
  --tokens 256,1024 --shapes 4096x11008,1024x2816 > "$R/kernel-times.txt" 2>&1
echo "kernel_times rc=$? $(( $(date +%s) - s )) s"
timeout 150 python3 bench/bench_sweep.py --out "$R/sweep-large" --modes nograd --shapes 4096x11008 \
  --impls fmlp,fmlp_b --tokens 8192,65536 --first 8192 --rounds 5 --deadline-s 140 > "$R/sweep-large.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -A8 "^## no-grad" "$R/sweep-large/sweep.md"
