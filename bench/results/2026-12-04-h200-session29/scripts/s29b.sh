#!/usr/bin/env bash
# Session 29, call 2: every launch of the no-grad forward programmatic
# (this tree's rule; .device/cache recompiled), against main's bundles
# (.device/main: only the small_tokens kernels programmatic).
# Correctness: gpu_lanes.py (the no-grad forward's y, programmatic against
# serial launches, eager and graph-replayed, bit for bit, T around every
# variant's range; the training step's side stream as before), the block
# test's error bounds, gpu_modules.py's graph and regime suites.
# Timing: bench_sweep.py no-grad, fmlp against fmlp_b (main) and
# torch.compile, same run, eager and graph-replayed.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache \
  FMLP_B_CACHE_DIR=$PWD/.device/main
echo "built $(( $(date +%s) - s )) s"
timeout 200 python3 python/tests/gpu_lanes.py > "$R/gpu-lanes.log" 2>&1
echo "gpu_lanes rc=$? $(( $(date +%s) - s )) s"; grep -E "FAIL|passed" "$R/gpu-lanes.log" | tail -5
test=build-gpu/fmlp-gpu-block-test
c=.device/cache/fmlp0.3.0
timeout 60 $test $c-d1024-h2816-bf16-silu-sm_90a-savegu.bundle bf16 1024 2816 1 17 33 129 257 513 2049 > "$R/blocks.log" 2>&1; echo "blocks 1024 rc=$?"
timeout 60 $test $c-d4096-h11008-bf16-silu-sm_90a-savegu.bundle bf16 4096 11008 1 33 257 513 >> "$R/blocks.log" 2>&1; echo "blocks 4096 rc=$?"
echo "pass: $(grep -c ' pass$' $R/blocks.log), controls failed as they must: $(grep -c 'failed as it must' $R/blocks.log)"
grep -E "FAIL|NOT REFUSED|CONTROL PASSED" "$R/blocks.log" | head -5
for m in graph-step graph-callables regimes; do
  timeout 100 python3 python/tests/gpu_modules.py $m > "$R/gpu-modules-$m.log" 2>&1; echo "gpu_modules $m rc=$? $(tail -1 $R/gpu-modules-$m.log)"
done
echo "tests done $(( $(date +%s) - s )) s"
timeout 300 python3 bench/bench_sweep.py --out "$R/sweep" --modes nograd \
  --impls fmlp,fmlp_b,hf_compile --tokens 1,4,16,32,64,128,256,512,1024,4096,8192 --first 64,256 \
  --rounds 5 --deadline-s 280 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -A16 "^## no-grad" "$R/sweep/sweep.md"
