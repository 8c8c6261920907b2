#!/usr/bin/env bash
# Session 44's device call (carry .device/s44a, .device/s44c, .device/acc44,
# .device/include, .device/none): s44a.sh (the landing default: bits,
# A/B, block tests, sanitizers), s44c.sh (two mma_sync blocks a
# multiprocessor), s44b.sh (the module's fp32 step and errors), each into
# its own directory of $OUT.
cd "$(dirname "$0")" || exit 1
for part in a c b; do
  mkdir -p "${OUT:-/tmp}/$part"
  echo "== s44$part"; OUT=${OUT:-/tmp}/$part bash ./s44$part.sh
done
