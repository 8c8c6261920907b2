#!/usr/bin/env bash
# Issue 21's check, no GPU needed: fmlp-compile --chip=C --check-resources
# for every chip of include/fmlp/Target.h on the bf16 and f32 Llama-7B
# examples; per bundle, ptxas's kernels, their most registers, spills and
# most shared memory, against the chip's limit. Writes TABLE.md and the
# ptxas logs beside this script.
#   bench/results/2026-12-01-chip-table/run.sh [BUILD]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../../.." && pwd)
compile=${1:-$root/build}/bin/fmlp-compile
chips=$("$compile" --help | sed -n 's/.*GPU to generate kernels for: //p' | tr -d ',')
out="$here/TABLE.md"; tmp=$(mktemp -d)
{
echo "| chip | example | kernels | of which small_tokens | max registers | spill bytes | max shared (B) | chip's limit (B) | exit |"
echo "|---|---|---|---|---|---|---|---|---|"
for chip in $chips; do
  for dtype in bf16 f32; do
    b="$tmp/$chip-$dtype.bundle"
    "$compile" "$root/examples/llama-7b-mlp.linalg.$dtype.mlir" --chip=$chip --check-resources \
      --report=false -o "$b" > "$tmp/$chip-$dtype.out" 2>&1; rc=$?
    log="$b/ptxas.log"; cp "$log" "$here/ptxas-$chip-$dtype.log" 2>/dev/null
    kernels=$(grep -c "Compiling entry function" "$log" 2>/dev/null)
    regs=$(grep -o "Used [0-9]* registers" "$log" | awk '{print $2}' | sort -n | tail -1)
    spill=$(grep -o "[0-9]* bytes spill stores" "$log" | awk '{s+=$1} END {print s+0}')
    smem=$(grep -o "[0-9]* bytes smem" "$log" | awk '{print $1}' | sort -n | tail -1)
    dyn=$(python3 -c "import json,sys; m=json.load(open('$b/manifest.json')); print(max(l['dynamic_shared_bytes'] for e in m['entry_points'] for l in e['launches']))" 2>/dev/null)
    strategies=$(grep -c "Compiling entry function '.*_small_tokens'" "$log" 2>/dev/null)
    limit=$(grep -A0 "\"$chip\"," "$root/include/fmlp/Target.h" | awk -F, '{print $7}' | tr -d ' ')
    echo "| $chip | $dtype | $kernels | $strategies | $regs | $spill | static $smem, dynamic $dyn | $limit | $rc |"
  done
done
} > "$out"
rm -rf "$tmp"; cat "$out"
