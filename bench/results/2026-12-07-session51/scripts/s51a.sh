#!/usr/bin/env bash
# Session 51, call 2 (make-s51a.sh's bundles; carry .device/s51,
# .device/include):
# 1. each bf16 kernel per strategy beside cuBLAS, raw launches, T = 8192:
#    the new default (TMA, slots released on mbarriers, grouped tiles),
#    two blocks of 4 warps a multiprocessor (by TMA; by cp.async, as
#    sm_80 would run them), 2 stages in PTX 8.7 (sm_120's
#    kernels: TMA loads into shared::cta), and the cp.async kernels
#    (session 50's cubins) last;
# 2. the block tests (poisoned outputs, controls) of the default, bf16 and
#    f16, edge shapes, [in, out] weights, save and chunk variants, LoRA;
#    of the two-block and 2-stage variants on a subset; memcheck and
#    racecheck of the default and the two-block kernels.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/s51 || exit 1
lib=build-gpu/lib/libfmlp_runtime.so S=.device/s51 B=.device/s51/tests test=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
block() {  # LOG BUNDLE DTYPE D H T...
  local log=$1; shift
  timeout 150 $test "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s" >> "$R/$log"
}
summary() {  # LOG
  echo "$1 $(( $(date +%s) - s )) s: $(grep -c ' pass$' $R/$1) pass, $(grep -c 'failed as it must' $R/$1) controls failed as they must, $(grep -cE 'FAIL|CONTROL PASSED' $R/$1) failures"
  grep -E "FAIL|CONTROL PASSED| rc=[1-9]" $R/$1 | head -10
}
block blocks.txt $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 0 1 17 33 37 64 65 129 257 2597 4096
block blocks.txt $B/mlp-f16-1024-2816.bundle f16 1024 2816 17 129 257 4096
block blocks.txt $B/mlp-bf16-64-128.bundle bf16 64 128 17 37 4096
block blocks.txt $B/mlp-bf16-1088-704.bundle bf16 1088 704 17 37 4096
block blocks.txt $B/mlp-bf16-1024-2816-in-out.bundle bf16 1024 2816 17 257 2597
block blocks.txt $B/mlp-bf16-1024-2816-gu-c0.bundle bf16 1024 2816 17 37 2597
block blocks.txt $B/mlp-bf16-1024-2816-x-c1024.bundle bf16 1024 2816 17 1000 2049 2597
block blocks.txt $B/mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 37
block blocks.txt $B/mlp-lora-f16-1024-2816-r16-rd16-gu-c0.bundle f16 1024 2816 257
summary blocks.txt
for v in tests2b tests-s2; do
  block blocks-$v.txt $S/$v/mlp-bf16-1024-2816.bundle bf16 1024 2816 1 33 65 129 257 2597
  block blocks-$v.txt $S/$v/mlp-f16-1024-2816.bundle f16 1024 2816 37 257
  block blocks-$v.txt $S/$v/mlp-bf16-64-128.bundle bf16 64 128 17 4096
  block blocks-$v.txt $S/$v/mlp-bf16-1088-704.bundle bf16 1088 704 37 4096
  block blocks-$v.txt $S/$v/mlp-lora-bf16-1024-2816-r32-rd16-agu-c0.bundle bf16 1024 2816 65
  summary blocks-$v.txt
done
for tool in memcheck racecheck; do
  for b in $B/mlp-bf16-1024-2816.bundle $S/tests2b/mlp-bf16-1024-2816.bundle; do
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $test $b bf16 1024 2816 37 \
      >> "$R/$tool.txt" 2>&1; echo "$tool $b rc=$? $(( $(date +%s) - s )) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.txt | tail -1)"
  done
done
timeout 200 python3 bench/bench_strategies.py $lib mma=$S/mma mma_2b=$S/mma_2b mma_s2=$S/mma_s2 \
  mma_2b_cpa=$S/mma_2b_cpa mma_cpa=$S/mma_cpa --tokens 8192 --rounds 3 --out "$R" > "$R/strategies.txt" 2>&1
echo "strategies rc=$? $(( $(date +%s) - s )) s"
python3 - "$R/strategies.md" <<'PY'
import sys
for line in open(sys.argv[1]):
    if line.startswith("## "): print(line.strip())
    if not line.startswith("| "): continue
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if cells[0] == "kernel": head = cells
    if cells[0].startswith("-"): continue
    keep = [c for h, c in zip(head, cells) if h == "kernel" or h.endswith("x cuBLAS") or h.endswith("TFLOP/s")]
    print("| " + " | ".join(keep) + " |")
PY
block blocks-4096.txt $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 257 4096
block blocks-4096.txt $S/tests2b/../mma_2b/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096
summary blocks-4096.txt
