// RUN: fmlp-opt %s --split-input-file --verify-diagnostics --convert-fmlp-to-linalg | FileCheck %s

// K2 on bf16: an f32 accumulator, a contraction that extends each operand
// to f32, and an epilogue that scales and rounds once to bf16.
// CHECK-LABEL: func.func @down
// CHECK-SAME: attributes {fmlp.entry = "forward_nograd", llvm.emit_c_interface}
// CHECK: %[[ACC:.+]] = memref.alloc(%{{.+}}) : memref<?x96xf32>
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[ACC]] : memref<?x96xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[LHS:.+]], #[[RHS:.+]], #[[OUT:.+]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : memref<?x200xbf16>, memref<96x200xbf16>) outs(%[[ACC]] : memref<?x96xf32>)
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : memref<?x96xf32>) outs(%arg2 : memref<?x96xbf16>)
// CHECK: arith.mulf
// CHECK: arith.truncf {{.*}} : f32 to bf16
// CHECK: memref.dealloc %[[ACC]]
// CHECK-NOT: fmlp.down
func.func @down(%a: memref<?x200xbf16>, %wd: memref<96x200xbf16>, %y: memref<?x96xbf16>)
    attributes {fmlp.entry = "forward_nograd"} {
  fmlp.down ins(%a, %wd : memref<?x200xbf16>, memref<96x200xbf16>) outs(%y : memref<?x96xbf16>) {down_multiplier = 0.5 : f64}
  return
}

// -----

