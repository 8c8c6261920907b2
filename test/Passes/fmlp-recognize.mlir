// RUN: fmlp-opt %s --split-input-file --fmlp-recognize | FileCheck %s

// fmlp-recognize on linalg input: each form of projection, activation,
// bias and multiplier that importers emit is fused (positive cases first),
// and every near miss is left alone (CHECK-NOT cases after).

// torch-mlir's form: nn.Linear weights through linalg.transpose, silu as one
// fused generic g / (1 + exp(-g)) * u. Everything else is erased.
#map = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @swiglu_transposed_weights
// CHECK-SAME: (%[[X:.+]]: tensor<?x96xf32>, %[[WG:.+]]: tensor<200x96xf32>, %[[WU:.+]]: tensor<200x96xf32>, %[[WD:.+]]: tensor<96x200xf32>)
// CHECK-NEXT: %[[Y:.+]] = fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]] : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>) -> tensor<?x96xf32>
// CHECK-NEXT: return %[[Y]]
func.func @swiglu_transposed_weights(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                                     %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>)
    -> tensor<?x96xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %t = tensor.dim %x, %c0 : tensor<?x96xf32>
  %e_dh = tensor.empty() : tensor<96x200xf32>
  %wg_t = linalg.transpose ins(%wg : tensor<200x96xf32>) outs(%e_dh : tensor<96x200xf32>) permutation = [1, 0]
  %wu_t = linalg.transpose ins(%wu : tensor<200x96xf32>) outs(%e_dh : tensor<96x200xf32>) permutation = [1, 0]
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g = linalg.matmul ins(%x, %wg_t : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %u = linalg.matmul ins(%x, %wu_t : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %m = arith.mulf %s, %ui : f32
    linalg.yield %m : f32
  } -> tensor<?x200xf32>
  %e_hd = tensor.empty() : tensor<200x96xf32>
  %wd_t = linalg.transpose ins(%wd : tensor<96x200xf32>) outs(%e_hd : tensor<200x96xf32>) permutation = [1, 0]
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.matmul ins(%a, %wd_t : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>

// linalg.matmul with indexing maps that read the weight as [N, K] (no
// transpose op), and silu spelled 0.5 g (1 + tanh(g / 2)) * u.
// CHECK-LABEL: func.func @swiglu_indexing_maps_tanh_sigmoid
// CHECK: fmlp.gated_mlp silu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} : (tensor<37x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>) -> tensor<37x96xf32>
// CHECK-NOT: linalg.
func.func @swiglu_indexing_maps_tanh_sigmoid(%x: tensor<37x96xf32>, %wg: tensor<200x96xf32>,
                                             %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>)
    -> tensor<37x96xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %e_th = tensor.empty() : tensor<37x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<37x200xf32>) -> tensor<37x200xf32>
  %g = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wg : tensor<37x96xf32>, tensor<200x96xf32>) outs(%z_th : tensor<37x200xf32>) -> tensor<37x200xf32>
  %u = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wu : tensor<37x96xf32>, tensor<200x96xf32>) outs(%z_th : tensor<37x200xf32>) -> tensor<37x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<37x200xf32>, tensor<37x200xf32>) outs(%e_th : tensor<37x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %h = arith.mulf %gi, %half : f32
    %th = math.tanh %h : f32
    %p = arith.addf %th, %one : f32
    %q = arith.mulf %p, %half : f32
    %s = arith.mulf %gi, %q : f32
    %m = arith.mulf %ui, %s : f32
    linalg.yield %m : f32
  } -> tensor<37x200xf32>
  %e_td = tensor.empty() : tensor<37x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<37x96xf32>) -> tensor<37x96xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %wd : tensor<37x200xf32>, tensor<96x200xf32>) outs(%z_td : tensor<37x96xf32>) -> tensor<37x96xf32>
  return %y : tensor<37x96xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>

