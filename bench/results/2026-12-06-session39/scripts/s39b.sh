#!/usr/bin/env bash
# Session 39 (issue 23): what rounding in the stages costs and saves, raw
# launches of make-stages.sh's bundles (compare_bundles.py, alternating
# rounds, medians):
# 1. copies/ (A: session 38's, a rounded copy of each weight every call)
#    against stages/ (B: the default, the token variants of T <= 2048
#    round in their stages) at T = 1 .. 8192, both Llama shapes: the
#    no-grad forward and the training step;
# 2. trunc/ (A: no rounding at all) against stages/ (B) at T = 1, 16, 128:
#    what rounding still costs at few tokens;
# 3. copies/ (A) against all/ (B: no copy at all, every kernel rounds in
#    its stages) at T = 2048, 8192, per kernel: whether the copies could go.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/stages/cache || exit 1
S=.device/stages lib=build-gpu/lib/libfmlp_runtime.so
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$R/gpu.txt"
timeout 300 python3 bench/compare_bundles.py $S/copies $S/stages $lib --dtype f32 --entries-only \
  --tokens 1,16,64,128,256,512,1024,2048,8192 --rounds 3 > "$R/copies-vs-stages.log" 2>&1
echo "copies vs stages rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/copies-vs-stages.log"
timeout 100 python3 bench/compare_bundles.py $S/trunc $S/stages $lib --dtype f32 --entries-only \
  --tokens 1,16,128 --rounds 3 --shapes 4096x11008 > "$R/trunc-vs-stages.log" 2>&1
echo "trunc vs stages rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A" "$R/trunc-vs-stages.log"
timeout 150 python3 bench/compare_bundles.py $S/copies $S/all $lib --dtype f32 \
  --tokens 2048,8192 --rounds 3 > "$R/copies-vs-all.log" 2>&1
echo "copies vs all rc=$? $(( $(date +%s) - s )) s"; grep -E "^D=|B/A|only" "$R/copies-vs-all.log"
