#!/usr/bin/env bash
# Installs the fmlp build BUILD into a fresh prefix, then configures, builds
# and runs test/Package/consumer against that prefix alone (find_package(FMLP)
# from the install tree, not the build tree): the out-of-tree project of
# someone who builds on fmlp.
#   install-and-consume.sh BUILD SOURCE WORKDIR
set -euo pipefail
build=$1 source=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
logged() {  # logged NAME COMMAND...: runs it into $work/NAME.log, shown if it fails
  local name=$1
  shift
  "$@" > "$work/$name.log" 2>&1 || { tail -40 "$work/$name.log"; echo "consumer: $name failed"; exit 1; }
}
prefix=$work/prefix
logged install cmake --install "$build" --prefix "$prefix"
echo "installed into $prefix: $(find "$prefix" -type f | wc -l) files"
test -x "$prefix/bin/fmlp-compile"
test -f "$prefix/include/fmlp/Runtime.h"
test -f "$prefix/lib/cmake/fmlp/FMLPConfig.cmake"

logged configure cmake -G Ninja -S "$source/test/Package/consumer" -B "$work/consumer" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
logged build cmake --build "$work/consumer"

"$work/consumer/compile-with-fmlp" "$source/examples/llama-7b-mlp.linalg.bf16.mlir"
"$prefix/bin/fmlp-compile" --version
"$prefix/bin/fmlp-compile" "$source/test/Package/Inputs/small-block.mlir" \
    --report=false --check-resources=false -o "$work/small.bundle"
# The runtime found through its SONAME in the install tree only.
soname=$(objdump -p "$work/consumer/run-with-fmlp" | awk '/NEEDED.*fmlp_runtime/ {print $2}')
echo "run-with-fmlp needs $soname"
test -e "$prefix/lib/$soname"
LD_LIBRARY_PATH="$prefix/lib" FMLP_LIBCUDA=libcuda-absent-for-fmlp-tests.so.1 \
    "$work/consumer/run-with-fmlp" "$work/small.bundle"
echo "consumer: passed"