// Weights stored [in, out] (no transposes), GeGLU written with linalg's
// named elementwise ops: 0.5 g (1 + tanh(sqrt(2/pi) (g + 0.044715 g^3))) * u.
// CHECK-LABEL: func.func @geglu_named_ops_in_out
// CHECK: fmlp.gated_mlp gelu_tanh %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} {down_layout = #fmlp.layout<in_out>, gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>} : (tensor<?x96xf32>, tensor<96x200xf32>, tensor<96x200xf32>, tensor<200x96xf32>) -> tensor<?x96xf32>
// CHECK-NOT: linalg.
func.func @geglu_named_ops_in_out(%x: tensor<?x96xf32>, %wg: tensor<96x200xf32>,
                                  %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>,
                                  %t: index) -> tensor<?x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %cube = arith.constant 0.044715 : f32
  %sqrt_2_pi = arith.constant 0.797884583 : f32
  %c_half = linalg.fill ins(%half : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %c_one = linalg.fill ins(%one : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %c_cube = linalg.fill ins(%cube : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %c_sqrt = linalg.fill ins(%sqrt_2_pi : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g2 = linalg.mul ins(%g, %g : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g3 = linalg.mul ins(%g2, %g : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %k3 = linalg.mul ins(%g3, %c_cube : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %inner = linalg.add ins(%g, %k3 : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %scaled = linalg.mul ins(%inner, %c_sqrt : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %th = linalg.tanh ins(%scaled : tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %p = linalg.add ins(%th, %c_one : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %hg = linalg.mul ins(%g, %c_half : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %gelu = linalg.mul ins(%hg, %p : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %a = linalg.mul ins(%gelu, %u : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// A linalg.generic contraction over [B, S, D] with an nn.Linear weight (no
// reshape to [T, D]); ReGLU as max(g, 0) * u on tensors with arith ops.
#x3 = affine_map<(b, s, n, k) -> (b, s, k)>
#w = affine_map<(b, s, n, k) -> (n, k)>
#o3 = affine_map<(b, s, n, k) -> (b, s, n)>
// CHECK-LABEL: func.func @reglu_batched_generic
// CHECK: fmlp.gated_mlp relu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} : (tensor<2x?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>) -> tensor<2x?x96xf32>
// CHECK-NOT: linalg.
func.func @reglu_batched_generic(%x: tensor<2x?x96xf32>, %wg: tensor<200x96xf32>,
                                 %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                                 %s: index) -> tensor<2x?x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e_h = tensor.empty(%s) : tensor<2x?x200xf32>
  %z_h = linalg.fill ins(%zero : f32) outs(%e_h : tensor<2x?x200xf32>) -> tensor<2x?x200xf32>
  %g = linalg.generic {indexing_maps = [#x3, #w, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wg : tensor<2x?x96xf32>, tensor<200x96xf32>) outs(%z_h : tensor<2x?x200xf32>) {
  ^bb0(%xi: f32, %wi: f32, %acc: f32):
    %p = arith.mulf %xi, %wi : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x?x200xf32>
  %u = linalg.generic {indexing_maps = [#x3, #w, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %wu : tensor<2x?x96xf32>, tensor<200x96xf32>) outs(%z_h : tensor<2x?x200xf32>) {
  ^bb0(%xi: f32, %wi: f32, %acc: f32):
    %p = arith.mulf %xi, %wi : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x?x200xf32>
  %relu = arith.maximumf %g, %z_h : tensor<2x?x200xf32>
  %a = arith.mulf %relu, %u : tensor<2x?x200xf32>
  %e_d = tensor.empty(%s) : tensor<2x?x96xf32>
  %z_d = linalg.fill ins(%zero : f32) outs(%e_d : tensor<2x?x96xf32>) -> tensor<2x?x96xf32>
  %y = linalg.generic {indexing_maps = [#x3, #w, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %wd : tensor<2x?x200xf32>, tensor<96x200xf32>) outs(%z_d : tensor<2x?x96xf32>) {
  ^bb0(%ai: f32, %wi: f32, %acc: f32):
    %p = arith.mulf %ai, %wi : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x?x96xf32>
  return %y : tensor<2x?x96xf32>
}

// -----

// linalg.batch_matmul on [B, S, D] against the nn.Linear weight transposed
// and broadcast along the batch, as torch-mlir lowers a 3-D matmul.
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @swiglu_batch_matmul
// CHECK-SAME: (%[[X:.+]]: tensor<2x?x96xf32>, %[[WG:.+]]: tensor<200x96xf32>, %[[WU:.+]]: tensor<200x96xf32>, %[[WD:.+]]: tensor<96x200xf32>
// CHECK-NEXT: fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]] : (tensor<2x?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>) -> tensor<2x?x96xf32>
// CHECK-NEXT: return
func.func @swiglu_batch_matmul(%x: tensor<2x?x96xf32>, %wg: tensor<200x96xf32>,
                               %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                               %s: index) -> tensor<2x?x96xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e_dh = tensor.empty() : tensor<96x200xf32>
  %e_bdh = tensor.empty() : tensor<2x96x200xf32>
  %wg_t = linalg.transpose ins(%wg : tensor<200x96xf32>) outs(%e_dh : tensor<96x200xf32>) permutation = [1, 0]
  %wg_b = linalg.broadcast ins(%wg_t : tensor<96x200xf32>) outs(%e_bdh : tensor<2x96x200xf32>) dimensions = [0]
  %wu_t = linalg.transpose ins(%wu : tensor<200x96xf32>) outs(%e_dh : tensor<96x200xf32>) permutation = [1, 0]
  %wu_b = linalg.broadcast ins(%wu_t : tensor<96x200xf32>) outs(%e_bdh : tensor<2x96x200xf32>) dimensions = [0]
  %e_h = tensor.empty(%s) : tensor<2x?x200xf32>
  %z_h = linalg.fill ins(%zero : f32) outs(%e_h : tensor<2x?x200xf32>) -> tensor<2x?x200xf32>
  %g = linalg.batch_matmul ins(%x, %wg_b : tensor<2x?x96xf32>, tensor<2x96x200xf32>) outs(%z_h : tensor<2x?x200xf32>) -> tensor<2x?x200xf32>
  %u = linalg.batch_matmul ins(%x, %wu_b : tensor<2x?x96xf32>, tensor<2x96x200xf32>) outs(%z_h : tensor<2x?x200xf32>) -> tensor<2x?x200xf32>
  %a = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %u : tensor<2x?x200xf32>, tensor<2x?x200xf32>) outs(%e_h : tensor<2x?x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %sg = arith.divf %one, %d : f32
    %si = arith.mulf %gi, %sg : f32
    %m = arith.mulf %si, %ui : f32
    linalg.yield %m : f32
  } -> tensor<2x?x200xf32>
  %e_hd = tensor.empty() : tensor<200x96xf32>
  %e_bhd = tensor.empty() : tensor<2x200x96xf32>
  %wd_t = linalg.transpose ins(%wd : tensor<96x200xf32>) outs(%e_hd : tensor<200x96xf32>) permutation = [1, 0]
  %wd_b = linalg.broadcast ins(%wd_t : tensor<200x96xf32>) outs(%e_bhd : tensor<2x200x96xf32>) dimensions = [0]
  %e_d = tensor.empty(%s) : tensor<2x?x96xf32>
  %z_d = linalg.fill ins(%zero : f32) outs(%e_d : tensor<2x?x96xf32>) -> tensor<2x?x96xf32>
  %y = linalg.batch_matmul ins(%a, %wd_b : tensor<2x?x200xf32>, tensor<2x200x96xf32>) outs(%z_d : tensor<2x?x96xf32>) -> tensor<2x?x96xf32>
  return %y : tensor<2x?x96xf32>
}

// -----

// [B, S, D] collapsed to [B*S, D] around 2-D matmuls (each projection
// collapses x itself): the block is fused on the collapsed tokens and the
// reshapes around it stay.
// CHECK-LABEL: func.func @swiglu_collapsed_tokens
// CHECK: %[[XC:.+]] = tensor.collapse_shape %arg0
// CHECK-NEXT: %[[Y:.+]] = fmlp.gated_mlp relu %[[XC]], gate %arg1, up %arg2, down %arg3 {{.*}} -> tensor<?x96xf32>
// CHECK-NEXT: %[[YE:.+]] = tensor.expand_shape %[[Y]]
// CHECK-NEXT: return %[[YE]]
func.func @swiglu_collapsed_tokens(%x: tensor<2x?x96xf32>, %wg: tensor<96x200xf32>,
                                   %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>,
                                   %s: index, %t: index) -> tensor<2x?x96xf32> {
  %zero = arith.constant 0.0 : f32
  %xg = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x?x96xf32> into tensor<?x96xf32>
  %xu = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x?x96xf32> into tensor<?x96xf32>
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g = linalg.matmul ins(%xg, %wg : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %u = linalg.matmul ins(%xu, %wu : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %relu = arith.maximumf %g, %z_th : tensor<?x200xf32>
  %a = arith.mulf %relu, %u : tensor<?x200xf32>
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %ye = tensor.expand_shape %y [[0, 1], [2]] output_shape [2, %s, 96] : tensor<?x96xf32> into tensor<2x?x96xf32>
  return %ye : tensor<2x?x96xf32>
}

// -----

// torch-mlir on [B, S, D]: each projection collapses its input to 2-D and
// expands its result back, so the activation runs on [B, S, H]. The block
// is fused on x as it is, [B, S, D].
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @swiglu_expanded_projections
// CHECK-SAME: (%[[X:.+]]: tensor<2x?x96xf32>, %[[WG:.+]]: tensor<96x200xf32>, %[[WU:.+]]: tensor<96x200xf32>, %[[WD:.+]]: tensor<200x96xf32>
// CHECK-NEXT: %[[Y:.+]] = fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]] {{.*}} -> tensor<2x?x96xf32>
// CHECK-NEXT: return %[[Y]]
func.func @swiglu_expanded_projections(%x: tensor<2x?x96xf32>, %wg: tensor<96x200xf32>,
                                       %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>,
                                       %s: index, %t: index) -> tensor<2x?x96xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x?x96xf32> into tensor<?x96xf32>
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g2 = linalg.matmul ins(%x2, %wg : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g = tensor.expand_shape %g2 [[0, 1], [2]] output_shape [2, %s, 200] : tensor<?x200xf32> into tensor<2x?x200xf32>
  %u2 = linalg.matmul ins(%x2, %wu : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %u = tensor.expand_shape %u2 [[0, 1], [2]] output_shape [2, %s, 200] : tensor<?x200xf32> into tensor<2x?x200xf32>
  %e_bh = tensor.empty(%s) : tensor<2x?x200xf32>
  %a = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %u : tensor<2x?x200xf32>, tensor<2x?x200xf32>) outs(%e_bh : tensor<2x?x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %si = arith.divf %gi, %d : f32
    %m = arith.mulf %si, %ui : f32
    linalg.yield %m : f32
  } -> tensor<2x?x200xf32>
  %a2 = tensor.collapse_shape %a [[0, 1], [2]] : tensor<2x?x200xf32> into tensor<?x200xf32>
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y2 = linalg.matmul ins(%a2, %wd : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = tensor.expand_shape %y2 [[0, 1], [2]] output_shape [2, %s, 96] : tensor<?x96xf32> into tensor<2x?x96xf32>
  return %y : tensor<2x?x96xf32>
}

// -----

// Biases in both forms importers use: a broadcasting linalg.generic (gate,
// down) and linalg.add of a linalg.broadcast (up).
#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @biases
// CHECK-SAME: %[[BG:[^:]+]]: tensor<200xf32>, %[[BU:[^:]+]]: tensor<200xf32>, %[[BD:[^:]+]]: tensor<96xf32>
// CHECK: fmlp.gated_mlp silu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} gate_bias %[[BG]] up_bias %[[BU]] down_bias %[[BD]] {down_layout = #fmlp.layout<in_out>, gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>}
// CHECK-NOT: linalg.
func.func @biases(%x: tensor<?x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                  %wd: tensor<200x96xf32>, %bg: tensor<200xf32>, %bu: tensor<200xf32>,
                  %bd: tensor<96xf32>, %t: index) -> tensor<?x96xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g0 = linalg.matmul ins(%x, %wg : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g0, %bg : tensor<?x200xf32>, tensor<200xf32>) outs(%e_th : tensor<?x200xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x200xf32>
  %u0 = linalg.matmul ins(%x, %wu : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %bu_b = linalg.broadcast ins(%bu : tensor<200xf32>) outs(%e_th : tensor<?x200xf32>) dimensions = [0]
  %u = linalg.add ins(%u0, %bu_b : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %m = arith.mulf %s, %ui : f32
    linalg.yield %m : f32
  } -> tensor<?x200xf32>
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y0 = linalg.matmul ins(%a, %wd : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.generic {indexing_maps = [#bias, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%bd, %y0 : tensor<96xf32>, tensor<?x96xf32>) outs(%e_td : tensor<?x96xf32>) {
  ^bb0(%b: f32, %v: f32, %o: f32):
    %r = arith.addf %b, %v : f32
    linalg.yield %r : f32
  } -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// Falcon-H1: the gate scaled by its multiplier before the activation, the
// output by the down multiplier after the down projection; and the
// activation product written up-first, u * silu(g).
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @falcon_h1_multipliers
// CHECK: fmlp.gated_mlp silu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} {down_layout = #fmlp.layout<in_out>, down_multiplier = 2.500000e-01 : f64, gate_layout = #fmlp.layout<in_out>, gate_multiplier = 5.781250e-01 : f64, up_layout = #fmlp.layout<in_out>}
// CHECK-NOT: linalg.
func.func @falcon_h1_multipliers(%x: tensor<?x96xf32>, %wg: tensor<96x200xf32>,
                                 %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>,
                                 %t: index) -> tensor<?x96xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %gate_multiplier = arith.constant 0.578125 : f32
  %down_multiplier = arith.constant 0.25 : f32
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g0 = linalg.matmul ins(%x, %wg : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g0 : tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %gate_multiplier : f32
    linalg.yield %r : f32
  } -> tensor<?x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%u, %g : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) {
  ^bb0(%ui: f32, %gi: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %m = arith.mulf %ui, %s : f32
    linalg.yield %m : f32
  } -> tensor<?x200xf32>
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y0 = linalg.matmul ins(%a, %wd : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y0 : tensor<?x96xf32>) outs(%e_td : tensor<?x96xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %down_multiplier, %v : f32
    linalg.yield %r : f32
  } -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// bf16 computed as importers do it: each elementwise op extends to f32 and
// truncates back; the block ends at the bf16 output, x's type.
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @bf16_extf_truncf
// CHECK: fmlp.gated_mlp silu %{{.+}} : (tensor<?x96xbf16>, tensor<96x200xbf16>, tensor<96x200xbf16>, tensor<200x96xbf16>) -> tensor<?x96xbf16>
// CHECK-NOT: linalg.
func.func @bf16_extf_truncf(%x: tensor<?x96xbf16>, %wg: tensor<96x200xbf16>,
                            %wu: tensor<96x200xbf16>, %wd: tensor<200x96xbf16>,
                            %t: index) -> tensor<?x96xbf16> {
  %zero = arith.constant 0.0 : bf16
  %one = arith.constant 1.0 : f32
  %e_th = tensor.empty(%t) : tensor<?x200xbf16>
  %z_th = linalg.fill ins(%zero : bf16) outs(%e_th : tensor<?x200xbf16>) -> tensor<?x200xbf16>
  %g = linalg.matmul ins(%x, %wg : tensor<?x96xbf16>, tensor<96x200xbf16>) outs(%z_th : tensor<?x200xbf16>) -> tensor<?x200xbf16>
  %u = linalg.matmul ins(%x, %wu : tensor<?x96xbf16>, tensor<96x200xbf16>) outs(%z_th : tensor<?x200xbf16>) -> tensor<?x200xbf16>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<?x200xbf16>, tensor<?x200xbf16>) outs(%e_th : tensor<?x200xbf16>) {
  ^bb0(%gb: bf16, %ub: bf16, %o: bf16):
    %gi = arith.extf %gb : bf16 to f32
    %ui = arith.extf %ub : bf16 to f32
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %m = arith.mulf %s, %ui : f32
    %mb = arith.truncf %m : f32 to bf16
    linalg.yield %mb : bf16
  } -> tensor<?x200xbf16>
  %e_td = tensor.empty(%t) : tensor<?x96xbf16>
  %z_td = linalg.fill ins(%zero : bf16) outs(%e_td : tensor<?x96xbf16>) -> tensor<?x96xbf16>
  %y = linalg.matmul ins(%a, %wd : tensor<?x200xbf16>, tensor<200x96xbf16>) outs(%z_td : tensor<?x96xbf16>) -> tensor<?x96xbf16>
  return %y : tensor<?x96xbf16>
}

// -----

// Two blocks in a row, the second reading the first's output: both fused,
// and the first's output may have any number of users.
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @two_blocks
// CHECK: %[[Y1:.+]] = fmlp.gated_mlp relu %[[X:[^,]+]],
// CHECK: %[[Y2:.+]] = fmlp.gated_mlp relu %[[Y1]],
// CHECK: return %[[Y1]], %[[Y2]]
func.func @two_blocks(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                      %wd: tensor<200x96xf32>) -> (tensor<8x96xf32>, tensor<8x96xf32>) {
  %zero = arith.constant 0.0 : f32
  %e_th = tensor.empty() : tensor<8x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %e_td = tensor.empty() : tensor<8x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  %g1 = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u1 = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %r1 = arith.maximumf %g1, %z_th : tensor<8x200xf32>
  %a1 = arith.mulf %r1, %u1 : tensor<8x200xf32>
  %y1 = linalg.matmul ins(%a1, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  %g2 = linalg.matmul ins(%y1, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u2 = linalg.matmul ins(%y1, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %r2 = arith.maximumf %g2, %z_th : tensor<8x200xf32>
  %a2 = arith.mulf %r2, %u2 : tensor<8x200xf32>
  %y2 = linalg.matmul ins(%a2, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y1, %y2 : tensor<8x96xf32>, tensor<8x96xf32>
}

// -----

// Near misses follow. Each is left exactly as it was.

// G is also returned: fusing would have to keep it alive.
// CHECK-LABEL: func.func @gate_used_elsewhere
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @gate_used_elsewhere(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                               %wd: tensor<200x96xf32>) -> (tensor<8x96xf32>, tensor<8x200xf32>) {
  %zero = arith.constant 0.0 : f32
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<8x200xf32>
  %a = arith.mulf %r, %u : tensor<8x200xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y, %g : tensor<8x96xf32>, tensor<8x200xf32>
}

// -----

// U is also used by another operation.
// CHECK-LABEL: func.func @up_used_elsewhere
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @up_used_elsewhere(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                             %wd: tensor<200x96xf32>) -> (tensor<8x96xf32>, tensor<8x200xf32>) {
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<8x200xf32>
  %a = arith.mulf %r, %u : tensor<8x200xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  %u2 = arith.mulf %u, %u : tensor<8x200xf32>
  return %y, %u2 : tensor<8x96xf32>, tensor<8x200xf32>
}

// -----

// The activation product A is also returned.
// CHECK-LABEL: func.func @product_used_elsewhere
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @product_used_elsewhere(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                                  %wd: tensor<200x96xf32>) -> (tensor<8x96xf32>, tensor<8x200xf32>) {
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<8x200xf32>
  %a = arith.mulf %r, %u : tensor<8x200xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y, %a : tensor<8x96xf32>, tensor<8x200xf32>
}

// -----

// Gate and up project different tensors.
// CHECK-LABEL: func.func @different_inputs
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @different_inputs(%x: tensor<8x96xf32>, %x2: tensor<8x96xf32>, %wg: tensor<96x200xf32>,
                            %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>) -> tensor<8x96xf32> {
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x2, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<8x200xf32>
  %a = arith.mulf %r, %u : tensor<8x200xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}

// -----

// exp(g) where silu has exp(-g): g / (1 + exp(g)) is not silu.
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @exp_without_negation
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @exp_without_negation(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                                %wd: tensor<200x96xf32>) -> tensor<8x96xf32> {
  %one = arith.constant 1.0 : f32
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x200xf32>, tensor<8x200xf32>) outs(%z_th : tensor<8x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %e = math.exp %gi : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %m = arith.mulf %s, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x200xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}

// -----

// The exact GELU, 0.5 g (1 + erf(g / sqrt(2))): not the tanh GELU that
// fmlp supports, though the two differ by less than 2e-4 relative.
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @gelu_erf
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @gelu_erf(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                    %wd: tensor<200x96xf32>) -> tensor<8x96xf32> {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.707106769 : f32
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x200xf32>, tensor<8x200xf32>) outs(%z_th : tensor<8x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %s = arith.mulf %gi, %rsqrt2 : f32
    %e = math.erf %s : f32
    %p = arith.addf %e, %one : f32
    %h = arith.mulf %gi, %half : f32
    %gelu = arith.mulf %h, %p : f32
    %m = arith.mulf %gelu, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x200xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}

// -----

// The sigmoid GELU, g sigmoid(1.702 g): 1e-2 away from the tanh GELU.
#map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @quick_gelu
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @quick_gelu(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                      %wd: tensor<200x96xf32>) -> tensor<8x96xf32> {
  %k = arith.constant -1.702 : f32
  %one = arith.constant 1.0 : f32
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x200xf32>, tensor<8x200xf32>) outs(%z_th : tensor<8x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.mulf %gi, %k : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %m = arith.mulf %s, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x200xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}

// -----

// No activation at all: (g * u) Wd is a bilinear block, not a gated MLP.
// CHECK-LABEL: func.func @no_activation
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @no_activation(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                         %wd: tensor<200x96xf32>) -> tensor<8x96xf32> {
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %a = arith.mulf %g, %u : tensor<8x200xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}

// -----

// The "down projection" projects another value (x itself), not the
// activation product.
// CHECK-LABEL: func.func @down_of_another_value
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @down_of_another_value(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                                 %wd: tensor<96x96xf32>) -> (tensor<8x96xf32>, tensor<8x200xf32>) {
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<8x200xf32>
  %a = arith.mulf %r, %u : tensor<8x200xf32>
  %y = linalg.matmul ins(%x, %wd : tensor<8x96xf32>, tensor<96x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y, %a : tensor<8x96xf32>, tensor<8x200xf32>
}

// -----

// A gate multiplier that is a runtime value, not a constant.
// CHECK-LABEL: func.func @runtime_multiplier
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @runtime_multiplier(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                              %wd: tensor<200x96xf32>, %scale: tensor<8x200xf32>) -> tensor<8x96xf32> {
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g0 = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %g = arith.mulf %g0, %scale : tensor<8x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<8x200xf32>
  %a = arith.mulf %r, %u : tensor<8x200xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}

// -----

// The gate projection accumulates into a residual instead of zero.
// CHECK-LABEL: func.func @nonzero_accumulator
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @nonzero_accumulator(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                               %wd: tensor<200x96xf32>, %residual: tensor<8x200xf32>) -> tensor<8x96xf32> {
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%residual : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<8x200xf32>
  %a = arith.mulf %r, %u : tensor<8x200xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}

// -----

// Mismatched element types: the down projection reads a bf16 product while
// x is f32. fmlp.gated_mlp would need a precision to say how to round, which
// the IR does not give, so the block stays.
// CHECK-LABEL: func.func @mixed_element_types
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @mixed_element_types(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                               %wd: tensor<200x96xbf16>) -> tensor<8x96xf32> {
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<8x200xf32>
  %a = arith.mulf %r, %u : tensor<8x200xf32>
  %ab = arith.truncf %a : tensor<8x200xf32> to tensor<8x200xbf16>
  %y = linalg.matmul ins(%ab, %wd : tensor<8x200xbf16>, tensor<200x96xbf16>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}

// -----

// Mismatched shapes: U comes from one token and is broadcast over all of
// them, so the product is not elementwise in G and U.
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @broadcast_up
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @broadcast_up(%x: tensor<8x96xf32>, %x1: tensor<1x96xf32>, %wg: tensor<96x200xf32>,
                        %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>) -> tensor<8x96xf32> {
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_1h = arith.constant dense<0.0> : tensor<1x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %u = linalg.matmul ins(%x1, %wu : tensor<1x96xf32>, tensor<96x200xf32>) outs(%z_1h : tensor<1x200xf32>) -> tensor<1x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x200xf32>, tensor<1x200xf32>) outs(%z_th : tensor<8x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %gi, %zero : f32
    %m = arith.mulf %r, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x200xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}
