#!/usr/bin/env bash
# Session 14, call 3: the PyTorch side on merged main. Bundle cache made
# here with python/tests/make-gpu-cache.sh .device/fmlp-cache (every spec
# under the default policy, save=gu; the benchmark's blocks under agu, gu,
# x, and gu, x in chunks of 8192).
# 1. gpu_modules.py modules: every module against HF, judged by the error
#    bound (default policy), frozen weights and biases (gradients only where
#    asked: .grad None, the weight-gradient kernels not run).
# 2. bench/bench_policies.py: time and memory per policy beside HF eager
#    and torch.compile, (4096, 11008) and (1024, 2816), T = 8192, 65536.
# 3. bench/bench_sweep.py at T = 64, 256: the narrow WGMMA variants (K2,
#    K4) like for like, fmlp against torch.compile, graph-replayed.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 150 python3 python/tests/gpu_modules.py modules > "$R/modules.log" 2>&1
echo "modules rc=$? $(grep -c '^pass' "$R/modules.log") pass $(grep -c '^FAIL' "$R/modules.log") FAIL $(( $(date +%s) - s )) s"
grep '^FAIL' "$R/modules.log" | head -8; grep -iE "frozen|skipped" "$R/modules.log" | head -8
timeout 250 python3 bench/bench_policies.py --out "$R" --rounds 2 --samples 2 --deadline-s 200 > "$R/policies.log" 2>&1
echo "policies rc=$? $(( $(date +%s) - s )) s"; grep -vE "^\s*$" "$R/policies.log" | tail -32
left=$(( 540 - ($(date +%s) - s) ))
[ $left -gt 50 ] && timeout $left python3 bench/bench_sweep.py --out "$R" --tokens 64,256 --first 64,256 \
  --impls fmlp,hf_compile --launches graph --deadline-s $(( left - 20 )) > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -E "^\|" "$R/sweep.md" 2>/dev/null | head -30
