#!/usr/bin/env bash
# Session 30, call 2: the small_tokens weight loads' L2 prefetch size.
# compare_bundles (raw launches) of .L2::64B, .L2::128B (again) and
# .L1::no_allocate.L2::128B against main's; block tests of the .L2::128B
# bundles; bench_sweep's no-grad forward, fmlp (main's bundles, .device/lanes)
# against fmlp_b (.L2::128B, .device/s128) and torch.compile, graph-replayed
# and eager.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/lanes \
  FMLP_B_CACHE_DIR=$PWD/.device/s128
for v in p128 p64 n128; do
  timeout 100 python3 bench/compare_bundles.py .device/ab/p0 .device/ab/$v build-gpu/lib/libfmlp_runtime.so \
    --tokens 1,4,16 --entries-only --rounds 9 > "$R/ab-$v.txt" 2>&1
  echo "ab $v rc=$? $(( $(date +%s) - s )) s"; grep -E "no-grad" "$R/ab-$v.txt" | tr -s ' ' | tr '\n' ';'; echo
done
for shape in 1024x2816 4096x11008; do
  timeout 120 build-gpu/fmlp-gpu-block-test .device/ab/p128/mlp-bf16-${shape/x/-}.bundle bf16 ${shape/x/ } 1 3 16 17 > "$R/blocks-$shape.log" 2>&1
  echo "blocks $shape rc=$? pass: $(grep -c ' pass$' $R/blocks-$shape.log), controls failed as they must: $(grep -c 'failed as it must' $R/blocks-$shape.log) $(( $(date +%s) - s )) s"
  grep -E "FAIL|NOT REFUSED|CONTROL PASSED" "$R/blocks-$shape.log" | head -5
done
timeout 200 python3 bench/bench_sweep.py --out "$R/sweep" --modes nograd \
  --impls fmlp,fmlp_b,hf_compile --tokens 1,4,16 --first 1 \
  --rounds 5 --deadline-s 180 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -A12 "^## no-grad" "$R/sweep/sweep.md"
