#!/usr/bin/env bash
# Session 54, call 2: session 53's s53a.sh ran out of its 560 s at the
# last sanitizer, and the call's files past eight did not come back
# (strategies.md, tests.txt): its speed run and block tests again, plus
# the WGMMA racecheck, everything in one tarball (s54a.tgz).
cd "$(dirname "$0")/../../../.." || exit 1
real=${OUT:-/tmp}; export OUT=$(mktemp -d)
source bench/device-session.sh .device/s53 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so S=.device/s53 B=.device/s53/tests
finish() { tar czf "$real/s54a.tgz" -C "$R" .; }
trap finish EXIT
timeout 190 python3 bench/bench_strategies.py $lib grid=$S/grid grid_staged=$S/grid_staged \
  grid_staged_g=$B warp=$S/warp mma=$S/mma --tokens 8192 --rounds 3 --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"
python3 bench/results/2026-12-07-session52/scripts/ratios.py "$R/strategies.md"
finish
q="0 1 2 3 16 17 32 33 37 64 65 128 129 256 257 2597 4096"
block tests.txt $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 $q --repeat=3
block tests.txt $S/warp/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 37 257 4096 --repeat=5
block tests.txt $S/warp/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096 --repeat=10
block tests.txt $B/mlp-f16-1024-2816.bundle f16 1024 2816 1 17 37 129 257 2597 4096 --repeat=3
block tests.txt $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 17 257 4096 --repeat=2
block tests.txt $B/mlp-bf16-64-128.bundle bf16 64 128 1 16 17 37 4096
block tests.txt $B/mlp-bf16-1088-704.bundle bf16 1088 704 1 16 17 37 4096
block tests.txt $B/mlp-bf16-1024-2816-in-out.bundle bf16 1024 2816 0 1 16 17 256 257 2597
for v in gu-c0 u-c0 x-c0; do block tests.txt $B/mlp-bf16-1024-2816-$v.bundle bf16 1024 2816 0 1 3 17 37 2597 4096; done
for v in agu-c1024 gu-c1024 x-c1024; do block tests.txt $B/mlp-bf16-1024-2816-$v.bundle bf16 1024 2816 0 17 1000 1024 2049 2597; done
summary tests.txt
finish
timeout 80 compute-sanitizer --tool racecheck --error-exitcode 3 build-gpu/fmlp-gpu-block-test $S/wgmma/mlp-bf16-1024-2816.bundle bf16 1024 2816 3 37 \
  >> "$R/racecheck-wgmma.txt" 2>&1; echo "racecheck wgmma rc=$? $(( $(date +%s) - s )) s: $(grep -E 'RACECHECK SUMMARY' $R/racecheck-wgmma.txt | tail -1)"
