#!/usr/bin/env bash
# Session 11, call 3: the Python package's GPU checks on main's kernels
# (cache .device/fmlp-cache11, made at c164ef6), then the float32 training
# check twice more, to see its spread between runs.
cd "$(dirname "$0")/.."
R=${OUT:-/tmp}; s=$(date +%s)
bash python/tests/run-on-gpu.sh $PWD/.device/fmlp-cache11 $R/python $PWD/.device/include checks
echo "checks done $(( $(date +%s) - s )) s"
export PYTHONPATH=$PWD/python FMLP_RUNTIME_LIB=$PWD/build-gpu/lib/libfmlp_runtime.so FMLP_CACHE_DIR=$PWD/.device/fmlp-cache11
for i in 2 3; do
  timeout 60 python3 python/tests/gpu_modules.py train > $R/python/train-$i.log 2>&1; echo "train $i rc=$? $(( $(date +%s) - s )) s"; grep -E "^train|^pass|^FAIL" $R/python/train-$i.log
done
