#!/usr/bin/env bash
# Session 11, call 2: branch experiment/f32-accurate-activation. The f32
# cells of the matrix on its bundles (bundles-f32acc), then a same-run A/B
# of its f32 kernels against main's (bundles-main10) at T = 4096.
cd "$(dirname "$0")/.."
R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for a in "f32 1024 2816 1 37 4096 65536" "f32 4096 11008 1 37 4096 65536"; do
  read -r dt d h rest <<< "$a"
  timeout 240 $T .device/bundles-f32acc/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test-f32acc.log 2>&1; echo "rc=$? ($a) $(( $(date +%s) - s )) s"
done
grep -E "failure\(s\)" $R/gpu-test-f32acc.log
timeout 100 python3 bench/compare_bundles.py .device/bundles-main10 .device/bundles-f32acc $L --rounds 3 --tokens 4096 --dtype f32 > $R/compare-f32acc-4096.log 2>&1
echo "== f32acc rc=$? $(( $(date +%s) - s )) s"; cat $R/compare-f32acc-4096.log
