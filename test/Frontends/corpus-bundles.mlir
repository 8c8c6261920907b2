// REQUIRES: ptxas
// Kernel bundles from two files of the corpus (f16 with biases and constant
// weights at IREE's input level; GeGLU at IREE's global optimization): the
// constant weights become arguments of the entry points.
// RUN: rm -rf %t.f16.bundle %t.gemma.bundle
// RUN: fmlp-compile %S/onnx-input.llama.float16.static.bias.mlir --mode=infer -o %t.f16.bundle | FileCheck %s --check-prefix=F16
// RUN: FileCheck %s --check-prefix=F16-MANIFEST < %t.f16.bundle/manifest.json
// RUN: fmlp-compile %S/onnx-global-opt.gemma.float32.static.mlir --mode=infer -o %t.gemma.bundle | FileCheck %s --check-prefix=GEMMA

// F16: block 1 at {{.*}}onnx-input.llama.float16.static.bias.mlir:{{[0-9]+}}:{{[0-9]+}} -> entry points @mlp.*
// F16: biases         gate up down
// F16: wrote {{.*}}.f16.bundle (chip sm_90a)
// F16-MANIFEST-DAG: "mlp.forward_nograd"
// F16-MANIFEST-DAG: "name":{{ ?}}"gate"
// F16-MANIFEST-DAG: "name":{{ ?}}"down_bias"
// GEMMA: activation     gelu_tanh
// GEMMA: wrote {{.*}}.gemma.bundle (chip sm_90a)
