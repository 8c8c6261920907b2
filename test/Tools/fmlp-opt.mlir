// fmlp-opt's own pipelines, as --dump-pass-pipeline prints them, run as
// --pass-pipeline and give the same IR (every upstream pass they use is
// registered); --version names fmlp's version.
// RUN: fmlp-opt %fmlp_src_root/examples/small-mlp.linalg.f32.mlir --fmlp-gpu-pipeline --dump-pass-pipeline -o %t.gpu.mlir 2> %t.gpu.txt
// RUN: fmlp-opt %fmlp_src_root/examples/small-mlp.linalg.f32.mlir --pass-pipeline="$(sed 1d %t.gpu.txt | tr -d '\n')" -o %t.gpu-again.mlir
// RUN: sed -e 's/LLVMIRToISATimeInMs = [0-9]*/T/' %t.gpu.mlir > %t.gpu.clean.mlir
// RUN: sed -e 's/LLVMIRToISATimeInMs = [0-9]*/T/' %t.gpu-again.mlir | diff %t.gpu.clean.mlir -
// RUN: fmlp-opt %fmlp_src_root/examples/small-mlp.linalg.f32.mlir --fmlp-plan-pipeline="save=x chunk-tokens=4" --fmlp-cpu-pipeline --dump-pass-pipeline -o %t.cpu.mlir 2> %t.cpu.txt
// RUN: fmlp-opt %fmlp_src_root/examples/small-mlp.linalg.f32.mlir --pass-pipeline="$(sed 1d %t.cpu.txt | tr -d '\n')" | diff %t.cpu.mlir -
// RUN: FileCheck %s --check-prefix=GPU < %t.gpu.txt
// Invalid pipeline options: an error naming the option, exit status 1,
// nothing written (the GPU pipeline's cuda-path once gave an error and
// exit status 0; chip and strategy were not checked at all).
// RUN: not fmlp-opt %fmlp_src_root/examples/small-mlp.linalg.f32.mlir --fmlp-gpu-pipeline="cuda-path=%t.none" -o %t.none.mlir 2>&1 | FileCheck %s --check-prefix=NO-CUDA
// RUN: not test -e %t.none.mlir
// RUN: not fmlp-opt %fmlp_src_root/examples/small-mlp.linalg.f32.mlir --fmlp-plan-pipeline="chip=sm_999" 2>&1 | FileCheck %s --check-prefix=BAD-CHIP
// RUN: not fmlp-opt %fmlp_src_root/examples/small-mlp.linalg.f32.mlir --fmlp-gpu-pipeline="strategy=wmma" 2>&1 | FileCheck %s --check-prefix=BAD-STRATEGY
// RUN: not fmlp-opt %fmlp_src_root/examples/small-mlp.linalg.f32.mlir --fmlp-plan-pipeline="precision=bogus" 2>&1 | FileCheck %s --check-prefix=BAD-PRECISION
// NO-CUDA: error: fmlp-gpu-pipeline: cuda-path={{.*}}.none is not a directory: the GPU kernels need the CUDA toolkit (its libdevice, ptxas)
// NO-CUDA-NOT: see current operation
// BAD-CHIP: error: fmlp-plan-pipeline: unknown chip 'sm_999'
// BAD-STRATEGY: error: fmlp-gpu-pipeline: strategy must be one of auto, mma_sync, simt, got 'wmma'
// BAD-PRECISION: error: fmlp-plan-pipeline: precision must be one of highest, high, medium, ieee, tf32x3, tf32, got 'bogus'
// RUN: fmlp-opt --version | FileCheck %s --check-prefix=VERSION

// A batched block, chunked: the views the chunk loop reads dominate it.
// RUN: fmlp-opt %S/Inputs/batched-block.mlir --fmlp-plan-pipeline="save=x chunk-tokens=4" | FileCheck %s --check-prefix=BATCHED

// GPU: gpu.module(
// GPU: convert-gpu-to-nvvm
// GPU: gpu-module-to-binary
// VERSION: fmlp-opt (fmlp) {{[0-9]+\.[0-9]+\.[0-9]+}}
// VERSION-NEXT: built with LLVM and MLIR 22.
// BATCHED-LABEL: func.func @geglu_in_out_batched.backward
// BATCHED: memref.collapse_shape
// BATCHED: scf.for
// BATCHED: fmlp.down_grad
