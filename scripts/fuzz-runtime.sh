#!/usr/bin/env bash
# The manifest tamper test (test/Unit/RuntimeTamperTest.cpp) run long: a
# real manifest mutated at random, opened, loaded and launched through the
# runtime on the stand-in driver, in the ASan + UBSan build of the runtime
# alone (scripts/runtime-sanitized.sh), in batches of 500 cases with seeds
# seed, seed + 1, ... each under a time limit. Prints a report and exits
# non-zero on any misread (an accepted manifest whose launch differs from
# what it says, or reaches outside the caller's buffers), crash, timeout
# or sanitizer finding.
#   scripts/fuzz-runtime.sh [cases (5000)] [seed (1)] [build-dir]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cases=${1:-5000}
seed=${2:-1}
build=${3:-$root/build/test/Unit/runtime-sanitized}
batch=500
limit=${FMLP_FUZZ_BATCH_TIMEOUT:-300}

FMLP_SANITIZED_BUILD_ONLY=1 "$root/scripts/runtime-sanitized.sh" "$build" \
  >/dev/null || { echo "fuzz-runtime: the sanitized build failed"; exit 1; }
binary=$build/FMLPRuntimeTamperTests
fake=$(find "$build" -name 'libfmlp_fake_cuda.so' | head -n 1)
logs=$build/fuzz-logs
mkdir -p "$logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

total=0 errors=0 successes=0 misreads=0 crashes=0 timeouts=0 findings=0
batches=0 start=$(date +%s)
while [ "$total" -lt "$cases" ]; do
  n=$(( cases - total < batch ? cases - total : batch ))
  s=$(( seed + batches ))
  log=$logs/seed-$s.log
  FMLP_LIBCUDA=$fake FMLP_TAMPER_CASES=$n FMLP_TAMPER_SEED=$s \
    timeout "$limit" "$binary" \
    --gtest_filter='RuntimeTamper.TamperedManifestsAreRefusedOrLaunchedExactly' \
    >"$log" 2>&1
  rc=$?
  batches=$(( batches + 1 ))
  total=$(( total + n ))
  summary=$(grep -E '^tamper: seed' "$log" | tail -n 1)
  if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$log"; then
    findings=$(( findings + 1 ))
    echo "fuzz-runtime: seed $s: sanitizer finding (see $log)"
  elif [ "$rc" -eq 124 ]; then
    timeouts=$(( timeouts + 1 ))
    echo "fuzz-runtime: seed $s: timed out after $limit s (see $log)"
  elif [ "$rc" -gt 128 ] || [ -z "$summary" ]; then
    crashes=$(( crashes + 1 ))
    echo "fuzz-runtime: seed $s: crashed, status $rc (see $log)"
  fi
  if [ -n "$summary" ]; then
    # tamper: seed S: N cases, E clean errors, S successes, M misreads
    read -r _ _ _ _ _ e _ _ ok _ bad _ <<<"$(echo "$summary" | tr -d ':,')"
    errors=$(( errors + e ))
    successes=$(( successes + ok ))
    misreads=$(( misreads + bad ))
    [ "$bad" -gt 0 ] && echo "fuzz-runtime: seed $s: $bad misreads (see $log)"
  fi
done
echo "fuzz-runtime: $total cases in $batches batches (seeds $seed to $(( seed + batches - 1 ))), $(( $(date +%s) - start )) s, ASan + UBSan"
echo "  clean errors:       $errors"
echo "  successes:          $successes"
echo "  misreads:           $misreads"
echo "  crashes:            $crashes"
echo "  timeouts:           $timeouts"
echo "  sanitizer findings: $findings"
[ $(( misreads + crashes + timeouts + findings )) -eq 0 ]
