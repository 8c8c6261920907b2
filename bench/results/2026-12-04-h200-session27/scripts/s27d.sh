#!/usr/bin/env bash
# Session 27 (issues 25, 22): small_tokens kernels for the augmented
# contractions (K1's [x | Z] x [Wg | Bg], K2's [A | Zd] x [Wd | Bd], each
# piece from its part; a K 16 past a multiple of 32 with its last chunk's
# pieces past K zeroed). Bundles made here (.device/lora: test/GPU's LoRA
# blocks; .device/cache: the modules' LoRA bundles).
# 1. fmlp-gpu-block-test on the LoRA bundles at T around the small_tokens
#    ranges (1, 3, 16: small_tokens; 17, 32, 33: its 32-token variant at
#    D = 1024 and the WGMMA ones), memcheck once.
# 2. bench/bench_lora.py --no-grad at (4096, 11008), T = 1, 16: fused
#    LoRA's forward against PEFT's (s27c's, before, in the same results).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local limit=$1; shift; timeout $limit "$test" "$@" >> "$R/lora-small.log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
L=.device/lora
run 60 $L/mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 1 3 16 17 32 33
run 60 $L/mlp-lora-bf16-1024-2816-r16-rd0-x-c1024.bundle bf16 1024 2816 1 16 17 2049
run 60 $L/mlp-lora-f16-1024-2816-r16-rd16-gu-c0.bundle f16 1024 2816 1 7 16 33
run 150 $L/mlp-lora-bf16-4096-11008-r32-rd16-agu-c0.bundle bf16 4096 11008 1 16
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED" "$R/lora-small.log" | sort | uniq -c
echo "pass: $(grep -c ' pass$' $R/lora-small.log), controls failed as they must: $(grep -c 'failed as it must' $R/lora-small.log)"
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 3 $test $L/mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 3 > "$R/memcheck-lora-small.log" 2>&1
echo "memcheck rc=$? $(( $(date +%s) - s )) s"; grep -E "ERROR SUMMARY" "$R/memcheck-lora-small.log" | tail -1
export PYTHONPATH=$PWD/python:$PWD/bench PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/cache
for t in 1 16; do
  timeout 120 python3 bench/bench_lora.py --shape 4096x11008 --tokens $t --no-grad --rounds 3 \
    --impls peft_eager,peft_compile,fmlp_lora,fmlp_lora_compile,fmlp_frozen > "$R/lora-nograd-4096-t$t.txt" 2>&1
  echo "no-grad T=$t rc=$? $(( $(date +%s) - s )) s"; grep -v -i warn "$R/lora-nograd-4096-t$t.txt" | tail -6
done
