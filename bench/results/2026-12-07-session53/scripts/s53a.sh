#!/usr/bin/env bash
# Session 53, prepared (no device was lent that session); run in session 54.
# make-s53a.sh's bundles; carry .device/s53 and .device/include.
# 1. speed, raw launches against cuBLAS, bf16, T = 8192, 3 rounds: the
#    192-column weight gradients, with the staged epilogue unguarded and
#    guarded, those with one release a warp (session 54), and the
#    mma_sync default (256 columns, unstaged) last;
# 2. all three knobs on the GPU tests' bf16 and f16 bundles: defaults at
#    the quick T with 3 repeats, the edge shapes, [in, out], the memory
#    policies, LoRA at a few T (f32 LoRA: tf32x3, copies spread);
# 3. memcheck and racecheck: the three knobs' bundle at (1024, 2816)
#    (T = 3, 37), then session 52's WGMMA bundle (the mbarrier-init fence).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/s53 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so S=.device/s53 B=.device/s53/tests
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
# SASS of the default and the three knobs' kernels (where ptxas put each
# slot's fence and release among the LDSM and HMMA; no cuobjdump here).
cuobjdump -sass $S/mma/mlp-bf16-1024-2816.bundle/kernels.cubin > "$R/mma.sass"
cuobjdump -sass $B/mlp-bf16-1024-2816.bundle/kernels.cubin > "$R/knobs.sass"
timeout 190 python3 bench/bench_strategies.py $lib grid=$S/grid grid_staged=$S/grid_staged \
  grid_staged_g=$B warp=$S/warp mma=$S/mma --tokens 8192 --rounds 3 --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"
python3 bench/results/2026-12-07-session52/scripts/ratios.py "$R/strategies.md"
q="0 1 2 3 16 17 32 33 37 64 65 128 129 256 257 2597 4096"
block tests.txt $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 $q --repeat=3
block tests.txt $B/mlp-f16-1024-2816.bundle f16 1024 2816 1 17 37 129 257 2597 4096 --repeat=3
block tests.txt $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 17 257 4096 --repeat=2
block tests.txt $B/mlp-bf16-64-128.bundle bf16 64 128 1 16 17 37 4096
block tests.txt $B/mlp-bf16-1088-704.bundle bf16 1088 704 1 16 17 37 4096
block tests.txt $B/mlp-bf16-1024-2816-in-out.bundle bf16 1024 2816 0 1 16 17 256 257 2597
for v in gu-c0 u-c0 x-c0; do block tests.txt $B/mlp-bf16-1024-2816-$v.bundle bf16 1024 2816 0 1 3 17 37 2597 4096; done
for v in agu-c1024 gu-c1024 x-c1024; do block tests.txt $B/mlp-bf16-1024-2816-$v.bundle bf16 1024 2816 0 17 1000 1024 2049 2597; done
block tests.txt $S/warp/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 37 257 4096 --repeat=5
block tests.txt $S/warp/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096 --repeat=10
summary tests.txt
for b in mlp-lora-bf16-1024-2816-r32-rd16-agu-c0 mlp-lora-f16-1024-2816-r16-rd16-gu-c0 mlp-lora-f32-1024-2816-r16-rd16-agu-c0; do
  for t in 37 2597; do block lora.txt $B/$b.bundle $(cut -d- -f3 <<<"$b") 1024 2816 $t; done
done
summary lora.txt
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 build-gpu/fmlp-gpu-block-test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 3 37 \
    >> "$R/$tool-knobs.txt" 2>&1; echo "$tool knobs rc=$? $(( $(date +%s) - s )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool-knobs.txt | tail -1)"
done
for tool in memcheck racecheck; do
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 3 build-gpu/fmlp-gpu-block-test $S/wgmma/mlp-bf16-1024-2816.bundle bf16 1024 2816 3 37 \
    >> "$R/$tool-wgmma.txt" 2>&1; echo "$tool wgmma rc=$? $(( $(date +%s) - s )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool-wgmma.txt | tail -1)"
done
