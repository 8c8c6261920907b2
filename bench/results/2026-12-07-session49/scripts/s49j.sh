#!/usr/bin/env bash
# Session 49, call 13: K1 (gate_up) at a few hundred to 1024 tokens, 128
# columns a gate and up (main: 1.33 waves at (1024, 2816), T = 1024)
# against 64 (--fmlp-wgmma-tile-n=64: 2.67 waves), each kernel's device
# time inside the module's step, serial launches, main's cache (c49) and
# the forced one (c49w64) one after the other, twice.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/c49 || exit 1
for round in 1 2; do
  for cache in c49 c49w64; do
    FMLP_CACHE_DIR=$PWD/.device/$cache timeout 100 python3 bench/kernel_times.py "" \
      build-gpu/lib/libfmlp_runtime.so --dtype bf16 --modules fmlp_serial \
      --tokens 384,512,640,768,896,1024 --shapes 1024x2816,4096x11008 --calls 30 \
      > "$R/k1-$cache-$round.txt" 2>&1
    echo "$cache round $round rc=$? $(( $(date +%s) - s )) s"
  done
done
for f in "$R"/k1-*.txt; do
  echo "== $f"; grep -E "fmlp_serial step|mlp_forward_k0_gate_up" "$f" | grep -v nograd | cut -c1-90
done
