// REQUIRES: ptxas
// Kernel bundles from files of the corpus (f16 with biases and constant
// weights at IREE's input level; GeGLU at IREE's global optimization; Phi3's
// fused gate_up_proj; turbine's bf16 with biases, accumulated in f32 and
// narrowed before the bias add; whole 2-layer decoders from turbine and
// JAX): the constant weights become arguments of the entry points; Phi3's
// gate and up weights (views of the halves of one weight) are two of them;
// a whole model gives one entry point set per block in one bundle, also
// from IREE's generic-form output read with --allow-unregistered-dialect
// (without it, MLIR's parser names the flag).
// RUN: rm -rf %t.f16.bundle %t.gemma.bundle %t.phi3.bundle
// RUN: fmlp-compile %S/onnx-input.llama.float16.static.bias.mlir --mode=infer -o %t.f16.bundle | FileCheck %s --check-prefix=F16
// RUN: FileCheck %s --check-prefix=F16-MANIFEST < %t.f16.bundle/manifest.json
// RUN: fmlp-compile %S/onnx-global-opt.gemma.float32.static.mlir --mode=infer -o %t.gemma.bundle | FileCheck %s --check-prefix=GEMMA
// RUN: fmlp-compile %S/onnx-input.phi3.float32.static.mlir --mode=infer -o %t.phi3.bundle | FileCheck %s --check-prefix=PHI3
// RUN: FileCheck %s --check-prefix=PHI3-MANIFEST < %t.phi3.bundle/manifest.json
// RUN: rm -rf %t.turbine.bundle %t.turbine-decoder.bundle %t.jax-decoder.bundle %t.generic.bundle
// RUN: fmlp-compile %S/onnx-params-generic-global-opt.decoder.float32.static.mlir --allow-unregistered-dialect --mode=infer -o %t.generic.bundle | FileCheck %s --check-prefix=GENERIC
// RUN: FileCheck %s --check-prefix=GENERIC-MANIFEST < %t.generic.bundle/manifest.json
// RUN: not fmlp-compile %S/onnx-params-generic-global-opt.decoder.float32.static.mlir --mode=infer -o %t.refused.bundle 2>&1 | FileCheck %s --check-prefix=GENERIC-REFUSED
// RUN: fmlp-compile %S/turbine-input.llama.bfloat16.static.bias.mlir --mode=infer -o %t.turbine.bundle | FileCheck %s --check-prefix=TURBINE
// RUN: fmlp-compile %S/turbine-params-input.decoder.float32.static.mlir --mode=infer -o %t.turbine-decoder.bundle | FileCheck %s --check-prefix=DECODER
// RUN: FileCheck %s --check-prefix=DECODER-MANIFEST < %t.turbine-decoder.bundle/manifest.json
// RUN: fmlp-compile %S/jax-decoder-input.decoder.bfloat16.static.mlir --mode=infer -o %t.jax-decoder.bundle | FileCheck %s --check-prefix=DECODER
// RUN: FileCheck %s --check-prefix=DECODER-MANIFEST < %t.jax-decoder.bundle/manifest.json

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
// TURBINE: x of type tensor<2x8x64xbf16>
// TURBINE: weights        gate [160, 64] out_in, up [160, 64] out_in, down [64, 160] out_in
// TURBINE: biases         gate up down
// TURBINE: wrote {{.*}}.turbine.bundle (chip sm_90a)
// DECODER: block 1 at {{.*}}decoder{{.*}}.mlir:{{[0-9]+}}:{{[0-9]+}} -> entry points @main.mlp0.*
// DECODER: block 2 at {{.*}}decoder{{.*}}.mlir:{{[0-9]+}}:{{[0-9]+}} -> entry points @main.mlp1.*
// DECODER-NOT: block 3
// DECODER: wrote {{.*}}decoder.bundle (chip sm_90a)
// DECODER-MANIFEST-DAG: "main.mlp0.forward_nograd"
// DECODER-MANIFEST-DAG: "main.mlp1.forward_nograd"
// GENERIC: block 1 at {{.*}} -> entry points @main_graph$async.mlp0.*
// GENERIC: block 2 at {{.*}} -> entry points @main_graph$async.mlp1.*
// GENERIC: wrote {{.*}}.generic.bundle (chip sm_90a)
// GENERIC-MANIFEST-DAG: "main_graph$async.mlp0.forward_nograd"
// GENERIC-MANIFEST-DAG: "main_graph$async.mlp1.forward_nograd"
// GENERIC-REFUSED: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect
