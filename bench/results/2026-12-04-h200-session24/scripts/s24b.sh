#!/usr/bin/env bash
# Session 24, call 2: after the guard takes torch.export's FakeTensor
# weights as plain ones: gpu_modules.py regimes (torch.export now keeps
# fmlp's op), gpu_peft_guard.py (PEFT's LoRA in both orders: the guard's
# fallback), then train, graph-step and graph-callables as time allows.
# Bundles: s24a.sh's, and (256, 704) bf16 and f32 for the PEFT tests.
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
export PYTHONPATH=$PWD/python FMLP_CACHE_DIR=$PWD/.device/cache PYTHONUNBUFFERED=1 \
  FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_STRICT=1
step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2; shift 2
  local left=$(( 585 - ($(date +%s) - s) )); (( limit > left )) && limit=$left
  (( limit < 20 )) && { echo "$name: skipped (no time left)"; return; }
  timeout "$limit" "$@" > "$R/$name.log" 2>&1
  echo "$name: exit $? ($(grep -c '^pass' "$R/$name.log") pass, $(grep -c '^FAIL' "$R/$name.log") FAIL) at $(( $(date +%s) - s )) s"
  grep -E "^FAIL" "$R/$name.log" | cut -c1-300 | head
}
step regimes 150 python3 python/tests/gpu_modules.py regimes
grep -E "export|reduce-overhead" "$R/regimes.log" | cut -c1-200
step peft-guard 300 python3 python/tests/gpu_peft_guard.py
tail -3 "$R/peft-guard.log"
step train 120 python3 python/tests/gpu_modules.py train
step graph-step 90 python3 python/tests/gpu_modules.py graph-step
step graph-callables 60 python3 python/tests/gpu_modules.py graph-callables
