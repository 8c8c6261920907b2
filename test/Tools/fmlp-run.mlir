// fmlp-run compiles the block inside this layer (the residual add around it
// is not compiled), runs its entry points on the CPU and judges every output
// by the error bound; with save=x and chunks too. Without a block it says so.
// RUN: fmlp-run %s --tokens=11 | FileCheck %s
// RUN: fmlp-run %s --tokens=11 --save=x --chunk-tokens=4 | FileCheck %s --check-prefix=CHUNKED
// RUN: not fmlp-run %fmlp_src_root/test/Dialect/FMLP/kernel-ops.mlir 2>&1 | FileCheck %s --check-prefix=NO-BLOCK
// RUN: not fmlp-run %s --save=everything 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
// A block with LoRA adapters: their gradients are judged too, under every
// policy, chunked. It compiles for the GPU: every entry point takes the
// adapters, the backward returns their gradients, and the saved buffer
// holds Z and Zd beside A, G, U (3 x 96 + 8 + 4 = 300 columns).
// RUN: fmlp-run %S/Inputs/lora-block.mlir --tokens=11 | FileCheck %s --check-prefix=LORA
// RUN: fmlp-run %S/Inputs/lora-block.mlir --tokens=11 --save=u --chunk-tokens=4 | FileCheck %s --check-prefix=LORA
// RUN: rm -rf %t.lora.bundle
// RUN: fmlp-compile %S/Inputs/lora-block.mlir --chip=sm_90a --report=false -o %t.lora.bundle
// RUN: fmlp-bundle-info %t.lora.bundle --tokens=11 | FileCheck %s --check-prefix=LORA-GPU
// A batched block ([8, S, 96]) chunked: T is a multiple of 8, the chunks
// run over the flattened tokens.
// RUN: fmlp-run %S/Inputs/batched-block.mlir --tokens=16 --save=x --chunk-tokens=8 | FileCheck %s --check-prefix=BATCHED
// RUN: not fmlp-run %S/Inputs/batched-block.mlir --tokens=12 2>&1 | FileCheck %s --check-prefix=NOT-A-MULTIPLE

// Limits: --tokens and --chunk-tokens are checked where they are parsed,
// then against the block (its static T, its buffers' sizes) and the host
// memory, before anything is allocated; never a crash.
// RUN: not fmlp-run %s --tokens=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not fmlp-run %s --tokens=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not fmlp-run %s --tokens=abc 2>&1 | FileCheck %s --check-prefix=NOT-A-NUMBER
// RUN: not fmlp-run %s --tokens=9223372036854775807 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not fmlp-run %s --tokens=4611686018427387904 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not fmlp-run %s --save=x --chunk-tokens=9223372036854775807 2>&1 | FileCheck %s --check-prefix=CHUNK-OVERFLOW
// RUN: not fmlp-run %s --chunk-tokens=-4 2>&1 | FileCheck %s --check-prefix=CHUNK-NEGATIVE
// RUN: not fmlp-run %s --tokens=1000000000 2>&1 | FileCheck %s --check-prefix=MEMORY
// RUN: not fmlp-run %s --tokens=100000 --max-host-memory=1000000 2>&1 | FileCheck %s --check-prefix=MEMORY-LIMIT
// Allocation failure (here under a 3 GB address-space limit) is an error.
// RUN: (ulimit -v 3000000; not fmlp-run %s --tokens=300000) 2>&1 | FileCheck %s --check-prefix=OUT-OF-MEMORY
// RUN: not fmlp-run %fmlp_src_root/examples/llama-7b-mlp.tosa.f32.mlir --tokens=8 2>&1 | FileCheck %s --check-prefix=STATIC-T
// The host check reads every tensor in one element type: a block that
// mixes them is refused (it once corrupted the heap).
// RUN: not fmlp-run %S/Inputs/mixed-element-types.mlir --tokens=5 2>&1 | FileCheck %s --check-prefix=MIXED
// Errors in the IR say where (they once named the file alone).
// RUN: not fmlp-run %S/Inputs/invalid-block.mlir 2>&1 | FileCheck %s --check-prefix=LOCATED
// A module of two blocks: --block picks one; without it, or with a name
// the module lacks, an error naming the blocks (it once checked the first
// block's entry points against the last one's shapes).
// RUN: not fmlp-run %S/Inputs/two-blocks.mlir --tokens=3 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not fmlp-run %S/Inputs/two-blocks.mlir --tokens=3 --block=wid 2>&1 | FileCheck %s --check-prefix=NO-SUCH
// RUN: fmlp-run %S/Inputs/two-blocks.mlir --tokens=3 --block=narrow | FileCheck %s --check-prefix=NARROW
// RUN: fmlp-run %S/Inputs/two-blocks.mlir --tokens=3 --block=wide | FileCheck %s --check-prefix=WIDE
// Several dynamic leading extents: T runs as the first, the others 1 (it
// once made every one T and refused the buffers).
// RUN: fmlp-run %S/Inputs/dynamic-extents.mlir --tokens=5 | FileCheck %s --check-prefix=DYNAMIC
// RUN: fmlp-run --version | FileCheck %s --check-prefix=VERSION
// RUN: fmlp-run --help | FileCheck %s --check-prefix=HELP

