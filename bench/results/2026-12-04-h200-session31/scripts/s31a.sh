#!/usr/bin/env bash
# Session 31, call 1: small_tokens blocks of 32 columns and 16 warps (K split
# twice as finely; each token piece serves twice the weight rows, so the
# tokens are read from L2 half as often) for K1 (d1), K1 and K2 (d2), the
# weights' loads .L1::no_allocate (d3), both (d4), .L1::no_allocate in the
# no-grad forward's kernels only (d5), against this tree's default (d0);
# raw launches, 9 alternating rounds, (4096, 11008). Then
# d2's block tests (K1 and K2 at 32 columns) at the T around small_tokens.
cd "$(dirname "$0")/../../../.."
source bench/device-session.sh .device/ab || exit 1
for v in d1 d2 d3 d4 d5; do
  timeout 110 python3 bench/compare_bundles.py .device/ab/d0 .device/ab/$v build-gpu/lib/libfmlp_runtime.so \
    --tokens 1,4,16 --shapes 4096x11008 --entries-only --rounds 9 > "$R/ab-$v.txt" 2>&1
  echo "ab $v rc=$? $(( $(date +%s) - s )) s"; grep -E "B/A" "$R/ab-$v.txt" | awk '{print $NF}' | tr '\n' ' '; echo
done
t=build-gpu/fmlp-gpu-block-test b=.device/ab/d2
{
  timeout 60 $t $b/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 3 8 9 16 17
  timeout 40 $t $b/mlp-f16-1024-2816.bundle f16 1024 2816 1 16
  timeout 30 $t $b/mlp-bf16-64-128.bundle bf16 64 128 1 2 16 17
  timeout 40 $t $b/mlp-bf16-1088-704.bundle bf16 1088 704 1 15 16 17
  timeout 100 $t $b/mlp-bf16-4096-11008.bundle bf16 4096 11008 16
} > "$R/blocks-d2.txt" 2>&1
echo "blocks rc=$? $(( $(date +%s) - s )) s"
grep -ciE "fail" "$R/blocks-d2.txt"; tail -5 "$R/blocks-d2.txt"
