#!/usr/bin/env bash
# Session 51, call 3 (make-s51b.sh's bundles; carry .device/s51b,
# .device/include): the TMA-staged mma_sync kernels with each slot's
# release fenced for the async proxy. Call 2 found the two-block kernels'
# eager dx at (4096, 11008), T = 4096, not bitwise as the graph's; the
# same block tests again (twice for the two-block kernels, then once with
# serial launches), and the default's.
cd "$(dirname "$0")/../../../.." || exit 1
source bench/device-session.sh .device/s51b || exit 1
S=.device/s51b test=build-gpu/fmlp-gpu-block-test
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader | tee "$R/gpu.txt"
block() {  # LOG BUNDLE DTYPE D H T...
  local log=$1; shift
  timeout 120 $test "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s" >> "$R/$log"
}
block blocks.txt $S/mma_2b/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096
block blocks.txt $S/mma_2b/mlp-bf16-1024-2816.bundle bf16 1024 2816 2597 4096
block blocks.txt $S/mma/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096
block blocks.txt $S/mma_2b/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096
# Every launch on the caller's stream (input_grad's lane too): a race
# between kernels that share a multiprocessor at ~98 KB a block, not
# within one, would vanish here.
FMLP_SERIAL_LAUNCHES=1 block blocks.txt $S/mma_2b/mlp-bf16-4096-11008.bundle bf16 4096 11008 4096
echo "blocks $(( $(date +%s) - s )) s: $(grep -c ' pass$' $R/blocks.txt) pass, $(grep -c 'failed as it must' $R/blocks.txt) controls failed as they must, $(grep -cE 'FAIL|CONTROL PASSED' $R/blocks.txt) failures"
grep -E "FAIL|CONTROL PASSED| rc=|dx \(forward\)|bitwise" $R/blocks.txt
