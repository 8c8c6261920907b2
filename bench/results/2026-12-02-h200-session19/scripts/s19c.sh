#!/usr/bin/env bash
# Session 19, call 3: the kept form (A whose rows are T in boxes of 32
# rows, a box past T not loaded). Bundles made here from this tree:
#   .device/bundles-final  test/GPU/make-bundles.sh, DTYPES="bf16 f16"
#   .device/cache          python/tests/make-gpu-cache.sh, DTYPES=bf16
# 1. fmlp-gpu-block-test at (4096, 11008), one T per run (the float64
#    reference takes ~30 s a T there), and at (1024, 2816), f16, the edge
#    shapes, a chunked bundle; racecheck at T = 37.
# 2. bench/bench_sweep.py, graph-replayed, fmlp against HF eager and
#    torch.compile, T = 32, 64, 16, 128, 256 as the deadline allows.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
B=.device/bundles-final
run() { local log=$1; shift; timeout 60 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
for t in 17 33 64 65; do
  run gpu-final.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 $t &
done
wait
run gpu-final.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 16 17 31 32 33 37 64 65 127 128 129 255 256 257 2597
run gpu-final.log $B/mlp-f16-4096-11008.bundle f16 4096 11008 33
run gpu-final.log $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 33 65 129 257
run gpu-final.log $B/mlp-bf16-64-128.bundle bf16 64 128 1 17 37 65 257 4096
run gpu-final.log $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 65 129 257
run gpu-final.log $B/mlp-bf16-1024-2816-x-c64.bundle bf16 1024 2816 37 129
run gpu-final.log $B/mlp-bf16-1024-2816-u-c1024.bundle bf16 1024 2816 17 1000 2049
grep -E "failure\(s\)|FAIL|CONTROL PASSED|DID NOT" "$R"/gpu-final.log | sort | uniq -c
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 3 $test $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 > "$R/racecheck.log" 2>&1
echo "racecheck rc=$? $(( $(date +%s) - s )) s"; grep -E "RACECHECK SUMMARY" "$R/racecheck.log" | tail -1
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so
left=$(( 480 - ($(date +%s) - s) ))
timeout $left python3 bench/bench_sweep.py --out "$R" --tokens 32,64,16,128,256 --first 32,64 \
  --impls fmlp,hf_eager,hf_compile --launches graph --deadline-s $(( left - 15 )) > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -E "^\||^#" "$R/sweep.md" 2>/dev/null | head -50
