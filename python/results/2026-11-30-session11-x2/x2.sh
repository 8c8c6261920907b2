#!/usr/bin/env bash
# Device (2 GPUs): fmlp.parallel on the final kernels: the TP/DDP/FSDP2 test,
# then the scaling benchmark at P = 2 and 1. Session 11: main at c164ef6
# (cache .device/fmlp-cache11).
cd "$(dirname "$0")/.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja >/dev/null && cmake --build build-gpu >/dev/null || { echo build failed; exit 2; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache11 PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so \
  NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi -L
timeout 150 torchrun --nproc-per-node 2 python/tests/gpu_tensor_parallel.py tp > $R/tp.log 2>&1; echo "tp rc=$? $(grep -c '^pass' $R/tp.log) pass $(grep -c '^FAIL' $R/tp.log) FAIL $(( $(date +%s) - s )) s"
for p in 2 1; do
  timeout 100 torchrun --nproc-per-node $p python/tests/gpu_tensor_parallel.py bench --out $R/tp-bench-$p.json > $R/tp-bench-$p.log 2>&1; echo "bench $p rc=$? $(( $(date +%s) - s )) s"; grep -E "^(strong|weak)" $R/tp-bench-$p.log
done
