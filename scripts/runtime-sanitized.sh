#!/usr/bin/env bash
# The runtime alone (cmake -S runtime) and its unit tests, the manifest
# tamper test included, built with -fsanitize=address,undefined
# -fno-sanitize-recover=all and run: any sanitizer finding fails a test,
# and so this script. ctest runs it as runtime/sanitized.
#   scripts/runtime-sanitized.sh [build-dir]
# Extra environment for the tests (FMLP_TAMPER_CASES, FMLP_TAMPER_SEED)
# passes through; FMLP_SANITIZED_BUILD_ONLY=1 builds without testing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/test/Unit/runtime-sanitized}
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
generator=()
if command -v ninja >/dev/null; then
  generator=(-G Ninja)
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root/runtime" -B "$build" "${generator[@]}" "${launcher[@]}" \
    -DCMAKE_BUILD_TYPE=Debug -DFMLP_RUNTIME_TESTS=ON \
    -DCMAKE_CXX_FLAGS="-O1 $flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
    >/dev/null
fi
CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} cmake --build "$build" -j "$(nproc)"
[ "${FMLP_SANITIZED_BUILD_ONLY:-0}" = 1 ] && exit 0
# halt_on_error: the first finding ends the test with a non-zero status.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
