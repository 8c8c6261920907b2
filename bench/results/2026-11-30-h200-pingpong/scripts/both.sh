#!/usr/bin/env bash
# Device (session 10, call 1): the two branches prepared in session 9, each
# against main's kernels (bundles-ftz): k3-epilogue-ops first, then persistent.
cd "$(dirname "$0")/.."
O=${OUT:-/tmp}
mkdir -p $O/k3ops $O/persistent
OUT=$O/k3ops bash .device/k3ops.sh .device/bundles-k3ops 2>&1 | tee $O/k3ops/run.log
OUT=$O/persistent bash .device/persistent.sh .device/bundles-persistent 2>&1 | tee $O/persistent/run.log
