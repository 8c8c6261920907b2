// REQUIRES: ptxas
// Every generated kernel is assembled with ptxas -v; fmlp-compile fails
// (--check-resources, on by default) on a spill, a stack frame, shared
// memory over the chip's limit or a WGMMA pipeline ptxas had to change. The variants cover both weight layouts,
// biases, multipliers, every activation and element type, widths TMA cannot
// take, every memory policy, inference, and chips without WGMMA.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false -o %t/a.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --save=gu -o %t/gu.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --save=x -o %t/x.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --mode=infer -o %t/infer.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_80 -o %t/sm80.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_120 -o %t/sm120.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.tosa.f32.mlir --report=false -o %t/tosa-f32.bundle
// RUN: cat %t/*.bundle/ptxas.log | FileCheck %s
// RUN: cat %t/*.bundle/ptxas.log | FileCheck %s --check-prefix=NOSPILL

// 38 + 38 + 42 + 8 + 38 + 38 + 8 kernels.
// CHECK-COUNT-210: Compiling entry function
// NOSPILL-NOT: {{[1-9][0-9]* bytes (stack frame|spill)|C75[0-9]+}}
