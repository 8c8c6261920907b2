// The stock mlir-opt-22 runs fmlp's passes from the plugin library: the same
// library serves --load-dialect-plugin and --load-pass-plugin. (Pass flags
// such as --fmlp-recognize are parsed before plugins load, so plugin passes
// are named in --pass-pipeline.)
// RUN: %mlir_opt %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --load-dialect-plugin=%fmlp_plugin --load-pass-plugin=%fmlp_plugin --pass-pipeline='builtin.module(fmlp-recognize)' | FileCheck %s
// RUN: %mlir_opt %fmlp_src_root/examples/llama-7b-mlp.tosa.bf16.mlir --load-dialect-plugin=%fmlp_plugin --load-pass-plugin=%fmlp_plugin --pass-pipeline='builtin.module(func.func(fmlp-recognize{explain-misses=true}))' | FileCheck %s --check-prefix=TOSA

// RUN: %mlir_opt %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --load-dialect-plugin=%fmlp_plugin --load-pass-plugin=%fmlp_plugin --pass-pipeline='builtin.module(fmlp-plan-pipeline{save=gu chunk-tokens=256})' | FileCheck %s --check-prefix=PLAN

// CHECK-LABEL: func.func @llama_mlp
// CHECK-NEXT: %[[Y:.+]] = fmlp.gated_mlp silu %arg0, gate %arg1, up %arg2, down %arg3 : (tensor<?x4096xf32>, tensor<11008x4096xf32>, tensor<11008x4096xf32>, tensor<4096x11008xf32>) -> tensor<?x4096xf32>
// CHECK-NEXT: return %[[Y]]

// TOSA-LABEL: func.func @llama_mlp
// TOSA-NEXT: %[[Y:.+]] = fmlp.gated_mlp silu %arg0, gate %arg1, up %arg2, down %arg3 : (tensor<2048x4096xbf16>, tensor<11008x4096xbf16>, tensor<11008x4096xbf16>, tensor<4096x11008xbf16>) -> tensor<2048x4096xbf16>
// TOSA-NEXT: return %[[Y]]

// The whole plan pipeline runs from the plugin too.
// PLAN-LABEL: func.func @llama_mlp.forward(
// PLAN-SAME: {fmlp.name = "saved", fmlp.saved = "gu"}
// PLAN-SAME: memref<256x11008xf32> {fmlp.name = "workspace"}
// PLAN: scf.for
// PLAN: fmlp.gate_up silu
// PLAN-LABEL: func.func @llama_mlp.backward(
// PLAN-LABEL: func.func @llama_mlp.forward_nograd(

// The whole GPU pipeline from the plugin: kernels in a gpu.binary (PTX),
// launches in the entry points.
// RUN: %mlir_opt %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --load-dialect-plugin=%fmlp_plugin --load-pass-plugin=%fmlp_plugin --pass-pipeline='builtin.module(fmlp-gpu-pipeline)' | FileCheck %s --check-prefix=GPU
// GPU-LABEL: func.func @llama_mlp.forward(
// GPU: gpu.launch_func @fmlp_kernels::@llama_mlp_forward_k0_gate_up
// GPU: gpu.launch_func @fmlp_kernels::@llama_mlp_forward_k1_down
// GPU: gpu.binary @fmlp_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_90a{{.*}}wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
