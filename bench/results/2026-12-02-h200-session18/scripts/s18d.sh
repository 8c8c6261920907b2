#!/usr/bin/env bash
# Session 18, call 4: programmatic dependent launch (griddepcontrol; the
# small_tokens kernels prefetch 8 chunks of their weights into L2 before
# waiting). Bundles made here from this tree (bf16 SwiGLU, save=agu, as
# make-bundles.sh's defaults):
#   .device/bundles-pdl     fmlp-compile (programmatic launches)
#   .device/bundles-nopdl   fmlp-compile --fmlp-programmatic-launch=false
#   .device/cache-pdl       the (1024, 2816) bf16 module bundle (save=gu)
# 1. fmlp-gpu-block-test on the PDL bundles (eager and graph-replayed,
#    every T range of the variants), memcheck and racecheck.
# 2. gpu_modules.py graph-step and graph-callables (PyTorch's CUDA graphs
#    capture the programmatic launches).
# 3. compare_bundles.py, A = without, B = with, entries only, graph-replayed
#    and eager, T = 1, 16, 64, 256, 8192.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 150 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
B=.device/bundles-pdl
run gpu-pdl.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 3 16 17 37 128 129 256 257 2597 4096
run gpu-pdl.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 1 16 17 129 257 4096
grep -E "failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R"/gpu-pdl.log | sort | uniq -c
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 3 37 > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$R/$tool.log" | tail -1
done
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
export FMLP_CACHE_DIR=$PWD/.device/cache-pdl
for mode in graph-step graph-callables; do
  timeout 100 python3 python/tests/gpu_modules.py $mode > "$R/gpu-modules-$mode.log" 2>&1
  echo "$mode rc=$? $(( $(date +%s) - s )) s"; tail -2 "$R/gpu-modules-$mode.log"
done
timeout 150 python3 bench/compare_bundles.py .device/bundles-nopdl $B $FMLP_RUNTIME_LIB \
  --tokens 1,16,64,256,8192 --entries-only --graph --rounds 5 > "$R/compare-graph.txt" 2>&1
echo "compare graph rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare-graph.txt"
timeout 100 python3 bench/compare_bundles.py .device/bundles-nopdl $B $FMLP_RUNTIME_LIB \
  --tokens 1,16,256,8192 --entries-only --rounds 5 > "$R/compare-eager.txt" 2>&1
echo "compare eager rc=$? $(( $(date +%s) - s )) s"; cat "$R/compare-eager.txt"
# 4. (s18c.sh, refused a machine earlier) fp32 modules under
#    torch.compile(fullgraph=True) after the fix, the retrace on a new
#    setting, a CUDA graph.
export FMLP_CACHE_DIR=$PWD/.device/fmlp-cache-highest
timeout 200 python3 python/tests/gpu_modules.py precisions > "$R/gpu-modules-precisions.log" 2>&1
echo "precisions rc=$? $(( $(date +%s) - s )) s"; grep -E "FAIL|compile|graph|failed" "$R/gpu-modules-precisions.log" | tail -12
