#!/usr/bin/env bash
# Session 15, call 3: what split-K buys at a few hundred tokens.
# 1. bench/compare_bundles.py, raw launches per kernel: A = the default
#    bf16 bundles compiled with --fmlp-split-k=1 (.device/ab-s1: the narrow
#    variants unsplit, as in session 14), B = the rule's split-K; T = 64,
#    128, 256, both shapes.
# 2. gpu_modules.py modules again (call 2's kernel-name check did not know
#    split-K's suffixes).
# 3. bench/bench_sweep.py at T = 64, 128, 256: module against module,
#    fmlp against torch.compile (and eager), graph-replayed, no-grad and
#    training.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
for t in 64 128 256; do
  timeout 60 python3 bench/compare_bundles.py .device/ab-s1 .device/bundles build-gpu/lib/libfmlp_runtime.so \
    --tokens $t --rounds 3 > "$R/ab-T$t.log" 2>&1
  echo "ab T=$t rc=$? $(( $(date +%s) - s )) s"
  grep -E "D=|down|input_grad|zero_counters" "$R/ab-T$t.log" | head -14
done
timeout 90 python3 python/tests/gpu_modules.py modules > "$R/modules.log" 2>&1
echo "modules rc=$? $(grep -c '^pass' "$R/modules.log") pass $(grep -c '^FAIL' "$R/modules.log") FAIL $(( $(date +%s) - s )) s"
grep '^FAIL' "$R/modules.log" | head -8
left=$(( 500 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_sweep.py --out "$R" --tokens 64,128,256 --first 64,128,256 \
  --impls fmlp,hf_eager,hf_compile --launches graph --deadline-s $(( left - 20 )) > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -E "^\||^#" "$R/sweep.md" 2>/dev/null | head -40
