#!/usr/bin/env bash
# Session 17, call 3: the tensor-core sums bounded by the per-step model
# (u = 1.25 2^-23, lib/Numerics contractionError) instead of call 2's
# 2^-22: the bf16 WGMMA bundles' controls at (4096, 11008) again, and the
# tf32 / tf32x3 bundles of call 1 judged by it (controls included).
cd "$(dirname "$0")/../../../.."
R=${OUT:-/tmp}; s=$(date +%s)
cmake -S test/GPU -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFMLP_JSON_INCLUDE_DIR=$PWD/.device/include > "$R/build.log" 2>&1 &&
  cmake --build build-gpu >> "$R/build.log" 2>&1 || { tail "$R/build.log"; exit 1; }
test=build-gpu/fmlp-gpu-block-test
run() { local log=$1; shift; timeout 150 "$test" "$@" >> "$R/$log" 2>&1; echo "$* rc=$? $(( $(date +%s) - s )) s"; }
B=.device/bundles
run gpu-bf16.log $B/mlp-bf16-4096-11008.bundle bf16 4096 11008 17 257
run gpu-bf16.log $B/mlp-bf16-1024-2816.bundle bf16 1024 2816 17 2597
for p in tf32 tf32x3; do
  P=.device/bundles-$p
  run gpu-$p.log $P/mlp-f32-4096-11008.bundle f32 4096 11008 17 --contraction=$p
  run gpu-$p.log $P/mlp-f32-1024-2816.bundle f32 1024 2816 1 129 2597 --contraction=$p
  run gpu-$p.log $P/mlp-f32-64-128.bundle f32 64 128 17 4096 --contraction=$p
done
run control-tf32-by-tf32x3.log .device/bundles-tf32/mlp-f32-64-128.bundle f32 64 128 17 4096 --contraction=tf32x3
grep -E "failure\(s\)|FAIL|NOT REFUSED|CONTROL PASSED|DID NOT" "$R"/*.log | sort | uniq -c
grep -h "control: other inputs" "$R"/gpu-*.log
