// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-round-tf32-weights --fmlp-select-tiles --convert-fmlp-to-nvvm --split-input-file | FileCheck %s

// Where tf32's rounded copies (fmlp-round-tf32-weights) are launched when
// the token variants round the weights in their stages (rounds_in_stages):
// the guard's T, and a static T (fmlp-round-tf32-weights.mlir has the
// dynamic and chunked cases).

// A static T under every copy's F (16: K1's and K2's variants round in
// their stages): no copy is launched, nor built; the workspaces stay
// (unread).
// CHECK-LABEL: func.func @decode.forward_nograd(
// CHECK-SAME: {fmlp.name = "gate_tf32", fmlp.workspace}
// CHECK-NOT: round_to_tf32
// CHECK: gpu.launch_func @fmlp_kernels::@decode_forward_nograd_k3_gate_up_upto512_round_in_stages
// CHECK-NOT: round_to_tf32
// CHECK: gpu.module @fmlp_kernels
func.func @decode(%x: tensor<16x1024xf32>, %wg: tensor<2816x1024xf32>,
                  %wu: tensor<2816x1024xf32>, %wd: tensor<1024x2816xf32>)
    -> tensor<16x1024xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<tf32>}
      : (tensor<16x1024xf32>, tensor<2816x1024xf32>, tensor<2816x1024xf32>,
         tensor<1024x2816xf32>) -> tensor<16x1024xf32>
  return %y : tensor<16x1024xf32>
}

// -----

// x of leading dimensions [4, S]: the copies' guard takes T = 4 S, as the
// runtime flattens them (the manifest's -1 rows).
// CHECK-LABEL: func.func @batched.forward_nograd(
// CHECK: %[[B:.+]] = memref.dim %arg0, %c0 : memref<4x?x1024xf32>
// CHECK: %[[S:.+]] = memref.dim %arg0, %c1 : memref<4x?x1024xf32>
// CHECK-NEXT: %[[T:.+]] = arith.muli %[[B]], %[[S]] : index
// CHECK-NEXT: %[[F:.+]] = arith.constant 769 : index
// CHECK-NEXT: arith.cmpi uge, %[[T]], %[[F]] : index
func.func @batched(%x: tensor<4x?x1024xf32>, %wg: tensor<2816x1024xf32>,
                   %wu: tensor<2816x1024xf32>, %wd: tensor<1024x2816xf32>)
    -> tensor<4x?x1024xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<tf32>}
      : (tensor<4x?x1024xf32>, tensor<2816x1024xf32>, tensor<2816x1024xf32>,
         tensor<1024x2816xf32>) -> tensor<4x?x1024xf32>
  return %y : tensor<4x?x1024xf32>
}
