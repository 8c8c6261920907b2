#!/usr/bin/env bash
# Session 54, prepared for the next call (make-s54b.sh's bundles; carry
# .device/s54 and .device/include; about 380 s). Everything comes back in
# one tarball, results.tgz (bench/device-session.sh).
# 1. speed, raw launches against cuBLAS, bf16, T = 8192, 3 rounds: each
#    slot released once the next k-tile has arrived, against the default;
# 2. its correctness: block tests with repeats (bitwise), the edge shapes,
#    save=x in chunks of 1024 (virtual tiles with more than one chunk),
#    and in 2 stages (sm_120's ring);
#    racecheck at (1024, 2816), T = 3, 37;
# 3. the SASS of both (where ptxas put the fence now).
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/s54 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so S=.device/s54
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
cuobjdump -sass $S/release/mlp-bf16-1024-2816.bundle/kernels.cubin > "$R/release.sass"
cuobjdump -sass $S/mma/mlp-bf16-1024-2816.bundle/kernels.cubin > "$R/mma.sass"
timeout 150 python3 bench/bench_strategies.py $lib release=$S/release mma=$S/mma \
  --tokens 8192 --rounds 3 --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"
python3 bench/results/2026-12-07-session52/scripts/ratios.py "$R/strategies.md"
checkpoint
block tests.txt $S/release/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 2 3 16 17 37 64 65 257 2597 4096 --repeat=5
block tests.txt $S/release/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096 --repeat=10
block tests.txt $S/release/mlp-bf16-64-128.bundle bf16 64 128 1 16 17 37 4096
block tests.txt $S/release/mlp-bf16-1088-704.bundle bf16 1088 704 1 16 17 37 4096
block tests.txt $S/release/mlp-bf16-1024-2816-x-c1024.bundle bf16 1024 2816 0 17 1000 1024 2049 2597
# 2 stages (sm_120's ring): K of one k-tile (D = 64) and of a few.
block tests.txt $S/release2/mlp-bf16-64-128.bundle bf16 64 128 1 16 17 37 4096 --repeat=3
block tests.txt $S/release2/mlp-bf16-1088-704.bundle bf16 1088 704 1 17 37 4096 --repeat=3
block tests.txt $S/release2/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 37 257 2597 --repeat=3
summary tests.txt
checkpoint
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 3 build-gpu/fmlp-gpu-block-test \
  $S/release/mlp-bf16-1024-2816.bundle bf16 1024 2816 3 37 >> "$R/racecheck.txt" 2>&1
echo "racecheck rc=$? $(( $(date +%s) - s )) s: $(grep -E 'RACECHECK SUMMARY' $R/racecheck.txt | tail -1)"
