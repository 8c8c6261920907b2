#!/usr/bin/env bash
# Session 13, call 5: call 4's host profile again at (1024, 2816), T = 1,
# with the no-grad op's host time by layer (bench/profile_host.py's
# dispatch(): fmlp's Python alone, as a plain torch.library op, as the
# custom op, as the module call).
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
grep -E "host|D=" "$R/profile-1024.log"