// CHECK: block: relu, D = 96, H = 200; mode=train save=agu chunk-tokens=0
// CHECK: layer.forward(x[T, 96], gate[96, 200], up[96, 200], down[200, 96], y[T, 96], saved[T, 600])
// CHECK: saved for backward   26,400 B
// CHECK: y {{.*}} pass
// CHECK: dx {{.*}} pass
// CHECK: d_gate {{.*}} pass
// CHECK: d_up {{.*}} pass
// CHECK: d_down {{.*}} pass
// CHECK: y_nograd {{.*}} pass
// CHECK: all outputs within their bounds
// CHUNKED: layer.backward({{.*}}workspace[4, 600])
// CHUNKED: all outputs within their bounds
// NO-BLOCK: no gated MLP block found
// BAD-OPTION: fmlp-run: error: {{.*}}save must be one of agu, gu, u, x, got 'everything'
// BATCHED: geglu_in_out_batched.backward({{.*}}workspace[8, 600])
// BATCHED: all outputs within their bounds
// NOT-A-MULTIPLE: fmlp-run: error: {{.*}}the block's x has static leading extents of 8 tokens; T = 12 is not a multiple of it
// NEGATIVE: fmlp-run: for the --tokens option: must be at least 1, got -1
// ZERO: fmlp-run: for the --tokens option: must be at least 1, got 0
// NOT-A-NUMBER: fmlp-run: for the --tokens option: 'abc' value invalid for long argument!
// OVERFLOW: fmlp-run: error: {{.*}}layer.forward: the saved buffer for T = {{[0-9]+}} is over 2^63 bytes
// CHUNK-OVERFLOW: fmlp-run: error: {{.*}}fmlp-plan-memory: the workspace buffer of 1 column block (200 columns) and 9223372036854775807 rows is over 2^63 bytes
// CHUNK-NEGATIVE: fmlp-run: for the --chunk-tokens option: must be at least 0, got -4
// OUT-OF-MEMORY: fmlp-run: error: out of host memory (Allocation failed) running T = 300000 tokens
// MEMORY: fmlp-run: error: {{.*}}T = 1000000000 needs about {{[0-9,]+}} B of host memory (buffers and the float64 reference), over the limit of {{[0-9,]+}} B (--max-host-memory, default: physical memory)
// MEMORY-LIMIT: fmlp-run: error: {{.*}}T = 100000 needs about {{[0-9,]+}} B of host memory {{.*}} over the limit of 1,000,000 B
// DYNAMIC: mlp.forward(x[T, 1, 1, 64], gate[128, 64], up[128, 64], down[64, 128], y[T, 1, 1, 64], saved[T, 384])
// DYNAMIC: all outputs within their bounds
// MIXED: fmlp-run: error: {{.*}}mixed-element-types.mlir:3:8: fmlp-run checks blocks whose tensors share one element type; this one mixes 'f32' and 'f16'
// LOCATED: fmlp-run: error: {{.*}}invalid-block.mlir:4:8: 'fmlp.gated_mlp' op up weight of shape [80, 64]
// TWO: fmlp-run: error: {{.*}}two-blocks.mlir: the module holds 2 gated MLP blocks (wide, narrow): choose one with --block
// NO-SUCH: fmlp-run: error: {{.*}}two-blocks.mlir: no gated MLP block named 'wid' (the module holds wide, narrow)
// NARROW: block: relu, D = 64, H = 96;
// NARROW-NOT: wide.
// NARROW: all outputs within their bounds
// WIDE: block: silu, D = 64, H = 160;
// WIDE-NOT: narrow.
// WIDE: all outputs within their bounds
// STATIC-T: fmlp-run: error: {{.*}}the block's x has a static T = 2048 tokens; it cannot run T = 8 (give --tokens=2048, or a dynamic T in the IR)
// VERSION: fmlp-run (fmlp) {{[0-9]+\.[0-9]+\.[0-9]+}}
// VERSION-NEXT: built with LLVM and MLIR 22.
// HELP: fmlp options:
// HELP: --tokens=
// HELP-NOT: --x86
// HELP-NOT: --mlir-
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @layer(%x: tensor<?x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>) -> tensor<?x96xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %t = tensor.dim %x, %c0 : tensor<?x96xf32>
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<?x200xf32>
  %a = arith.mulf %r, %u : tensor<?x200xf32>
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %res = arith.addf %x, %y : tensor<?x96xf32>
  return %res : tensor<?x96xf32>
}

// LORA: mlp.backward({{.*}}d_lora_a[8, 64], d_gate_lora_b[96, 8], d_up_lora_b[96, 8], d_down_lora_a[4, 96], d_down_lora_b[64, 4]
// LORA: d_lora_a {{.*}} pass
// LORA: d_gate_lora_b {{.*}} pass
// LORA: d_up_lora_b {{.*}} pass
// LORA: d_down_lora_a {{.*}} pass
// LORA: d_down_lora_b {{.*}} pass
// LORA: all outputs within their bounds
// LORA-GPU: entry mlp.forward (forward)
// LORA-GPU: lora_a input f32 [8, 64]
// LORA-GPU-NEXT: gate_lora_b input f32 [96, 8]
// LORA-GPU-NEXT: up_lora_b input f32 [96, 8]
// LORA-GPU-NEXT: down_lora_a input f32 [4, 96]
// LORA-GPU-NEXT: down_lora_b input f32 [64, 4]
// LORA-GPU: saved saved f32 [T, 300]
// LORA-GPU: entry mlp.backward (backward)
// LORA-GPU: d_lora_a output f32 [8, 64]
// LORA-GPU-NEXT: d_gate_lora_b output f32 [96, 8]
// LORA-GPU-NEXT: d_up_lora_b output f32 [96, 8]
// LORA-GPU-NEXT: d_down_lora_a output f32 [4, 96]
// LORA-GPU-NEXT: d_down_lora_b output f32 [64, 4]
