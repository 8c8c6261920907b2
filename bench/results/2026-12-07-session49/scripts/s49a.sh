#!/usr/bin/env bash
# Session 49, call 1: where the fp32 training step's time goes (issue 23).
# bench_strategies' kernels alone sum to 62.7 ms at (4096, 11008), T = 8192
# (tf32x3, session 47), the module's step takes 68.7-70.2 ms: each
# kernel's device time inside the module's step, the step's time from
# first launch to last (kernel_times.py), with the runtime's two lanes
# (fmlp) and serial launches (fmlp_serial), beside HF strict; the SM clock
# and power sampled meanwhile (throttling under a long tensor-core run).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49 || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$R/gpu.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 250 > "$R/clocks.csv" 2>&1 & smi=$!
for precision in tf32x3 tf32; do
  setting=highest; [[ $precision == tf32 ]] && setting=high
  timeout 150 python3 bench/kernel_times.py "" build-gpu/lib/libfmlp_runtime.so --dtype f32 \
    --modules fmlp,fmlp_serial,hf_eager --precision $precision --matmul-precision $setting \
    --tokens 8192 --shapes 4096x11008,1024x2816 --calls 5 > "$R/kernel-times-$precision.txt" 2>&1
  echo "kernel-times $precision rc=$? $(( $(date +%s) - s )) s"
  grep "us in kernels" "$R/kernel-times-$precision.txt"
done
kill $smi
awk -F', ' 'NR>1 {print $2}' "$R/clocks.csv" | sort | uniq -c | sort -rn | head -5
