#!/usr/bin/env bash
# Session 52, call 1 (make-s52a.sh's bundles; carry .device/s52,
# .device/s51/mma, .device/include). Every TMA kernel now fences its
# mbarrier inits for the async proxy; the mma_sync ones also each slot's
# reads before releasing it (session 51's fence, not yet run).
# 1. the block tests that found session 51's two-block kernels' eager dx
#    at (4096, 11008), T = 4096, not bitwise as the graph's, each with 20
#    eager repeats that must be bitwise as the first (--repeat): the
#    two-block kernels with both fences and without (session 51's,
#    .device/s51/mma_2b), the default; last, the two-block kernels with
#    serial launches;
# 2. speed, raw launches against cuBLAS, bf16, T = 8192: the mma_sync
#    default and two blocks a multiprocessor, beside session 51's default
#    without either fence (.device/s51/mma, call 2's bundles), listed last;
# 3. the WGMMA kernels (the sm_90a default) with the init fence: bf16 at
#    run.sh's quick T, edge shapes, save=x in chunks; f32
#    (highest, tf32x3);
# 4. the mma_sync kernels with their epilogue staged in the ring
#    (--fmlp-mma-sync-staged-epilogue): block tests and racecheck, and a
#    column in 2.
# Then memcheck and racecheck of the WGMMA bundle, and last the two-block
# kernels with serial launches. (Run with a 470 s limit: it ended in the
# staged racecheck.)
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/s52 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so S=.device/s52 B=.device/s52/tests test=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
block() {  # LOG BUNDLE DTYPE D H T...
  local log=$1; shift
  timeout 120 $test "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s" >> "$R/$log"
}
summary() {  # LOG
  echo "$1 $(( $(date +%s) - s )) s: $(grep -c ' pass$' $R/$1) pass, $(grep -c 'failed as it must' $R/$1) controls failed as they must, $(grep -cE 'FAIL|CONTROL PASSED' $R/$1) failures"
  grep -E "FAIL|CONTROL PASSED| rc=[1-9]" $R/$1 | head -10
}
block blocks.txt $S/mma_2b/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096 --repeat=20
block blocks.txt .device/s51/mma_2b/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096 --repeat=20
block blocks.txt $S/mma_2b/mlp-bf16-1024-2816.bundle bf16 1024 2816 2597 4096 --repeat=20
block blocks.txt $S/mma/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096 --repeat=20
summary blocks.txt
grep -E "rc=|dx \(forward\)|bitwise|repeats|DID NOT" $R/blocks.txt
timeout 200 python3 bench/bench_strategies.py $lib mma=$S/mma mma_2b=$S/mma_2b mma_staged=$S/mma_staged mma_unfenced=.device/s51/mma \
  --tokens 8192 --rounds 3 --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"
python3 bench/results/2026-12-07-session52/scripts/ratios.py "$R/strategies.md"
q="0 1 2 3 16 17 32 33 37 64 65 128 129 256 257 2597 4096"
block wgmma.txt $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 $q --repeat=5
block wgmma.txt $B/mlp-bf16-64-128.bundle bf16 64 128 1 16 17 37 4096
block wgmma.txt $B/mlp-bf16-1088-704.bundle bf16 1088 704 1 16 17 37 4096
block wgmma.txt $B/mlp-bf16-1024-2816-x-c1024.bundle bf16 1024 2816 1 17 1000 2049 2597
block wgmma.txt $B/mlp-f32-1024-2816.bundle f32 1024 2816 1 17 83 84 129 4096
block wgmma.txt $B/mlp-f32-1024-2816-tf32x3.bundle f32 1024 2816 1 17 129 4096 --contraction=tf32x3
summary wgmma.txt
M=$S/mma_staged
block staged.txt $M/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 17 37 65 129 257 2597 4096 --repeat=3
block staged.txt $M/mlp-bf16-64-128.bundle bf16 64 128 17 37 4096
block staged.txt $M/mlp-bf16-1088-704.bundle bf16 1088 704 17 37 4096
block staged.txt $M/mlp-bf16-4096-11008.bundle bf16 4096 11008 257
timeout 60 compute-sanitizer --tool racecheck --error-exitcode 3 $test $M/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 \
  >> "$R/racecheck-staged.txt" 2>&1; echo "racecheck staged rc=$? $(( $(date +%s) - s )) s: $(grep -E 'RACECHECK SUMMARY' $R/racecheck-staged.txt | tail -1)"
summary staged.txt
for tool in memcheck racecheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 3 37 \
    >> "$R/$tool.txt" 2>&1; echo "$tool rc=$? $(( $(date +%s) - s )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.txt | tail -1)"
done
FMLP_SERIAL_LAUNCHES=1 block serial.txt $S/mma_2b/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096 --repeat=20
summary serial.txt
grep -E "dx \(forward\)|bitwise|repeats" $R/serial.txt
