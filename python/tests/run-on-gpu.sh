#!/usr/bin/env bash
# The Python package's GPU checks and benchmarks, in one go on a GPU
# machine (no MLIR there): builds the runtime and the judge, then runs
# python/tests/gpu_modules.py (every mode), gpu_peft_guard.py (PEFT and the
# guard), gpu_tensor_parallel.py (shards;
# tp and bench under torchrun when there are several GPUs) and
# bench/bench_torch.py, one log each under OUTDIR.
#   run-on-gpu.sh CACHE OUTDIR [JSON_INCLUDE_DIR] [checks|bench|all]
# CACHE: bundles from python/tests/make-gpu-cache.sh.
set -uo pipefail
cache=${1:?usage: run-on-gpu.sh CACHE OUTDIR [JSON_INCLUDE_DIR] [checks|bench|all]}
out=${2:?usage: run-on-gpu.sh CACHE OUTDIR [JSON_INCLUDE_DIR] [checks|bench|all]}
json=${3:-}
what=${4:-all}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
cmake -S "$root/test/GPU" -B "$root/build-gpu" -G Ninja \
  ${json:+-DFMLP_JSON_INCLUDE_DIR=$json} > "$out/build.log" 2>&1 &&
  cmake --build "$root/build-gpu" >> "$out/build.log" 2>&1 || { tail "$out/build.log"; exit 1; }
# FMLP_STRICT: a block without kernels raises instead of running HF's forward.
export PYTHONPATH="$root/python" FMLP_CACHE_DIR="$cache" PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB="$root/build-gpu/lib/libfmlp_runtime.so" \
  NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
gpus=$(nvidia-smi -L | wc -l)
status=0
step() {  # step NAME SECONDS COMMAND...: runs it, logs it, says how it ended
  local name=$1 limit=$2
  shift 2
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  [ $rc -ne 0 ] && status=1
  echo "$name: exit $rc ($(grep -c '^pass' "$out/$name.log") pass, $(grep -c '^FAIL' "$out/$name.log") FAIL)"
}
tests=$root/python/tests
if [ "$what" != bench ]; then
  step modules 240 python3 "$tests/gpu_modules.py" modules
  step train 120 python3 "$tests/gpu_modules.py" train
  step graph-callables 60 python3 "$tests/gpu_modules.py" graph-callables
  step graph-step 90 python3 "$tests/gpu_modules.py" graph-step
  step autocast 120 python3 "$tests/gpu_modules.py" autocast
  step regimes 120 python3 "$tests/gpu_modules.py" regimes
  step tiny 120 python3 "$tests/gpu_modules.py" tiny
  step fallbacks 60 python3 "$tests/gpu_modules.py" fallbacks
  step peft-guard 420 python3 "$tests/gpu_peft_guard.py"
  step shards 120 python3 "$tests/gpu_tensor_parallel.py" shards
  [ "$gpus" -ge 2 ] && step tp 180 torchrun --nproc-per-node "$gpus" "$tests/gpu_tensor_parallel.py" tp
fi
if [ "$what" != checks ]; then
  for p in 1 $( [ "$gpus" -ge 2 ] && echo "$gpus" ); do
    step "tp-bench-$p" 150 torchrun --nproc-per-node "$p" "$tests/gpu_tensor_parallel.py" bench \
      --out "$out/tp-bench-$p.json"
    grep -E "^(strong|weak)" "$out/tp-bench-$p.log"
  done
  step bench-torch 300 python3 "$root/bench/bench_torch.py" --out "$out/bench-torch.json"
  grep -E "ratio|MLP alone|Llama" "$out/bench-torch.log"
fi
exit $status
