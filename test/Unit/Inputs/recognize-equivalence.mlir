// Gated MLP blocks as frontends write them, in f32 with 2-D x and only
// tensor arguments (x, then the weights as stored), for
// RecognizeEquivalenceTest: each is run as written (upstream lowering) and
// as fmlp-recognize's fmlp.gated_mlp (fmlp's plan), on the same inputs.

#map = affine_map<(d0, d1) -> (d0, d1)>
// torch-mlir's form: transposed nn.Linear weights, sigmoid then products.
func.func @torch_mlir_swiglu(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                             %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) -> tensor<?x96xf32> {
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
  %sig = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<?x200xf32>
  %silu = arith.mulf %g, %sig : tensor<?x200xf32>
  %u = linalg.matmul ins(%x, %wu_t : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %a = arith.mulf %silu, %u : tensor<?x200xf32>
  %e_hd = tensor.empty() : tensor<200x96xf32>
  %wd_t = linalg.transpose ins(%wd : tensor<96x200xf32>) outs(%e_hd : tensor<200x96xf32>) permutation = [1, 0]
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.matmul ins(%a, %wd_t : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
// GeGLU with [in, out] weights and Falcon-H1 multipliers, in one generic.
func.func @geglu_multipliers(%x: tensor<?x96xf32>, %wg: tensor<96x200xf32>,
                             %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>) -> tensor<?x96xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %cube = arith.constant 0.044715 : f32
  %k = arith.constant 0.797884583 : f32
  %mg = arith.constant 0.75 : f32
  %md = arith.constant 1.5 : f32
  %t = tensor.dim %x, %c0 : tensor<?x96xf32>
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) {
  ^bb0(%g0: f32, %ui: f32, %o: f32):
    %gi = arith.mulf %g0, %mg : f32
    %g2 = arith.mulf %gi, %gi : f32
    %g3 = arith.mulf %g2, %gi : f32
    %c3 = arith.mulf %g3, %cube : f32
    %in = arith.addf %gi, %c3 : f32
    %s = arith.mulf %in, %k : f32
    %th = math.tanh %s : f32
    %p = arith.addf %th, %one : f32
    %h = arith.mulf %gi, %half : f32
    %gelu = arith.mulf %h, %p : f32
    %m = arith.mulf %gelu, %ui : f32
    linalg.yield %m : f32
  } -> tensor<?x200xf32>
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y0 = linalg.matmul ins(%a, %wd : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y0 : tensor<?x96xf32>) outs(%e_td : tensor<?x96xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %md : f32
    linalg.yield %r : f32
  } -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// TOSA, as an exporter writes a Linear: reshape to 3-D, transposed weight,
// matmul, reshape back; silu as sigmoid times its input.
func.func @tosa_swiglu(%x: tensor<8x16xf32>, %wg: tensor<40x16xf32>, %wu: tensor<40x16xf32>,
                       %wd: tensor<16x40xf32>) -> tensor<8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s_x = tosa.const_shape {values = dense<[1, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_w = tosa.const_shape {values = dense<[1, 16, 40]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_h = tosa.const_shape {values = dense<[8, 40]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s_a = tosa.const_shape {values = dense<[1, 8, 40]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_d = tosa.const_shape {values = dense<[1, 40, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_y = tosa.const_shape {values = dense<[8, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %x3 = tosa.reshape %x, %s_x : (tensor<8x16xf32>, !tosa.shape<3>) -> tensor<1x8x16xf32>
  %wg_t = tosa.transpose %wg {perms = array<i32: 1, 0>} : (tensor<40x16xf32>) -> tensor<16x40xf32>
  %wg3 = tosa.reshape %wg_t, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %g3 = tosa.matmul %x3, %wg3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %g = tosa.reshape %g3, %s_h : (tensor<1x8x40xf32>, !tosa.shape<2>) -> tensor<8x40xf32>
  %sig = tosa.sigmoid %g : (tensor<8x40xf32>) -> tensor<8x40xf32>
  %silu = tosa.mul %g, %sig, %shift : (tensor<8x40xf32>, tensor<8x40xf32>, tensor<1xi8>) -> tensor<8x40xf32>
  %wu_t = tosa.transpose %wu {perms = array<i32: 1, 0>} : (tensor<40x16xf32>) -> tensor<16x40xf32>
  %wu3 = tosa.reshape %wu_t, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %u3 = tosa.matmul %x3, %wu3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %u = tosa.reshape %u3, %s_h : (tensor<1x8x40xf32>, !tosa.shape<2>) -> tensor<8x40xf32>
  %a = tosa.mul %silu, %u, %shift : (tensor<8x40xf32>, tensor<8x40xf32>, tensor<1xi8>) -> tensor<8x40xf32>
  %a3 = tosa.reshape %a, %s_a : (tensor<8x40xf32>, !tosa.shape<3>) -> tensor<1x8x40xf32>
  %wd_t = tosa.transpose %wd {perms = array<i32: 1, 0>} : (tensor<16x40xf32>) -> tensor<40x16xf32>
  %wd3 = tosa.reshape %wd_t, %s_d : (tensor<40x16xf32>, !tosa.shape<3>) -> tensor<1x40x16xf32>
  %y3 = tosa.matmul %a3, %wd3, %zp, %zp : (tensor<1x8x40xf32>, tensor<1x40x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %y = tosa.reshape %y3, %s_y : (tensor<1x8x16xf32>, !tosa.shape<2>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// TOSA ReGLU with [in, out] weights on [1, T, D] tokens, relu as tosa.clamp.
func.func @tosa_reglu(%x: tensor<1x8x16xf32>, %wg: tensor<16x40xf32>, %wu: tensor<16x40xf32>,
                      %wd: tensor<40x16xf32>) -> tensor<1x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s_w = tosa.const_shape {values = dense<[1, 16, 40]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_d = tosa.const_shape {values = dense<[1, 40, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %wg3 = tosa.reshape %wg, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %wu3 = tosa.reshape %wu, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %wd3 = tosa.reshape %wd, %s_d : (tensor<40x16xf32>, !tosa.shape<3>) -> tensor<1x40x16xf32>
  %g = tosa.matmul %x, %wg3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %u = tosa.matmul %x, %wu3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %relu = tosa.clamp %g {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x8x40xf32>) -> tensor<1x8x40xf32>
  %a = tosa.mul %relu, %u, %shift : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %y = tosa.matmul %a, %wd3, %zp, %zp : (tensor<1x8x40xf32>, tensor<1x40x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  return %y : tensor<1x8x16xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
// GeGLU as torch-mlir writes gelu(approximate="tanh"): x^3 as math.fpowi
// with an i32 exponent.
func.func @geglu_fpowi(%x: tensor<?x96xf32>, %wg: tensor<96x200xf32>,
                       %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>) -> tensor<?x96xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %cube = arith.constant 0.044715 : f32
  %k = arith.constant 0.797884583 : f32
  %three = arith.constant 3 : i32
  %t = tensor.dim %x, %c0 : tensor<?x96xf32>
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %p = math.fpowi %gi, %three : f32, i32
    %cp = arith.mulf %p, %cube : f32
    %s = arith.addf %gi, %cp : f32
    %ks = arith.mulf %s, %k : f32
    %th = math.tanh %ks : f32
    %t1 = arith.addf %th, %one : f32
    %h = arith.mulf %gi, %half : f32
    %r = arith.mulf %h, %t1 : f32
    %m = arith.mulf %r, %ui : f32
    linalg.yield %m : f32
  } -> tensor<?x200xf32>
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
// GeGLU with torch-mlir's constant for sqrt(2/pi) (0.797724, 2e-4 below
// 0.7978846): as written and as fmlp's exact gelu_tanh, both within the f32
// bound of the exact GeGLU.
func.func @geglu_torch_mlir_constant(%x: tensor<?x96xf32>, %wg: tensor<96x200xf32>,
                       %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>) -> tensor<?x96xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %cube = arith.constant 0.044715 : f32
  %k = arith.constant 0.797724 : f32
  %three = arith.constant 3 : i32
  %t = tensor.dim %x, %c0 : tensor<?x96xf32>
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %p = math.fpowi %gi, %three : f32, i32
    %cp = arith.mulf %p, %cube : f32
    %s = arith.addf %gi, %cp : f32
    %ks = arith.mulf %s, %k : f32
    %th = math.tanh %ks : f32
    %t1 = arith.addf %th, %one : f32
    %h = arith.mulf %gi, %half : f32
    %r = arith.mulf %h, %t1 : f32
    %m = arith.mulf %r, %ui : f32
    linalg.yield %m : f32
  } -> tensor<?x200xf32>
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
// tosa.matmul lowered to linalg: batch-1 linalg.batch_matmul between
// tensor.expand_shape views, collapsed back.
func.func @tosa_lowered_batch_one(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>,
                                  %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>) -> tensor<8x96xf32> {
  %one = arith.constant 1.0 : f32
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [1, 8, 96] : tensor<8x96xf32> into tensor<1x8x96xf32>
  %wg3 = tensor.expand_shape %wg [[0, 1], [2]] output_shape [1, 96, 200] : tensor<96x200xf32> into tensor<1x96x200xf32>
  %wu3 = tensor.expand_shape %wu [[0, 1], [2]] output_shape [1, 96, 200] : tensor<96x200xf32> into tensor<1x96x200xf32>
  %z_h = arith.constant dense<0.0> : tensor<1x8x200xf32>
  %g3 = linalg.batch_matmul ins(%x3, %wg3 : tensor<1x8x96xf32>, tensor<1x96x200xf32>) outs(%z_h : tensor<1x8x200xf32>) -> tensor<1x8x200xf32>
  %g = tensor.collapse_shape %g3 [[0, 1], [2]] : tensor<1x8x200xf32> into tensor<8x200xf32>
  %u3 = linalg.batch_matmul ins(%x3, %wu3 : tensor<1x8x96xf32>, tensor<1x96x200xf32>) outs(%z_h : tensor<1x8x200xf32>) -> tensor<1x8x200xf32>
  %u = tensor.collapse_shape %u3 [[0, 1], [2]] : tensor<1x8x200xf32> into tensor<8x200xf32>
  %e_h = tensor.empty() : tensor<8x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x200xf32>, tensor<8x200xf32>) outs(%e_h : tensor<8x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %si = arith.divf %gi, %d : f32
    %m = arith.mulf %si, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x200xf32>
  %a3 = tensor.expand_shape %a [[0, 1], [2]] output_shape [1, 8, 200] : tensor<8x200xf32> into tensor<1x8x200xf32>
  %wd3 = tensor.expand_shape %wd [[0, 1], [2]] output_shape [1, 200, 96] : tensor<200x96xf32> into tensor<1x200x96xf32>
  %z_d = arith.constant dense<0.0> : tensor<1x8x96xf32>
  %y3 = linalg.batch_matmul ins(%a3, %wd3 : tensor<1x8x200xf32>, tensor<1x200x96xf32>) outs(%z_d : tensor<1x8x96xf32>) -> tensor<1x8x96xf32>
  %y = tensor.collapse_shape %y3 [[0, 1], [2]] : tensor<1x8x96xf32> into tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
// Phi3's fused gate_up_proj (torch-mlir's form): one nn.Linear weight of 2H
// outputs, [400, 96], whose output columns [0, 200) are the gate and
// [200, 400) the up projection; the original takes it whole, fmlp's plan
// its two row halves.
func.func @phi3_fused_gate_up(%x: tensor<?x96xf32>, %wgu: tensor<400x96xf32>,
                              %wd: tensor<96x200xf32>) -> tensor<?x96xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %t = tensor.dim %x, %c0 : tensor<?x96xf32>
  %e_d2h = tensor.empty() : tensor<96x400xf32>
  %wgu_t = linalg.transpose ins(%wgu : tensor<400x96xf32>) outs(%e_d2h : tensor<96x400xf32>) permutation = [1, 0]
  %e_t2h = tensor.empty(%t) : tensor<?x400xf32>
  %z_t2h = linalg.fill ins(%zero : f32) outs(%e_t2h : tensor<?x400xf32>) -> tensor<?x400xf32>
  %gu = linalg.matmul ins(%x, %wgu_t : tensor<?x96xf32>, tensor<96x400xf32>) outs(%z_t2h : tensor<?x400xf32>) -> tensor<?x400xf32>
  %g = tensor.extract_slice %gu[0, 0] [%t, 200] [1, 1] : tensor<?x400xf32> to tensor<?x200xf32>
  %u = tensor.extract_slice %gu[0, 200] [%t, 200] [1, 1] : tensor<?x400xf32> to tensor<?x200xf32>
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<?x200xf32>, tensor<?x200xf32>) outs(%e_th : tensor<?x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %out: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %p = arith.mulf %s, %ui : f32
    linalg.yield %p : f32
  } -> tensor<?x200xf32>
  %e_hd = tensor.empty() : tensor<200x96xf32>
  %wd_t = linalg.transpose ins(%wd : tensor<96x200xf32>) outs(%e_hd : tensor<200x96xf32>) permutation = [1, 0]
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.matmul ins(%a, %wd_t : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}
