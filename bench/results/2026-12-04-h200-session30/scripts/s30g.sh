#!/usr/bin/env bash
# Session 30, call 7: the small_tokens loads' L1 eviction priorities, for
# T = 16 (every K1 block reads all of x; the weights stream through L1):
# the weights .L1::evict_first (q1), the tokens .L1::evict_last (q2), both
# (q3), against this tree's default (q0: weights .L2::128B, tokens plain);
# hidden experiment knobs --fmlp-x-weights-l1, --fmlp-x-tokens-l1.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/ab || exit 1
for v in q1 q2 q3; do
  timeout 100 python3 bench/compare_bundles.py .device/ab/q0 .device/ab/$v build-gpu/lib/libfmlp_runtime.so \
    --tokens 1,4,16 --entries-only --rounds 9 > "$R/ab-$v.txt" 2>&1
  echo "ab $v rc=$? $(( $(date +%s) - s )) s"; grep -E "B/A" "$R/ab-$v.txt" | awk '{print $NF}' | tr '\n' ' '; echo
done
