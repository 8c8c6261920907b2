#!/usr/bin/env bash
# Session 13, call 4: where an eager call of the module spends its host
# time (bench/profile_host.py), at T = 1 on both shapes: the "before" of
# issue 22's lean host path.
#   .device/fmlp-cache: python/tests/make-gpu-cache.sh at this commit
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S runtime -B build-gpu-runtime -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu-runtime --target fmlp_runtime >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/fmlp-cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu-runtime/lib/libfmlp_runtime.so
timeout 150 python3 bench/profile_host.py --d 1024 --h 2816 --tokens 1 --calls 2000 > "$R/profile-1024.log" 2>&1
echo "profile-1024 rc=$? $(( $(date +%s) - s )) s"
head -6 "$R/profile-1024.log"
timeout 100 python3 bench/profile_host.py --d 4096 --h 11008 --tokens 1 --calls 500 > "$R/profile-4096.log" 2>&1
echo "profile-4096 rc=$? $(( $(date +%s) - s )) s"
head -6 "$R/profile-4096.log"
grep -A22 "== fmlp no-grad: cProfile of 2000 calls, by tottime" "$R/profile-1024.log" | cut -c1-160
