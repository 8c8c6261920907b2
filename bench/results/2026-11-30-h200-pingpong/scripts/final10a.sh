#!/usr/bin/env bash
# Device, call A on main's kernels ($1; f6d341b: K3's epilogue in fewer
# instructions): the GPU test at every dtype and shape for T <= 4096 (f32
# first: the activation's bound is tightest there), the edge shapes,
# sanitizers, then the timing table (bench_mlp: cuBLAS, eager, torch.compile).
cd "$(dirname "$0")/.."
B=$1 R=${OUT:-/tmp} T=build-gpu/fmlp-gpu-block-test L=build-gpu/lib/libfmlp_runtime.so; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
for a in "f32 1024 2816 1 37 4096" "bf16 1024 2816 0 1 37 2597 4096" "f16 1024 2816 1 37 4096" \
         "bf16 64 128 1 37 4096" "bf16 1088 704 1 37 4096" "bf16 4096 11008 1 37 4096" "f16 4096 11008 1 37 4096" "f32 4096 11008 1 37 4096"; do
  read -r dt d h rest <<< "$a"
  timeout 150 $T $B/mlp-$dt-$d-$h.bundle $a >> $R/gpu-test.log 2>&1; rc=$?; echo "rc=$rc ($a) $(( $(date +%s) - s )) s"; [[ $rc == 124 ]] && break
done
grep -E "failure\(s\)|FAIL|CONTROL PASSED" $R/gpu-test.log
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $T $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 > $R/$tool.log 2>&1; echo "$tool rc=$? $(tail -1 $R/$tool.log) $(( $(date +%s) - s )) s"
done
timeout 200 python3 bench/bench_mlp.py $B $L --tokens 8192,32768 --out $R/bench.json > $R/bench.log 2>&1; echo "bench rc=$? $(( $(date +%s) - s )) s"; cat $R/bench.log
