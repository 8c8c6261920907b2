// RUN: fmlp-opt %s --fmlp-plan-pipeline="save=x chunk-tokens=64" --fmlp-attach-target --fmlp-select-tiles --convert-fmlp-to-nvvm | FileCheck %s

// A token-chunked plan (save=x: the backward recomputes G and U into a
// workspace of 64 token rows). The linalg.fills that zero the weight
// gradients become fill kernels, launched before the chunk loop on a fixed
// grid (128 x 64 elements / 256 threads = 32 blocks); the chunk loop stays,
// its kernels launched in it on the chunk's views, with T the chunk's
// (memref.dim of a chunk view): K1's scf.if on T <= 16 picks per chunk.
// The chunk views stay WGMMA-addressable: x's rows move by 64-element rows
// and the workspace columns start 16-byte aligned, as ViewOffset traces
// them through the dynamic offsets of their types (no SIMT fallback).
// CHECK-LABEL: func.func @mlp.backward(
// CHECK: %[[T:.+]] = memref.dim %arg0, %c0
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k0_fill blocks in (%c32, %c1{{.*}}, %c1{{.*}}) threads in (%c256, {{.+}} args(%arg8 : memref<64x128xbf16>, %[[T]] : index)
// CHECK-SAME: fmlp.written = array<i64: 0>
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k1_fill {{.+}} args(%arg6 : memref<128x64xbf16>, %[[T]] : index)
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k2_fill {{.+}} args(%arg7 : memref<128x64xbf16>, %[[T]] : index)
// CHECK-NOT: linalg.fill
// CHECK: scf.for %[[C0:.+]] = %c0 to %[[T]] step %c64 {
// CHECK: %[[X:.+]] = memref.subview %arg0[%[[C0]], 0]
// CHECK: %[[TC:.+]] = memref.dim %[[X]], %c0
// CHECK: %[[FEW:.+]] = arith.cmpi ule, %[[TC]], %c16
// CHECK: scf.if %[[FEW]] {
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k3_gate_up_small_tokens {{.+}} args(%[[X]] : memref<?x64xbf16, strided<[64, 1], offset: ?>>, {{.+}}, %[[TC]] : index)
// CHECK-SAME: fmlp.max_tokens = 16
// CHECK: } else {
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k3_gate_up blocks in ({{.+}}) threads in (%c384{{.*}}, {{.+}} args(%[[X]] : {{.+}}, %[[TC]] : index)
// CHECK-SAME: fmlp.min_tokens = 17
// CHECK-SAME: fmlp.tensor_map_box_rows = array<i64: 32, 128, 128, 64, 64, 64>
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k4_down_grad {{.+}} threads in (%c384
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k5_down_weight_grad {{.+}} threads in (%c384
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k6_input_grad {{.+}} threads in (%c384
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k7_gate_up_weight_grad {{.+}} threads in (%c384
// CHECK-NEXT: {{^ *\}$}}
// CHECK-NEXT: return
// The fill kernel: one thread per element, 0 stored where the index is
// inside the 8192 elements.
// CHECK: llvm.func @mlp_backward_k0_fill(%{{.+}}: !llvm.ptr<1> {llvm.noalias}, %{{.+}}: i64)
// CHECK: %[[LAST:.+]] = arith.constant 8192 : i64
// CHECK: %[[INSIDE:.+]] = arith.cmpi slt, %{{.+}}, %[[LAST]]
// CHECK: scf.if %[[INSIDE]] {
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: llvm.store
func.func @mlp(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>,
               %wu: tensor<128x64xbf16>, %wd: tensor<64x128xbf16>)
    -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>,
         tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
