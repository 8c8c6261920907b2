// REQUIRES: ptxas
// Kernel bundles from three files of the corpus (f16 with biases and constant
// weights at IREE's input level; GeGLU at IREE's global optimization; Phi3's
// fused gate_up_proj): the constant weights become arguments of the entry
// points; Phi3's gate and up weights (views of the halves of one weight) are
// two of them.
// RUN: rm -rf %t.f16.bundle %t.gemma.bundle %t.phi3.bundle
// RUN: fmlp-compile %S/onnx-input.llama.float16.static.bias.mlir --mode=infer -o %t.f16.bundle | FileCheck %s --check-prefix=F16
// RUN: FileCheck %s --check-prefix=F16-MANIFEST < %t.f16.bundle/manifest.json
// RUN: fmlp-compile %S/onnx-global-opt.gemma.float32.static.mlir --mode=infer -o %t.gemma.bundle | FileCheck %s --check-prefix=GEMMA
// RUN: fmlp-compile %S/onnx-input.phi3.float32.static.mlir --mode=infer -o %t.phi3.bundle | FileCheck %s --check-prefix=PHI3
// RUN: FileCheck %s --check-prefix=PHI3-MANIFEST < %t.phi3.bundle/manifest.json

// F16: block 1 at {{.*}}onnx-input.llama.float16.static.bias.mlir:{{[0-9]+}}:{{[0-9]+}} -> entry points @mlp.*
// F16: biases         gate up down
// F16: wrote {{.*}}.f16.bundle (chip sm_90a)
// F16-MANIFEST-DAG: "mlp.forward_nograd"
// F16-MANIFEST-DAG: "name":{{ ?}}"gate"
// F16-MANIFEST-DAG: "name":{{ ?}}"down_bias"
// GEMMA: activation     gelu_tanh
// GEMMA: wrote {{.*}}.gemma.bundle (chip sm_90a)
// PHI3: weights        gate [64, 160] in_out, up [64, 160] in_out, down [160, 64] in_out
// PHI3: wrote {{.*}}.phi3.bundle (chip sm_90a)
// PHI3-MANIFEST-DAG: "mlp.forward_nograd"
// PHI3-MANIFEST-DAG: "name":{{ ?}}"gate"
// PHI3-MANIFEST-DAG: "name":{{ ?}}"up"
