#!/usr/bin/env bash
# Session 45, call 1 (carry .device/s45, .device/s45c, .device/acc45,
# .device/include, .device/none): s45a.sh, then s45c.sh (and s45b.sh where
# PARTS names it), each into its own directory of $OUT.
cd "$(dirname "$0")" || exit 1
for part in ${PARTS:-a c}; do
  mkdir -p "${OUT:-/tmp}/$part"
  echo "== s45$part"; OUT=${OUT:-/tmp}/$part bash ./s45$part.sh
done
