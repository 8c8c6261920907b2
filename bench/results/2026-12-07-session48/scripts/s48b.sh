#!/usr/bin/env bash
# Session 48, call 2 (same carry as s48a.sh): issue 22's bars on main's
# kernels: the no-grad forward swept over T, graph-replayed beside
# torch.compile, eager at T = 1, 16 beside HF eager (bench_sweep.py);
# (the training sweep left out: device time).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/g48 || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 200 python3 bench/bench_sweep.py --out "$R/sweep" --modes nograd --launches graph \
  --impls fmlp,hf_compile --tokens 1,4,16,32,64,128,256,512,1024,2048,8192 --first 1,16 \
  --rounds 5 --deadline-s 170 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -A16 "^## " "$R/sweep/sweep.md" | head -40
timeout 60 python3 bench/bench_sweep.py --out "$R/sweep-eager" --modes nograd --launches eager \
  --impls fmlp,hf_eager --tokens 1,16 --rounds 5 --deadline-s 45 > "$R/sweep-eager.log" 2>&1
echo "sweep-eager rc=$? $(( $(date +%s) - s )) s"; grep -A8 "^## " "$R/sweep-eager/sweep.md" | head -20
# Where T = 64 at (1024, 2816) goes (issue 22's last no-grad gap to
# torch.compile): each kernel's device time, fmlp's and compile's.
timeout 60 python3 bench/kernel_times.py "" build-gpu/lib/libfmlp_runtime.so --modules fmlp,hf_compile \
  --tokens 32,64,128 --shapes 1024x2816 > "$R/kernel-times-T64.txt" 2>&1
echo "kernel-times rc=$? $(( $(date +%s) - s )) s"; head -40 "$R/kernel-times-T64.txt"
