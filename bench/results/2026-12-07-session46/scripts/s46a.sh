#!/usr/bin/env bash
# Session 46, call 1 (H200 asked for; carry .device/c46, .device/s46,
# .device/include; make-s46.sh): main's kernels timed where the issues' bars
# are set.
# 1. issue 23: the module's fp32 step at highest, tf32x3, tf32 beside HF's
#    strict and TF32 (bench_precision.py, T = 8192, both shapes);
# 2. issue 24: each bf16 kernel per strategy (WGMMA, mma_sync, SIMT)
#    beside cuBLAS, raw launches, T = 8192 (bench_strategies.py);
# 3. issue 22: the no-grad forward swept over T, graph-replayed beside
#    torch.compile, and eager at T = 1, 16 beside HF eager (bench_sweep.py).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c46 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so S=.device/s46
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
timeout 150 python3 bench/bench_precision.py --modes highest,tf32x3,tf32 --tokens 8192 --rounds 3 \
  --shapes 4096x11008,1024x2816 --out "$R" > "$R/precision.txt" 2>&1
echo "precision rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| " "$R/precision.txt" | tail -10
timeout 150 python3 bench/bench_strategies.py $lib wgmma=$S/wgmma mma_sync=$S/mma_sync simt=$S/simt \
  --tokens 8192 --rounds 3 --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"; grep -E "^\| " "$R/strategies.md" | head -40
timeout 230 python3 bench/bench_sweep.py --out "$R/sweep" --modes nograd --launches graph \
  --impls fmlp,hf_compile --tokens 1,4,16,32,64,128,256,512,1024,2048,8192 --first 1,16 \
  --rounds 5 --deadline-s 200 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -A16 "^## " "$R/sweep/sweep.md" | head -40
timeout 60 python3 bench/bench_sweep.py --out "$R/sweep-eager" --modes nograd --launches eager \
  --impls fmlp,hf_eager --tokens 1,16 --rounds 5 --deadline-s 45 > "$R/sweep-eager.log" 2>&1
echo "sweep-eager rc=$? $(( $(date +%s) - s )) s"; grep -A8 "^## " "$R/sweep-eager/sweep.md" | head -20
