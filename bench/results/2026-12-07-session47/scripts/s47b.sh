#!/usr/bin/env bash
# Session 47, call 2 (carry .device/a47, .device/b47, .device/include;
# make-s47b.sh): small_tokens kernels of 64 tokens (issue 22).
#   a47: main's bf16 bundles at the Llama shapes (session 46's, b2c0ceb)
#   b47: this tree's compiler with --fmlp-small-tokens-max=64: K1 and K2 of
#        both forwards on the 64-token small_tokens kernels for T <= 64
# 1. block tests of b47 at T = 1..65 around the boundaries, both shapes;
#    memcheck and racecheck at T = 37;
# 2. raw launches, a47 against b47, T = 17..64 (compare_bundles.py);
# 3. the modules graph-replayed, fmlp (a47) against fmlp_b (b47) and
#    torch.compile, no-grad and training, T = 16, 32, 48, 64.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/a47 .device/b47 || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
lib=build-gpu/lib/libfmlp_runtime.so t=build-gpu/fmlp-gpu-block-test
for side in a47 b47; do  # compare_bundles.py's names
  mkdir -p /tmp/$side
  for shape in 1024-2816 4096-11008; do
    ln -sfn "$PWD/.device/$side/fmlp0.3.0-d${shape%-*}-h${shape#*-}-bf16-silu-sm_90a-savegu.bundle" \
      /tmp/$side/mlp-bf16-$shape.bundle
  done
done
for shape in 1024-2816 4096-11008; do
  timeout 120 $t /tmp/b47/mlp-bf16-$shape.bundle bf16 ${shape/-/ } 1 2 3 15 16 17 31 32 33 37 48 63 64 65 \
    > "$R/blocks-$shape.log" 2>&1
  echo "blocks $shape rc=$? pass: $(grep -c ' pass$' $R/blocks-$shape.log), controls failed as they must: $(grep -c 'failed as it must' $R/blocks-$shape.log) $(( $(date +%s) - s )) s"
  grep -E "FAIL|NOT REFUSED|CONTROL PASSED" "$R/blocks-$shape.log" | head -5
done
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 3 $t /tmp/b47/mlp-bf16-1024-2816.bundle bf16 1024 2816 37 \
    > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$R/$tool.log") $(( $(date +%s) - s )) s"
done
timeout 120 python3 bench/compare_bundles.py /tmp/a47 /tmp/b47 $lib --tokens 17,32,33,48,64 \
  --entries-only --rounds 7 > "$R/ab.txt" 2>&1
echo "ab rc=$? $(( $(date +%s) - s )) s"; grep -vE "^\s*$" "$R/ab.txt" | tail -24
timeout 240 python3 bench/bench_sweep.py --out "$R/sweep" --modes nograd,train --launches graph \
  --impls fmlp,fmlp_b,hf_compile --tokens 16,32,48,64 --first 16 \
  --rounds 5 --deadline-s 220 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -A9 "^## " "$R/sweep/sweep.md" | head -48