// K3 in place: the epilogue reads G and U and writes dG, dU into the same
// buffers, element by element.
// CHECK-LABEL: func.func @down_grad_in_place
// CHECK: %[[DA:.+]] = memref.alloc
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : memref<?x96xf32>, memref<96x200xf32>) outs(%[[DA]] :
// CHECK: linalg.generic {{.*}} ins(%[[DA]], %arg2, %arg3 : {{.*}}) outs(%arg2, %arg3 :
// CHECK: math.exp
// CHECK: memref.dealloc %[[DA]]
func.func @down_grad_in_place(%dy: memref<?x96xf32>, %wd: memref<96x200xf32>,
                              %g: memref<?x200xf32>, %u: memref<?x200xf32>) {
  fmlp.down_grad silu ins(%dy, %wd, %g, %u : memref<?x96xf32>, memref<96x200xf32>, memref<?x200xf32>, memref<?x200xf32>) outs(%g, %u : memref<?x200xf32>, memref<?x200xf32>)
  return
}

// -----

// K3 recomputing A = relu(G) U (save=gu) into a third out, from the G and
// U it reads before writing dG, dU over them; then K6 reading it,
// accumulating.
// CHECK-LABEL: func.func @down_grad_recomputes_a
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %arg2, %arg3 : {{.*}}) outs(%arg2, %arg3, %arg4 :
// CHECK-NEXT: ^bb0(%[[DA:[a-z0-9_]+]]: f32, %[[G:[a-z0-9_]+]]: f32, %[[U:[a-z0-9_]+]]: f32,
// CHECK: %[[AG:.+]] = arith.maximumf %[[G]],
// CHECK: %[[DU:.+]] = arith.mulf %[[DA]], %[[AG]]
// CHECK: %[[A:.+]] = arith.mulf %[[AG]], %[[U]]
// CHECK: linalg.yield %{{.+}}, %[[DU]], %[[A]]
// CHECK: linalg.generic {{.*}} ins(%arg4, %arg0 : {{.*}}) outs(%[[ACC:.+]] : memref<96x200xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : memref<96x200xf32>) outs(%arg5 : memref<96x200xf32>)
// CHECK: arith.addf
func.func @down_grad_recomputes_a(%dy: memref<?x96xf32>, %wd: memref<96x200xf32>,
                                  %g: memref<?x200xf32>, %u: memref<?x200xf32>,
                                  %a: memref<?x200xf32>, %dwd: memref<96x200xf32>) {
  fmlp.down_grad relu ins(%dy, %wd, %g, %u : memref<?x96xf32>, memref<96x200xf32>, memref<?x200xf32>, memref<?x200xf32>) outs(%g, %u, %a : memref<?x200xf32>, memref<?x200xf32>, memref<?x200xf32>)
  fmlp.down_weight_grad ins(%dy, %a : memref<?x96xf32>, memref<?x200xf32>) outs(%dwd : memref<96x200xf32>) {accumulate}
  return
}

// -----

// A bias gradient: an f32 sum over the tokens, then scaled, added to the
// out (accumulate) and rounded once.
// CHECK-LABEL: func.func @bias_grad
// CHECK: %[[ACC:.+]] = memref.alloc() : memref<96xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%arg0 : memref<?x96xbf16>) outs(%[[ACC]] : memref<96xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : memref<96xf32>) outs(%arg1 : memref<96xbf16>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.truncf
func.func @bias_grad(%dy: memref<?x96xbf16>, %dbd: memref<96xbf16>) {
  fmlp.bias_grad ins(%dy : memref<?x96xbf16>) outs(%dbd : memref<96xbf16>) {scale = 0.5 : f64, accumulate}
  return
}

// -----

func.func @tensors(%a: tensor<?x200xf32>, %wd: tensor<96x200xf32>, %y: tensor<?x96xf32>) -> tensor<?x96xf32> {
  // expected-error @+1 {{'fmlp.down' op works on tensors: run fmlp-plan-memory first}}
  %r = fmlp.down ins(%a, %wd : tensor<?x200xf32>, tensor<96x200xf32>) outs(%y : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %r : tensor<?x96xf32>
}

// -----

func.func @unplanned(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) -> tensor<?x96xf32> {
  // expected-error @+1 {{'fmlp.gated_mlp' op is not part of a kernel plan: run fmlp-expand-training and fmlp-fuse first (fmlp-plan-pipeline)}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// fmlp.transpose: out[j, i] = in[i, j], the same elements.
// CHECK-LABEL: func.func @transpose
// CHECK: linalg.transpose ins(%{{.+}} : memref<96x200xf32>) outs(%{{.+}} : memref<200x96xf32>) permutation = [1, 0]
// CHECK-NOT: fmlp.transpose
func.func @transpose(%w: memref<96x200xf32>, %wt: memref<200x96xf32>) {
  fmlp.transpose ins(%w : memref<96x200xf32>) outs(%wt : memref<200x96xf32>)
  return
}

// -----

// Rounded to tf32 (to nearest, ties away: cvt.rna): half of tf32's last
// place added to the bits (4096 = bit 12), the 13 bits below cleared
// (-8192 = 0xFFFFE000); transposed by the input's indexing map.
// CHECK-DAG: #[[SWAP:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[SAME:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @rounded
// CHECK: linalg.generic {indexing_maps = [#[[SWAP]], #[[SAME]]], iterator_types = ["parallel", "parallel"]} ins(%{{.+}} : memref<96x200xf32>) outs(%{{.+}} : memref<200x96xf32>)
// CHECK: %[[BITS:.+]] = arith.bitcast %{{.+}} : f32 to i32
// CHECK: %[[UP:.+]] = arith.addi %[[BITS]], %{{.+}} : i32
// CHECK: arith.andi %[[UP]], %{{.+}} : i32
// CHECK: linalg.generic {indexing_maps = [#[[SAME]], #[[SAME]]], iterator_types = ["parallel", "parallel"]} ins(%{{.+}} : memref<96x200xf32>) outs(%{{.+}} : memref<96x200xf32>)
// CHECK-DAG: arith.constant 4096 : i32
// CHECK-DAG: arith.constant -8192 : i32
// CHECK-NOT: fmlp.
func.func @rounded(%w: memref<96x200xf32>, %wt: memref<200x96xf32>, %wr: memref<96x200xf32>) {
  fmlp.transpose ins(%w : memref<96x200xf32>) outs(%wt : memref<200x96xf32>) {round_to_tf32}
  fmlp.round_to_tf32 ins(%w : memref<96x200xf32>) outs(%wr : memref<96x200xf32>)
  return
}
