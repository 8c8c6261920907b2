#!/usr/bin/env bash
# Session 30, call 5: this tree's kernels (the small_tokens weights' loads
# .L2::128B) judged and timed. gpu_lanes.py on its bundles
# (.device/sd16); the GPU block tests (error bounds, poisoned outputs,
# controls) of make-bundles.sh's bf16 and f16 bundles where T <= 16 takes the
# small_tokens kernels (and a few T past them), the memory-policy variants
# whose last chunk is a few tokens, LoRA, the edge shapes; memcheck once;
# then bench_sweep's no-grad forward and training step graph-replayed, fmlp
# = main's bundles (.device/lanes), fmlp_b = this tree's (.device/sd16),
# beside torch.compile (no-grad only).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/lanes \
  FMLP_B_CACHE_DIR=$PWD/.device/sd16
FMLP_CACHE_DIR=$PWD/.device/sd16 timeout 100 python3 python/tests/gpu_lanes.py > "$R/gpu-lanes.log" 2>&1
echo "gpu_lanes rc=$? $(( $(date +%s) - s )) s"; grep -E "FAIL|passed" "$R/gpu-lanes.log" | tail -5
source test/GPU/shapes.sh
test=build-gpu/fmlp-gpu-block-test; B=.device/gpu-bundles; L=$R/blocks.log
run() { timeout 100 "$test" "$@" >> "$L" 2>&1 || echo "FAILED: $*" | tee -a "$L"; }
for dtype in bf16 f16; do run $B/mlp-$dtype-1024-2816.bundle $dtype 1024 2816 0 1 2 3 8 15 16 17 33 37; done
run $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 1 16
for shape in $gpu_test_edge_shapes; do d=${shape%x*} h=${shape#*x}; run $B/mlp-bf16-$d-$h.bundle bf16 $d $h 1 3 16 17 37; done
for v in x:1024 u:1024 gu:1024; do IFS=: read -r save chunk <<<"$v"; run $B/mlp-bf16-1024-2816-$save-c$chunk.bundle bf16 1024 2816 1 17 2049; done
for v in bf16:32:16:agu:0 bf16:16:0:x:1024 f16:16:16:gu:0; do
  IFS=: read -r dtype r rd save chunk <<<"$v"
  run $B/mlp-lora-$dtype-1024-2816-r$r-rd$rd-$save-c$chunk.bundle $dtype 1024 2816 1 16 17
done
echo "blocks $(( $(date +%s) - s )) s pass: $(grep -c ' pass$' $L), controls failed as they must: $(grep -c 'failed as it must' $L), failures: $(grep -cE 'FAIL|CONTROL PASSED|NOT REFUSED' $L)"
grep -E "FAIL|CONTROL PASSED|NOT REFUSED" $L | head -8
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 3 $test $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 $gpu_test_sanitized_tokens 3 > "$R/memcheck.log" 2>&1
echo "memcheck rc=$? $(( $(date +%s) - s )) s"; tail -2 "$R/memcheck.log"
timeout 200 python3 bench/bench_sweep.py --out "$R/sweep" --modes nograd,train --launches graph \
  --impls fmlp,fmlp_b,hf_compile --skip train/hf_compile/graph --tokens 1,4,16,64 --first 1 \
  --rounds 5 --deadline-s 180 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -A9 "^## " "$R/sweep/sweep.md"
