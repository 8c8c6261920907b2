#!/usr/bin/env bash
# The preamble of a device call (bench/results/*/scripts), sourced from the
# repository root on the GPU machine:
#
#   source bench/device-session.sh CACHE_DIR [B_CACHE_DIR]
#
# builds the runtime and the block-test driver into build-gpu (test/GPU's
# CMake project, nlohmann-json's headers carried in .device/include; the
# log in $R/build.log), and exports what the Python tests and benches
# read: the package and benches on PYTHONPATH, FMLP_STRICT=1 (a missing
# bundle is an error, not a compile: the machine has no fmlp-compile),
# the runtime library, FMLP_CACHE_DIR (and FMLP_B_CACHE_DIR for
# bench_sweep's fmlp_b). Sets R (the output directory) and s (the start,
# for elapsed seconds); returns 1 if the build fails. A device call
# returns at most eight files, so under a call ($OUT set) R is a scratch
# directory that comes back as one tarball, $OUT/results.tgz, written
# when the script exits and by `checkpoint` (call it after each part, so
# that a call cut by its time limit still returns what was done);
# elsewhere R is /tmp. Defines two helpers for the block tests:
#   block LOG BUNDLE DTYPE D H T... [OPTIONS]   fmlp-gpu-block-test (120 s
#       at most), its output and exit status appended to $R/LOG
#   summary LOG   one line: passes, controls that failed as they must,
#       failures; then the first failing lines
s=$(date +%s)
if [[ -n ${OUT:-} ]]; then
  R=$(mktemp -d)
  checkpoint() { tar czf "$OUT/results.tgz" -C "$R" .; }
  trap checkpoint EXIT
else
  R=/tmp
  checkpoint() { :; }
fi
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR="$PWD/.device/include" > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; return 1; }
export PYTHONPATH=$PWD/python:$PWD/bench:$PWD/python/tests PYTHONUNBUFFERED=1 FMLP_STRICT=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/${1:?usage: source bench/device-session.sh CACHE_DIR [B_CACHE_DIR]}
if [[ -n ${2:-} ]]; then export FMLP_B_CACHE_DIR=$PWD/$2; fi
block() {
  local log=$1; shift
  timeout 120 build-gpu/fmlp-gpu-block-test "$@" >> "$R/$log" 2>&1
  echo "$* rc=$? $(( $(date +%s) - s )) s" >> "$R/$log"
}
summary() {
  echo "$1 $(( $(date +%s) - s )) s: $(grep -c ' pass$' "$R/$1") pass," \
    "$(grep -c 'failed as it must' "$R/$1") controls failed as they must," \
    "$(grep -cE 'FAIL|CONTROL PASSED|DID NOT' "$R/$1") failures"
  grep -E "FAIL|CONTROL PASSED|DID NOT| rc=[1-9]" "$R/$1" | head -10
}
