#!/usr/bin/env bash
# Session 18, call 2: what session 17 left unrun, and run.sh's precision
# set as committed. Bundles made here from this tree:
#   DTYPES=f16 test/GPU/make-bundles.sh .device/bundles-f16
#   DTYPES=f32 test/GPU/make-bundles.sh .device/bundles-highest
# 1. f16 GPU tests under the per-step tensor-core sum bound (session 17's
#    s17i.sh, not run then): (4096, 11008) and (1024, 2816).
# 2. run.sh SETS=precisions DTYPES=f32: ieee, highest at D = 64, tf32,
#    tf32x3, each judged by its own bound.
# 3. The control that separates highest from tf32 where the bound can: a
#    tf32 bundle at (64, 128) judged by strict fp32's bound must fail.
# 4. gpu_modules.py precisions with torch.compile(fullgraph) and a CUDA
#    graph at PyTorch's default setting (f32 modules read it in forward).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 120 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
B=.device/bundles-f16
run gpu-f16.log $B/mlp-f16-4096-11008.bundle f16 4096 11008 1 17
run gpu-f16.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 1 17 129 2597
grep -E "failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R"/gpu-f16.log | sort | uniq -c
grep -h "control: other inputs" "$R"/gpu-f16.log
run control-tf32-by-ieee-64.log .device/bundles-highest/mlp-f32-64-128-tf32.bundle f32 64 128 17 4096 --contraction=ieee
grep -E "failure\(s\)" "$R"/control-tf32-by-ieee-64.log
SETS=precisions DTYPES=f32 timeout 400 bash test/GPU/run.sh .device/bundles-highest quick $PWD/.device/include > "$R/run-precisions.log" 2>&1
echo "run.sh precisions rc=$? $(( $(date +%s) - s )) s"
grep -E "^==|failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R/run-precisions.log" | head -40
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
export FMLP_CACHE_DIR=$PWD/.device/fmlp-cache-highest
timeout 150 python3 python/tests/gpu_modules.py precisions > "$R/gpu-modules-precisions.log" 2>&1
echo "precisions rc=$? $(( $(date +%s) - s )) s"; grep -E "FAIL|compile|graph|failed" "$R/gpu-modules-precisions.log" | tail -8
