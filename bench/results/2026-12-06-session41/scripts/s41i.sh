#!/usr/bin/env bash
# Session 41 (issue 23), device call 9 on make-s41i.sh's bundles (carry
# .device/s41i, .device/include): the producer's loads by thread 0 alone.
# Same bits as main (tf32, tf32x3), the block tests at (64, 128) under
# racecheck (tf32 at T = 700: the variant of T <= 768; tf32x3 at 17, 2049).
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/none || exit 1
N=.device/s41i/new M=.device/s41i/main sc=$(dirname "$0") t=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 90 python3 $sc/same_bits.py $M/copies $N $M/trunc --tokens 1,256,600,768,769,1025 > "$R/same-bits-tf32.log" 2>&1
echo "same_bits tf32 rc=$? $(tail -1 "$R/same-bits-tf32.log") $(( $(date +%s) - s )) s"
timeout 60 python3 $sc/same_bits.py $M/x3b1 $N/x3 $M/copies --tokens 1,600,2049 > "$R/same-bits-x3.log" 2>&1
echo "same_bits x3 rc=$? $(tail -1 "$R/same-bits-x3.log") $(( $(date +%s) - s )) s"
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 3 $t $N/mlp-f32-64-128.bundle f32 64 128 700 --contraction=tf32 > "$R/racecheck-tf32.log" 2>&1
echo "racecheck tf32 rc=$? $(grep -E 'RACECHECK SUMMARY|failure' "$R/racecheck-tf32.log" | tr '\n' ' ') $(( $(date +%s) - s )) s"
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 3 $t $N/x3/mlp-f32-64-128.bundle f32 64 128 17 2049 --contraction=tf32x3 > "$R/racecheck-x3.log" 2>&1
echo "racecheck x3 rc=$? $(grep -E 'RACECHECK SUMMARY|failure' "$R/racecheck-x3.log" | tr '\n' ' ') $(( $(date +%s) - s )) s"
