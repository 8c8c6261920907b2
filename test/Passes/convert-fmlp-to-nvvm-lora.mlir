// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --convert-fmlp-to-nvvm --split-input-file | FileCheck %s
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file | FileCheck %s --check-prefix=TILES

// A bf16 block with LoRA adapters (docs/LoRA.md; R = Rd = 16) on sm_90a.
// Each augmented contraction reads its parts through tensor maps of their
// own, the later ones from their k-step on (WgmmaOperand::further): K1's A
// is [x | Z] (x, then Z from k = D = 128; both rows T: boxes of 32 rows),
// its B_j [Wg | Bg] and [Wu | Bu] (K-major, boxes of the tile's 128
// rows); then the outputs A, G, U. The projection Z = x A_cat^T before it
// writes Z, 16 columns, into the saved buffer (row stride 3H + R + Rd =
// 608).
// CHECK-LABEL: func.func @mlp.forward(
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_forward_k0_down blocks
// CHECK-SAME: fmlp.tensor_map_cols = array<i64: 128, 128, 16>
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_forward_k1_gate_up blocks
// CHECK-SAME: args(%arg0 : memref<?x128xbf16>, %{{.+}} : memref<?x16xbf16, strided<[608, 1], offset: 576>>, %arg1 : memref<192x128xbf16>, %arg5 : memref<192x16xbf16>, %arg2 : memref<192x128xbf16>, %arg6 : memref<192x16xbf16>
// CHECK-SAME: fmlp.tensor_map_box_rows = array<i64: 32, 32, 128, 128, 128, 128, 64, 64, 64>
// CHECK-SAME: fmlp.tensor_map_cols = array<i64: 128, 16, 128, 16, 128, 16, 192, 192, 192>
// K2's A is [A | Zd], its B [Wd | Bd].
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_forward_k3_down blocks
// CHECK-SAME: fmlp.tensor_map_cols = array<i64: 192, 16, 192, 16, 128>
// K4: [dG dU] are adjacent columns of the saved buffer, one map of 2H =
// 384 columns; dZ follows from k = 2H; its B is three maps, [Wg^T | Wu^T |
// A_cat], each MN-major (64-row boxes), A_cat from k = 2H.
// CHECK-LABEL: func.func @mlp.backward(
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k4_input_grad blocks
// CHECK-SAME: fmlp.tensor_map_box_rows = array<i64: 32, 32, 64, 64, 64, 64>
// CHECK-SAME: fmlp.tensor_map_cols = array<i64: 384, 16, 128, 128, 128, 128>
// The producer picks a k-step's map by where its k lies: K4's B in three
// segments (k < H, k < 2H, the rest), each loaded at k - its start.
// CHECK: llvm.func @mlp_backward_k4_input_grad(
// CHECK: %[[KC:.+]] = arith.muli %{{.+}}, %c64_i32
// CHECK: arith.cmpi slt, %[[KC]], %c384_i32
// CHECK: arith.cmpi slt, %[[KC]], %c192_i32
// CHECK: arith.cmpi slt, %[[KC]], %c384_i32
// CHECK: arith.addi %[[KC]], %c-384_i32

// K1 and K2 take small_tokens variants for T <= 16 like the adapters'
// projections: each 16-byte piece is read from the part its k lies in (K1's
// [x | Z] and [Wg | Bg] from k = D = 128 on; K2's [A | Zd] and [Wd | Bd]
// from k = H = 192, K = 208 = 6.5 chunks of 32: the last chunk's pieces
// past K are zeros).
// TILES-LABEL: func.func @mlp.forward_nograd(
// TILES: fmlp.gate_up silu ins({{.*}}) lora({{.*}}token_variants = [#fmlp.kernel_config<strategy = small_tokens,
// TILES: fmlp.down ins({{.*}}) lora({{.*}}token_variants = [#fmlp.kernel_config<strategy = small_tokens,
// The small_tokens K2 selects Zd's base from k = 192 on and zeroes the
// pieces of its last chunk from k = 208 on.
// CHECK-LABEL: llvm.func @mlp_forward_nograd_k3_down_small_tokens(
// CHECK: llvm.mlir.zero : vector<4xi32>
// CHECK-NEXT: %c208_i64 = arith.constant 208 : i64
// CHECK-NEXT: %[[INSIDE:.+]] = arith.cmpi slt, %[[K:[0-9]+]], %c208_i64 : i64
// CHECK: %[[READ:.+]] = arith.select %[[INSIDE]], %[[K]], %c0_i64{{.*}} : i64
// CHECK: %[[ZD:.+]] = llvm.getelementptr %arg3[%c-192_i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
// CHECK: %[[BELOW:.+]] = arith.cmpi slt, %[[READ]], %c192_i64{{.*}} : i64
// CHECK: arith.select %[[BELOW]], %arg1, %[[ZD]] : !llvm.ptr<1>
// CHECK: arith.select %[[INSIDE]], %{{.+}}, %{{.+}} : vector<4xi32>
func.func @mlp(%x: tensor<?x128xbf16>, %wg: tensor<192x128xbf16>, %wu: tensor<192x128xbf16>,
               %wd: tensor<128x192xbf16>, %a: tensor<16x128xbf16>, %bg: tensor<192x16xbf16>,
               %bu: tensor<192x16xbf16>, %ad: tensor<16x192xbf16>, %bd: tensor<128x16xbf16>) -> tensor<?x128xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd lora(%a, %bg, %bu) down_lora(%ad, %bd)
      : (tensor<?x128xbf16>, tensor<192x128xbf16>, tensor<192x128xbf16>, tensor<128x192xbf16>,
         tensor<16x128xbf16>, tensor<192x16xbf16>, tensor<192x16xbf16>, tensor<16x192xbf16>, tensor<128x16xbf16>) -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// D = 96 is not a whole number of WGMMA k-steps (64): Z, which starts at
// k = D, cannot be a map of its own from a k-step on, so K1 takes the
// mma_sync strategy (which reads [x | Z] as one view of two buffers with
// strides of their own), and K3 ([dy | dZd]) too.
// TILES-LABEL: func.func @mlp96.forward(
// TILES: fmlp.gate_up {{.*}}strategy = mma_sync{{.*}}reason = "Z starts at k = 96, not a multiple of the k-tile (64); mma.sync on sm_90a"
// TILES-LABEL: func.func @mlp96.backward(
// TILES: fmlp.down_grad {{.*}}strategy = mma_sync{{.*}}reason = "dZd starts at k = 96, not a multiple of the k-tile (64); mma.sync on sm_90a"
// CHECK-LABEL: func.func @mlp96.forward(
// CHECK: gpu.launch_func @fmlp_kernels::@mlp96_forward_k1_gate_up_mma_sync
func.func @mlp96(%x: tensor<?x96xbf16>, %wg: tensor<192x96xbf16>, %wu: tensor<192x96xbf16>,
               %wd: tensor<96x192xbf16>, %a: tensor<16x96xbf16>, %bg: tensor<192x16xbf16>,
               %bu: tensor<192x16xbf16>, %ad: tensor<16x192xbf16>, %bd: tensor<96x16xbf16>) -> tensor<?x96xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd lora(%a, %bg, %bu) down_lora(%ad, %bd)
      : (tensor<?x96xbf16>, tensor<192x96xbf16>, tensor<192x96xbf16>, tensor<96x192xbf16>,
         tensor<16x96xbf16>, tensor<192x16xbf16>, tensor<192x16xbf16>, tensor<16x192xbf16>, tensor<96x16xbf16>) -> tensor<?x96xbf16>
  return %y : tensor<?x96xbf16>
}
