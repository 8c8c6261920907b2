#!/usr/bin/env bash
# Compiles the bundles the GPU-side Python tests and benchmarks use
# (python/tests/gpu_modules.py, gpu_tensor_parallel.py, gpu_peft_guard.py,
# bench/bench_torch.py, bench/bench_sweep.py, bench/bench_policies.py,
# bench/accuracy_fp32.py: bf16 and f32 (f16 for autocast)
# silu at (1024, 2816) and
# (4096, 11008); a bundle serves every T, each entry's T is dynamic)
# into a cache directory: the GPU machine has no fmlp-compile. f32 blocks
# at precision highest (what the modules run under PyTorch's default
# setting), and the benchmark's blocks at every precision.
#   make-gpu-cache.sh DIR      (DTYPES="f32" or "bf16" narrows it)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export FMLP_CACHE_DIR=${1:?usage: make-gpu-cache.sh DIR}
export PATH="${FMLP_BUILD_DIR:-$root/build}/bin:$PATH" PYTHONPATH="$root/python"
python3 - <<'PY'
import dataclasses
import os
from fmlp.policy import DEFAULT
from fmlp.spec import BlockSpec, find_or_compile
specs = []
for dtype in ("bf16", "f32"):
    for extra in ({}, {"bias": True}, {"activation": "gelu_tanh"},
                  {"gate_multiplier": 0.5, "down_multiplier": 0.25}):
        specs.append(BlockSpec(1024, 2816, dtype, **extra))
# The benchmark's large block, and the shards of tensor parallelism
# (H / p for p = 2, 4, 8).
specs.append(BlockSpec(4096, 11008, "bf16"))
for p in (2, 4, 8):
    specs.append(BlockSpec(4096, 11008 // p, "bf16"))
for p in (2, 4):
    for dtype in ("bf16", "f32"):
        specs.append(BlockSpec(1024, 2816 // p, dtype))
# fp16 under torch.autocast (gpu_modules.py autocast; bf16's are above).
for extra in ({}, {"bias": True}):
    specs.append(BlockSpec(1024, 2816, "f16", **extra))
# The tiny Llama of gpu_peft_guard.py, with its LoRA adapters (r = 16 on
# gate, up and down: R = 32, Rd = 16; Falcon-H1's multipliers and Gemma's
# GELU in f32 only), and the Llama of its fine-tuning run (what
# gpu_peft_guard.py --make-cache DIR compiles); the widths of
# gpu_modules.py tiny.
lora = dict(lora_rank=32, down_lora_rank=16)
for dtype in ("bf16", "f32"):
    specs.append(BlockSpec(256, 704, dtype))
    specs.append(BlockSpec(256, 704, dtype, **lora))
    specs.append(BlockSpec(1024, 2816, dtype, **lora))
specs.append(BlockSpec(256, 704, "f32", "gelu_tanh", **lora))
specs.append(BlockSpec(256, 704, "f32", gate_multiplier=0.5, down_multiplier=0.25, **lora))
for dtype in ("bf16", "f32"):
    for d, h in ((32, 37), (12, 40)):
        for extra in ({}, {"bias": True}, {"activation": "gelu_tanh"}):
            specs.append(BlockSpec(d, h, dtype, **extra))
# Every spec under the default memory policy (what the modules run
# without one), and the benchmark's blocks under each policy
# (bench/bench_policies.py).
specs = [dataclasses.replace(s, save=DEFAULT.save, chunk_tokens=DEFAULT.chunk_tokens,
                             precision="highest" if s.dtype == "f32" else "ieee")
         for s in specs]
for d, h in ((1024, 2816), (4096, 11008)):
    for save, chunk in (("agu", 0), ("gu", 0), ("u", 0), ("x", 0), ("gu", 8192), ("u", 8192),
                        ("u", 4096), ("x", 8192)):
        specs.append(BlockSpec(d, h, "bf16", save=save, chunk_tokens=chunk))
# fp32 at each precision (bench/accuracy_fp32.py, with and without biases;
# bench/bench_precision.py at both shapes).
for precision in ("highest", "ieee", "tf32", "tf32x3"):
    for d, h, bias in ((1024, 2816, False), (1024, 2816, True), (4096, 11008, False)):
        specs.append(BlockSpec(d, h, "f32", bias=bias, precision=precision,
                               save=DEFAULT.save))
# gpu_modules.py precisions' control (tf32 judged by tf32x3's bound) at
# its CONTROL_WIDTHS.
specs.append(BlockSpec(64, 128, "f32", precision="tf32", save=DEFAULT.save))
dtypes = os.environ.get("DTYPES", "bf16 f16 f32").split()
for spec in dict.fromkeys(specs):
    if spec.dtype in dtypes:
        print(find_or_compile(spec), flush=True)
PY
