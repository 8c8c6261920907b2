#!/usr/bin/env bash
# Session 14, call 2: the GPU tests on merged main (token variants, save=gu
# with K3 recomputing A, chunk-tokens, null outputs). Bundles made here with
#   DTYPES="bf16 f32" test/GPU/make-bundles.sh .device/bundles
# 1. test/GPU/run.sh quick, bf16: the default bundles (T = 0, 1, 2, 3, 16,
#    17, 37, 4096, 2597; edge shapes) and the memory-policy variants
#    (gu, x; agu, gu, x in chunks of 1024), then memcheck and racecheck
#    (T = 3 and 37; save=x in chunks of 64 at T = 129).
# 2. The f32 variant (save=x, chunks of 1024).
# 3. bench/profile_host.py: the host path by layer, T = 1.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
DTYPES=bf16 timeout 420 bash test/GPU/run.sh .device/bundles quick $PWD/.device/include > "$R/gpu-bf16.log" 2>&1
echo "bf16 rc=$? $(( $(date +%s) - s )) s"
grep -E "failure\(s\)|ERROR SUMMARY|^==|FAIL" "$R/gpu-bf16.log" | head -40
DTYPES=f32 SETS=variants timeout 120 bash test/GPU/run.sh .device/bundles quick $PWD/.device/include > "$R/gpu-f32-variant.log" 2>&1
echo "f32 variant rc=$? $(( $(date +%s) - s )) s"
grep -E "failure\(s\)|^==" "$R/gpu-f32-variant.log" | head
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
timeout 90 python3 bench/profile_host.py --d 1024 --h 2816 --tokens 1 > "$R/profile-host.log" 2>&1
echo "profile rc=$? $(( $(date +%s) - s )) s"; tail -25 "$R/profile-host.log"
