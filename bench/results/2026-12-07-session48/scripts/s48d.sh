#!/usr/bin/env bash
# Session 48, call 7 (carry .device/a47, .device/b48, .device/include;
# make-s48d.sh): split-K's consumers whose 64 rows lie past M store and sum
# no partials (the upper half of the last row tile at T mod 128 in 1..64:
# K2 at T = 64 and (1024, 2816) ran 9.2 us against cuBLAS's 6.2, call 2).
#   a47: main's bf16 bundles (b2c0ceb's kernels)
#   b48: this tree's compiler (the split-K change)
# 1. block tests of b48 around every split-K range, both shapes; memcheck
#    and racecheck at T = 64;
# 2. the modules graph-replayed, fmlp (a47) against fmlp_b (b48) and
#    torch.compile, no-grad and training, T = 33..256.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/a47 .device/b48 || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
t=build-gpu/fmlp-gpu-block-test
mkdir -p /tmp/b48
for shape in 1024-2816 4096-11008; do
  ln -sfn "$PWD/.device/b48/fmlp0.3.0-d${shape%-*}-h${shape#*-}-bf16-silu-sm_90a-savegu.bundle" \
    /tmp/b48/mlp-bf16-$shape.bundle
done
timeout 90 $t /tmp/b48/mlp-bf16-1024-2816.bundle bf16 1024 2816 33 64 65 128 129 192 193 256 257 \
  > "$R/blocks-1024-2816.log" 2>&1
echo "blocks 1024-2816 rc=$? pass: $(grep -c ' pass$' $R/blocks-1024-2816.log), controls failed as they must: $(grep -c 'failed as it must' $R/blocks-1024-2816.log) $(( $(date +%s) - s )) s"
grep -E "FAIL|NOT REFUSED|CONTROL PASSED" "$R/blocks-1024-2816.log" | head -5
timeout 50 $t /tmp/b48/mlp-bf16-4096-11008.bundle bf16 4096 11008 64 \
  > "$R/blocks-4096-11008.log" 2>&1
echo "blocks 4096-11008 rc=$? pass: $(grep -c ' pass$' $R/blocks-4096-11008.log), controls failed as they must: $(grep -c 'failed as it must' $R/blocks-4096-11008.log) $(( $(date +%s) - s )) s"
grep -E "FAIL|NOT REFUSED|CONTROL PASSED" "$R/blocks-4096-11008.log" | head -5
for tool in memcheck; do  # (racecheck: the change touches no shared memory)
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 3 $t /tmp/b48/mlp-bf16-1024-2816.bundle bf16 1024 2816 64 \
    > "$R/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' "$R/$tool.log") $(( $(date +%s) - s )) s"
done
timeout 120 python3 bench/bench_sweep.py --out "$R/sweep" --modes nograd,train --launches graph \
  --impls fmlp,fmlp_b,hf_compile --tokens 64,128,192,256 --first 64 \
  --rounds 5 --deadline-s 100 > "$R/sweep.log" 2>&1
echo "sweep rc=$? $(( $(date +%s) - s )) s"; grep -A10 "^## " "$R/sweep/sweep.md" | head -48
