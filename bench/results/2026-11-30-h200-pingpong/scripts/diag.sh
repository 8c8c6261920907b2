#!/usr/bin/env bash
# Device (session 10, call 2): where K1's and K3's epilogue time goes at
# D=1024. Same-run A/B of main's kernels (bundles-ftz) against the same
# kernels without global stores (bundles-nostores: the staged blocks stay in
# shared memory) and with one element pair per thread and no stores
# (bundles-noelements); then ncu source counters of K1 (main and no-stores).
cd "$(dirname "$0")/.."
R=${OUT:-/tmp} M=.device/bundles-ftz L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null 2>&1 && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for v in nostores noelements; do
  for tok in 8192 32768; do
    timeout 90 python3 bench/compare_bundles.py $M .device/bundles-$v $L --rounds 3 --tokens $tok > $R/compare-$v-$tok.log 2>&1
    echo "== $v $tok rc=$? $(( $(date +%s) - s )) s"; grep -E "H=|k0_gate_up |k1_down_grad|k1_down |input_grad" $R/compare-$v-$tok.log
  done
done
export FMLP_RUNTIME_LIB=$PWD/$L PYTHONPATH=$PWD/python
for v in ftz nostores; do
  timeout 150 ncu --kernel-name regex:"forward_k0_gate_up" --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters \
    -o $R/k1-$v python3 bench/kernel_probe.py .device/bundles-$v 1024 2816 > $R/ncu-k1-$v.txt 2>&1; echo "ncu $v rc=$? $(( $(date +%s) - s )) s"
  ncu --import $R/k1-$v.ncu-rep > $R/ncu-k1-$v-details.txt 2>&1
  ncu --import $R/k1-$v.ncu-rep --page source --csv --print-source sass > $R/ncu-k1-$v-source.csv 2>&1
  grep -E "Duration|SM Frequency|Throughput|Issued Warp|No Eligible|Stall|Bandwidth" $R/ncu-k1-$v-details.txt | head -30
done
