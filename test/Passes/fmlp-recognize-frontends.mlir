// RUN: fmlp-opt %s --split-input-file --fmlp-recognize=explain-misses --verify-diagnostics | FileCheck %s

// fmlp-recognize on the forms real frontends emit, where a linalg.generic
// stands for a named op: it is read by its indexing maps and payload (a
// broadcast, a cast, a bias add), not by its name. Positive cases first
// (no remark: every contraction is fused), then near misses, each with the
// remark that says why it is left alone.

// torch-mlir and IREE for nn.Linear on 3-D x: linalg.batch_matmul whose
// weight is the transposed nn.Linear weight broadcast along the batch by a
// generic with an identity payload and a map dropping the batch dimension.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#drop_batch = affine_map<(d0, d1, d2) -> (d1, d2)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @batch_matmul_generic_broadcast
// CHECK-SAME: (%[[X:.+]]: tensor<?x?x64xf32>, %[[WG:.+]]: tensor<160x64xf32>, %[[WU:.+]]: tensor<160x64xf32>, %[[WD:.+]]: tensor<64x160xf32>
// CHECK-NEXT: %[[Y:.+]] = fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]] : (tensor<?x?x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<?x?x64xf32>
// CHECK-NEXT: return %[[Y]]
func.func @batch_matmul_generic_broadcast(%x: tensor<?x?x64xf32>, %wg: tensor<160x64xf32>,
    %wu: tensor<160x64xf32>, %wd: tensor<64x160xf32>, %b: index, %s: index) -> tensor<?x?x64xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e_dh = tensor.empty() : tensor<64x160xf32>
  %wg_t = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%wg : tensor<160x64xf32>) outs(%e_dh : tensor<64x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<64x160xf32>
  %wu_t = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%wu : tensor<160x64xf32>) outs(%e_dh : tensor<64x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<64x160xf32>
  %e_bdh = tensor.empty(%b) : tensor<?x64x160xf32>
  %wg_b = linalg.generic {indexing_maps = [#drop_batch, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wg_t : tensor<64x160xf32>) outs(%e_bdh : tensor<?x64x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<?x64x160xf32>
  %wu_b = linalg.generic {indexing_maps = [#drop_batch, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wu_t : tensor<64x160xf32>) outs(%e_bdh : tensor<?x64x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<?x64x160xf32>
  %e_h = tensor.empty(%b, %s) : tensor<?x?x160xf32>
  %z_h = linalg.fill ins(%zero : f32) outs(%e_h : tensor<?x?x160xf32>) -> tensor<?x?x160xf32>
  %g = linalg.batch_matmul ins(%x, %wg_b : tensor<?x?x64xf32>, tensor<?x64x160xf32>) outs(%z_h : tensor<?x?x160xf32>) -> tensor<?x?x160xf32>
  %u = linalg.batch_matmul ins(%x, %wu_b : tensor<?x?x64xf32>, tensor<?x64x160xf32>) outs(%z_h : tensor<?x?x160xf32>) -> tensor<?x?x160xf32>
  %sig = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g : tensor<?x?x160xf32>) outs(%e_h : tensor<?x?x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<?x?x160xf32>
  %silu = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sig, %g : tensor<?x?x160xf32>, tensor<?x?x160xf32>) outs(%e_h : tensor<?x?x160xf32>) {
  ^bb0(%si: f32, %gi: f32, %o: f32):
    %m = arith.mulf %gi, %si : f32
    linalg.yield %m : f32
  } -> tensor<?x?x160xf32>
  %a = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%silu, %u : tensor<?x?x160xf32>, tensor<?x?x160xf32>) outs(%e_h : tensor<?x?x160xf32>) {
  ^bb0(%si: f32, %ui: f32, %o: f32):
    %m = arith.mulf %si, %ui : f32
    linalg.yield %m : f32
  } -> tensor<?x?x160xf32>
  %e_hd = tensor.empty() : tensor<160x64xf32>
  %wd_t = linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%wd : tensor<64x160xf32>) outs(%e_hd : tensor<160x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<160x64xf32>
  %e_bhd = tensor.empty(%b) : tensor<?x160x64xf32>
  %wd_b = linalg.generic {indexing_maps = [#drop_batch, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wd_t : tensor<160x64xf32>) outs(%e_bhd : tensor<?x160x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<?x160x64xf32>
  %e_d = tensor.empty(%b, %s) : tensor<?x?x64xf32>
  %z_d = linalg.fill ins(%zero : f32) outs(%e_d : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %y = linalg.batch_matmul ins(%a, %wd_b : tensor<?x?x160xf32>, tensor<?x160x64xf32>) outs(%z_d : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  return %y : tensor<?x?x64xf32>
}

// -----

// bf16 with biases, accumulated in f32: each contraction is narrowed by a
// truncf generic before its bias add (torch-mlir), the bias read through a
// broadcasting map.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#drop_batch = affine_map<(d0, d1, d2) -> (d1, d2)>
#bias = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @bf16_truncf_before_bias
// CHECK-SAME: (%[[X:.+]]: tensor<2x?x64xbf16>, %[[WG:.+]]: tensor<64x160xbf16>, %[[WU:.+]]: tensor<64x160xbf16>, %[[WD:.+]]: tensor<160x64xbf16>, %[[BG:.+]]: tensor<160xbf16>, %[[BU:.+]]: tensor<160xbf16>, %[[BD:.+]]: tensor<64xbf16>
// CHECK-NEXT: %[[Y:.+]] = fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]] gate_bias %[[BG]] up_bias %[[BU]] down_bias %[[BD]] {down_layout = #fmlp.layout<in_out>, gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>}
// CHECK-NEXT: return %[[Y]]
func.func @bf16_truncf_before_bias(%x: tensor<2x?x64xbf16>, %wg: tensor<64x160xbf16>, %wu: tensor<64x160xbf16>,
    %wd: tensor<160x64xbf16>, %bg: tensor<160xbf16>, %bu: tensor<160xbf16>, %bd: tensor<64xbf16>,
    %s: index) -> tensor<2x?x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : bf16
  %e_bdh = tensor.empty() : tensor<2x64x160xbf16>
  %wg_b = linalg.generic {indexing_maps = [#drop_batch, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wg : tensor<64x160xbf16>) outs(%e_bdh : tensor<2x64x160xbf16>) {
  ^bb0(%in: bf16, %o: bf16):
    linalg.yield %in : bf16
  } -> tensor<2x64x160xbf16>
  %wu_b = linalg.generic {indexing_maps = [#drop_batch, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wu : tensor<64x160xbf16>) outs(%e_bdh : tensor<2x64x160xbf16>) {
  ^bb0(%in: bf16, %o: bf16):
    linalg.yield %in : bf16
  } -> tensor<2x64x160xbf16>
  %e_h32 = tensor.empty(%s) : tensor<2x?x160xf32>
  %z_h = linalg.fill ins(%zero : f32) outs(%e_h32 : tensor<2x?x160xf32>) -> tensor<2x?x160xf32>
  %e_h = tensor.empty(%s) : tensor<2x?x160xbf16>
  %g32 = linalg.batch_matmul ins(%x, %wg_b : tensor<2x?x64xbf16>, tensor<2x64x160xbf16>) outs(%z_h : tensor<2x?x160xf32>) -> tensor<2x?x160xf32>
  %g16 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g32 : tensor<2x?x160xf32>) outs(%e_h : tensor<2x?x160xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %c = arith.truncf %in : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<2x?x160xbf16>
  %g = linalg.generic {indexing_maps = [#id3, #bias, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g16, %bg : tensor<2x?x160xbf16>, tensor<160xbf16>) outs(%e_h : tensor<2x?x160xbf16>) {
  ^bb0(%p: bf16, %bi: bf16, %o: bf16):
    %r = arith.addf %p, %bi : bf16
    linalg.yield %r : bf16
  } -> tensor<2x?x160xbf16>
  %u32 = linalg.batch_matmul ins(%x, %wu_b : tensor<2x?x64xbf16>, tensor<2x64x160xbf16>) outs(%z_h : tensor<2x?x160xf32>) -> tensor<2x?x160xf32>
  %u16 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%u32 : tensor<2x?x160xf32>) outs(%e_h : tensor<2x?x160xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %c = arith.truncf %in : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<2x?x160xbf16>
  %u = linalg.generic {indexing_maps = [#id3, #bias, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%u16, %bu : tensor<2x?x160xbf16>, tensor<160xbf16>) outs(%e_h : tensor<2x?x160xbf16>) {
  ^bb0(%p: bf16, %bi: bf16, %o: bf16):
    %r = arith.addf %p, %bi : bf16
    linalg.yield %r : bf16
  } -> tensor<2x?x160xbf16>
  %a = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g, %u : tensor<2x?x160xbf16>, tensor<2x?x160xbf16>) outs(%e_h : tensor<2x?x160xbf16>) {
  ^bb0(%gi: bf16, %ui: bf16, %o: bf16):
    %n = arith.negf %gi : bf16
    %e = math.exp %n : bf16
    %d = arith.addf %e, %one : bf16
    %si = arith.divf %gi, %d : bf16
    %m = arith.mulf %si, %ui : bf16
    linalg.yield %m : bf16
  } -> tensor<2x?x160xbf16>
  %e_bhd = tensor.empty() : tensor<2x160x64xbf16>
  %wd_b = linalg.generic {indexing_maps = [#drop_batch, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wd : tensor<160x64xbf16>) outs(%e_bhd : tensor<2x160x64xbf16>) {
  ^bb0(%in: bf16, %o: bf16):
    linalg.yield %in : bf16
  } -> tensor<2x160x64xbf16>
  %e_d32 = tensor.empty(%s) : tensor<2x?x64xf32>
  %z_d = linalg.fill ins(%zero : f32) outs(%e_d32 : tensor<2x?x64xf32>) -> tensor<2x?x64xf32>
  %e_d = tensor.empty(%s) : tensor<2x?x64xbf16>
  %y32 = linalg.batch_matmul ins(%a, %wd_b : tensor<2x?x160xbf16>, tensor<2x160x64xbf16>) outs(%z_d : tensor<2x?x64xf32>) -> tensor<2x?x64xf32>
  %y16 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y32 : tensor<2x?x64xf32>) outs(%e_d : tensor<2x?x64xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %c = arith.truncf %in : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<2x?x64xbf16>
  %y = linalg.generic {indexing_maps = [#id3, #bias, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y16, %bd : tensor<2x?x64xbf16>, tensor<64xbf16>) outs(%e_d : tensor<2x?x64xbf16>) {
  ^bb0(%p: bf16, %bi: bf16, %o: bf16):
    %r = arith.addf %p, %bi : bf16
    linalg.yield %r : bf16
  } -> tensor<2x?x64xbf16>
  return %y : tensor<2x?x64xbf16>
}

// -----

// The same narrowed after the bias add: the bias is widened inside the
// add's payload (extf), the sum narrowed by a truncf generic.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bf16_truncf_after_bias
// CHECK-NEXT: fmlp.gated_mlp silu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} gate_bias %{{.+}} up_bias %{{.+}} down_bias %{{.+}} {down_layout = #fmlp.layout<in_out>, gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>}
// CHECK-NEXT: return
func.func @bf16_truncf_after_bias(%x: tensor<?x64xbf16>, %wg: tensor<64x160xbf16>, %wu: tensor<64x160xbf16>,
    %wd: tensor<160x64xbf16>, %bg: tensor<160xbf16>, %bu: tensor<160xbf16>, %bd: tensor<64xbf16>,
    %t: index) -> tensor<?x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : bf16
  %e_h32 = tensor.empty(%t) : tensor<?x160xf32>
  %z_h = linalg.fill ins(%zero : f32) outs(%e_h32 : tensor<?x160xf32>) -> tensor<?x160xf32>
  %e_h = tensor.empty(%t) : tensor<?x160xbf16>
  %g32 = linalg.matmul ins(%x, %wg : tensor<?x64xbf16>, tensor<64x160xbf16>) outs(%z_h : tensor<?x160xf32>) -> tensor<?x160xf32>
  %gb = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g32, %bg : tensor<?x160xf32>, tensor<160xbf16>) outs(%e_h32 : tensor<?x160xf32>) {
  ^bb0(%p: f32, %bi: bf16, %o: f32):
    %w = arith.extf %bi : bf16 to f32
    %r = arith.addf %w, %p : f32
    linalg.yield %r : f32
  } -> tensor<?x160xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%gb : tensor<?x160xf32>) outs(%e_h : tensor<?x160xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %c = arith.truncf %in : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<?x160xbf16>
  %u32 = linalg.matmul ins(%x, %wu : tensor<?x64xbf16>, tensor<64x160xbf16>) outs(%z_h : tensor<?x160xf32>) -> tensor<?x160xf32>
  %ub = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%u32, %bu : tensor<?x160xf32>, tensor<160xbf16>) outs(%e_h32 : tensor<?x160xf32>) {
  ^bb0(%p: f32, %bi: bf16, %o: f32):
    %w = arith.extf %bi : bf16 to f32
    %r = arith.addf %p, %w : f32
    linalg.yield %r : f32
  } -> tensor<?x160xf32>
  %u = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ub : tensor<?x160xf32>) outs(%e_h : tensor<?x160xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %c = arith.truncf %in : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<?x160xbf16>
  %a = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<?x160xbf16>, tensor<?x160xbf16>) outs(%e_h : tensor<?x160xbf16>) {
  ^bb0(%gi: bf16, %ui: bf16, %o: bf16):
    %n = arith.negf %gi : bf16
    %e = math.exp %n : bf16
    %d = arith.addf %e, %one : bf16
    %si = arith.divf %gi, %d : bf16
    %m = arith.mulf %si, %ui : bf16
    linalg.yield %m : bf16
  } -> tensor<?x160xbf16>
  %e_d32 = tensor.empty(%t) : tensor<?x64xf32>
  %z_d = linalg.fill ins(%zero : f32) outs(%e_d32 : tensor<?x64xf32>) -> tensor<?x64xf32>
  %e_d = tensor.empty(%t) : tensor<?x64xbf16>
  %y32 = linalg.matmul ins(%a, %wd : tensor<?x160xbf16>, tensor<160x64xbf16>) outs(%z_d : tensor<?x64xf32>) -> tensor<?x64xf32>
  %yb = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y32, %bd : tensor<?x64xf32>, tensor<64xbf16>) outs(%e_d32 : tensor<?x64xf32>) {
  ^bb0(%p: f32, %bi: bf16, %o: f32):
    %w = arith.extf %bi : bf16 to f32
    %r = arith.addf %p, %w : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%yb : tensor<?x64xf32>) outs(%e_d : tensor<?x64xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %c = arith.truncf %in : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// -----

// GeGLU as torch-mlir writes gelu(approximate="tanh"): x^3 as math.fpowi
// with an i32 exponent captured from outside the payload.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @geglu_fpowi
// CHECK-NEXT: fmlp.gated_mlp gelu_tanh
// CHECK-NEXT: return
func.func @geglu_fpowi(%x: tensor<?x64xf32>, %wg: tensor<64x160xf32>, %wu: tensor<64x160xf32>,
    %wd: tensor<160x64xf32>, %t: index) -> tensor<?x64xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c = arith.constant 0.044715 : f32
  %k = arith.constant 0.797884583 : f32
  %three = arith.constant 3 : i32
  %e_h = tensor.empty(%t) : tensor<?x160xf32>
  %z_h = linalg.fill ins(%zero : f32) outs(%e_h : tensor<?x160xf32>) -> tensor<?x160xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<?x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<?x160xf32>) -> tensor<?x160xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<?x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<?x160xf32>) -> tensor<?x160xf32>
  %gelu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<?x160xf32>) outs(%e_h : tensor<?x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    %p = math.fpowi %in, %three : f32, i32
    %cp = arith.mulf %p, %c : f32
    %s = arith.addf %in, %cp : f32
    %ks = arith.mulf %s, %k : f32
    %th = math.tanh %ks : f32
    %t1 = arith.addf %th, %one : f32
    %h = arith.mulf %in, %half : f32
    %r = arith.mulf %h, %t1 : f32
    linalg.yield %r : f32
  } -> tensor<?x160xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%gelu, %u : tensor<?x160xf32>, tensor<?x160xf32>) outs(%e_h : tensor<?x160xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %m = arith.mulf %gi, %ui : f32
    linalg.yield %m : f32
  } -> tensor<?x160xf32>
  %e_d = tensor.empty(%t) : tensor<?x64xf32>
  %z_d = linalg.fill ins(%zero : f32) outs(%e_d : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<?x160xf32>, tensor<160x64xf32>) outs(%z_d : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// GeGLU in f32 as torch-mlir (IREE 3.13) writes gelu(approximate="tanh"):
// sqrt(2/pi) = 0.7978846 is written 0.797724 (2e-4 relative), which moves
// the function by 2.3e-5 of |u| (1 + |g|): within fmlp-recognize's 5e-5
// floor, so the block is gelu_tanh (and fmlp computes the exact one).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @geglu_torch_mlir_constant
// CHECK-NEXT: fmlp.gated_mlp gelu_tanh
// CHECK-NEXT: return
func.func @geglu_torch_mlir_constant(%x: tensor<8x64xf32>, %wg: tensor<64x160xf32>, %wu: tensor<64x160xf32>,
    %wd: tensor<160x64xf32>) -> tensor<8x64xf32> {
  %c3 = arith.constant 3 : i64
  %c = arith.constant 4.471500e-02 : f32
  %k = arith.constant 7.977240e-01 : f32
  %one = arith.constant 1.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %e_h = tensor.empty() : tensor<8x160xf32>
  %z_h = arith.constant dense<0.0> : tensor<8x160xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%in: f32, %ui: f32, %o: f32):
    %p = math.fpowi %in, %c3 : f32, i64
    %cp = arith.mulf %p, %c : f32
    %s = arith.addf %in, %cp : f32
    %ks = arith.mulf %s, %k : f32
    %th = math.tanh %ks : f32
    %t1 = arith.addf %th, %one : f32
    %h = arith.mulf %t1, %half : f32
    %r = arith.mulf %in, %h : f32
    %m = arith.mulf %r, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x160xf32>
  %z_d = arith.constant dense<0.0> : tensor<8x64xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_d : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// GeGLU with x^3 as math.powf of 3.0 and as math.ipowi-free x*x*x mixed:
// powf with an integral exponent is exact for a negative base.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @geglu_powf
// CHECK-NEXT: fmlp.gated_mlp gelu_tanh
// CHECK-NEXT: return
func.func @geglu_powf(%x: tensor<?x64xf32>, %wg: tensor<64x160xf32>, %wu: tensor<64x160xf32>,
    %wd: tensor<160x64xf32>, %t: index) -> tensor<?x64xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c = arith.constant 0.044715 : f32
  %k = arith.constant 0.797884583 : f32
  %three = arith.constant 3.0 : f32
  %e_h = tensor.empty(%t) : tensor<?x160xf32>
  %z_h = linalg.fill ins(%zero : f32) outs(%e_h : tensor<?x160xf32>) -> tensor<?x160xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<?x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<?x160xf32>) -> tensor<?x160xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<?x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<?x160xf32>) -> tensor<?x160xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<?x160xf32>, tensor<?x160xf32>) outs(%e_h : tensor<?x160xf32>) {
  ^bb0(%in: f32, %ui: f32, %o: f32):
    %p = math.powf %in, %three : f32
    %cp = arith.mulf %p, %c : f32
    %s = arith.addf %in, %cp : f32
    %ks = arith.mulf %s, %k : f32
    %th = math.tanh %ks : f32
    %t1 = arith.addf %th, %one : f32
    %h = arith.mulf %in, %half : f32
    %r = arith.mulf %h, %t1 : f32
    %m = arith.mulf %r, %ui : f32
    linalg.yield %m : f32
  } -> tensor<?x160xf32>
  %e_d = tensor.empty(%t) : tensor<?x64xf32>
  %z_d = linalg.fill ins(%zero : f32) outs(%e_d : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<?x160xf32>, tensor<160x64xf32>) outs(%z_d : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// StableHLO (JAX) lowered to linalg: each bias is broadcast by its own
// generic, then added elementwise with identity maps.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @stablehlo_bias_broadcast_generic
// CHECK-SAME: %[[BG:[^:]+]]: tensor<160xf32>, %[[BU:[^:]+]]: tensor<160xf32>, %[[BD:[^:]+]]: tensor<64xf32>
// CHECK-NEXT: fmlp.gated_mlp silu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} gate_bias %[[BG]] up_bias %[[BU]] down_bias %[[BD]]
// CHECK-NEXT: return
func.func @stablehlo_bias_broadcast_generic(%x: tensor<8x64xf32>, %wg: tensor<64x160xf32>, %wu: tensor<64x160xf32>,
    %wd: tensor<160x64xf32>, %bg: tensor<160xf32>, %bu: tensor<160xf32>, %bd: tensor<64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e_h = tensor.empty() : tensor<8x160xf32>
  %z_h = linalg.fill ins(%zero : f32) outs(%e_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %g0 = linalg.matmul ins(%x, %wg : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %bgb = linalg.generic {indexing_maps = [#bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%bg : tensor<160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<8x160xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g0, %bgb : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%p: f32, %bi: f32, %o: f32):
    %r = arith.addf %p, %bi : f32
    linalg.yield %r : f32
  } -> tensor<8x160xf32>
  %u0 = linalg.matmul ins(%x, %wu : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %bub = linalg.generic {indexing_maps = [#bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%bu : tensor<160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<8x160xf32>
  %u = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%u0, %bub : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%p: f32, %bi: f32, %o: f32):
    %r = arith.addf %p, %bi : f32
    linalg.yield %r : f32
  } -> tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %si = arith.divf %gi, %d : f32
    %m = arith.mulf %si, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x160xf32>
  %e_d = tensor.empty() : tensor<8x64xf32>
  %z_d = linalg.fill ins(%zero : f32) outs(%e_d : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y0 = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_d : tensor<8x64xf32>) -> tensor<8x64xf32>
  %bdb = linalg.generic {indexing_maps = [#bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%bd : tensor<64xf32>) outs(%e_d : tensor<8x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<8x64xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y0, %bdb : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e_d : tensor<8x64xf32>) {
  ^bb0(%p: f32, %bi: f32, %o: f32):
    %r = arith.addf %p, %bi : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// tosa.matmul lowered to linalg: a batch-1 linalg.batch_matmul between
// tensor.expand_shape views of x and of the 2-D weight, collapsed back.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @tosa_lowered_batch_one
// CHECK-SAME: (%[[X:.+]]: tensor<8x64xf32>, %[[WG:.+]]: tensor<160x64xf32>, %[[WU:.+]]: tensor<160x64xf32>, %[[WD:.+]]: tensor<64x160xf32>)
// CHECK-NEXT: %[[Y:.+]] = fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]] : (tensor<8x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<8x64xf32>
// CHECK-NEXT: return %[[Y]]
func.func @tosa_lowered_batch_one(%x: tensor<8x64xf32>, %wg: tensor<160x64xf32>, %wu: tensor<160x64xf32>,
    %wd: tensor<64x160xf32>) -> tensor<8x64xf32> {
  %one = arith.constant 1.0 : f32
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [1, 8, 64] : tensor<8x64xf32> into tensor<1x8x64xf32>
  %e_dh = tensor.empty() : tensor<64x160xf32>
  %wg_t = linalg.transpose ins(%wg : tensor<160x64xf32>) outs(%e_dh : tensor<64x160xf32>) permutation = [1, 0]
  %wg3 = tensor.expand_shape %wg_t [[0, 1], [2]] output_shape [1, 64, 160] : tensor<64x160xf32> into tensor<1x64x160xf32>
  %wu_t = linalg.transpose ins(%wu : tensor<160x64xf32>) outs(%e_dh : tensor<64x160xf32>) permutation = [1, 0]
  %wu3 = tensor.expand_shape %wu_t [[0, 1], [2]] output_shape [1, 64, 160] : tensor<64x160xf32> into tensor<1x64x160xf32>
  %z_h = arith.constant dense<0.0> : tensor<1x8x160xf32>
  %g3 = linalg.batch_matmul ins(%x3, %wg3 : tensor<1x8x64xf32>, tensor<1x64x160xf32>) outs(%z_h : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
  %g = tensor.collapse_shape %g3 [[0, 1], [2]] : tensor<1x8x160xf32> into tensor<8x160xf32>
  %u3 = linalg.batch_matmul ins(%x3, %wu3 : tensor<1x8x64xf32>, tensor<1x64x160xf32>) outs(%z_h : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
  %u = tensor.collapse_shape %u3 [[0, 1], [2]] : tensor<1x8x160xf32> into tensor<8x160xf32>
  %e_h = tensor.empty() : tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %si = arith.divf %gi, %d : f32
    %m = arith.mulf %si, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x160xf32>
  %a3 = tensor.expand_shape %a [[0, 1], [2]] output_shape [1, 8, 160] : tensor<8x160xf32> into tensor<1x8x160xf32>
  %e_hd = tensor.empty() : tensor<160x64xf32>
  %wd_t = linalg.transpose ins(%wd : tensor<64x160xf32>) outs(%e_hd : tensor<160x64xf32>) permutation = [1, 0]
  %wd3 = tensor.expand_shape %wd_t [[0, 1], [2]] output_shape [1, 160, 64] : tensor<160x64xf32> into tensor<1x160x64xf32>
  %z_d = arith.constant dense<0.0> : tensor<1x8x64xf32>
  %y3 = linalg.batch_matmul ins(%a3, %wd3 : tensor<1x8x160xf32>, tensor<1x160x64xf32>) outs(%z_d : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %y = tensor.collapse_shape %y3 [[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Near miss: the "broadcast" of the gate weight negates it; a generic is a
// broadcast only when its payload copies.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#drop_batch = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @near_miss_broadcast_payload_negates
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @near_miss_broadcast_payload_negates(%x: tensor<2x8x64xf32>, %wg: tensor<64x160xf32>,
    %wu: tensor<64x160xf32>, %wd: tensor<160x64xf32>) -> tensor<2x8x64xf32> {
  %e_bdh = tensor.empty() : tensor<2x64x160xf32>
  %wg_b = linalg.generic {indexing_maps = [#drop_batch, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wg : tensor<64x160xf32>) outs(%e_bdh : tensor<2x64x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<2x64x160xf32>
  %wu_b = linalg.broadcast ins(%wu : tensor<64x160xf32>) outs(%e_bdh : tensor<2x64x160xf32>) dimensions = [0]
  %z_h = arith.constant dense<0.0> : tensor<2x8x160xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: not a projection: the batched contraction's weight is not one 2-D weight broadcast along the batch dimensions}}
  %g = linalg.batch_matmul ins(%x, %wg_b : tensor<2x8x64xf32>, tensor<2x64x160xf32>) outs(%z_h : tensor<2x8x160xf32>) -> tensor<2x8x160xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %u = linalg.batch_matmul ins(%x, %wu_b : tensor<2x8x64xf32>, tensor<2x64x160xf32>) outs(%z_h : tensor<2x8x160xf32>) -> tensor<2x8x160xf32>
  %r = arith.maximumf %g, %z_h : tensor<2x8x160xf32>
  %a = arith.mulf %r, %u : tensor<2x8x160xf32>
  %e_bhd = tensor.empty() : tensor<2x160x64xf32>
  %wd_b = linalg.broadcast ins(%wd : tensor<160x64xf32>) outs(%e_bhd : tensor<2x160x64xf32>) dimensions = [0]
  %z_d = arith.constant dense<0.0> : tensor<2x8x64xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: operand 0 of the activation product is not a projection: the batched contraction's weight is not one 2-D weight broadcast along the batch dimensions}}
  %y = linalg.batch_matmul ins(%a, %wd_b : tensor<2x8x160xf32>, tensor<2x160x64xf32>) outs(%z_d : tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %y : tensor<2x8x64xf32>
}

// -----

// Near miss: a "bias add" whose payload subtracts is no bias add.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @near_miss_bias_subtracted
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @near_miss_bias_subtracted(%x: tensor<8x64xf32>, %wg: tensor<64x160xf32>, %wu: tensor<64x160xf32>,
    %wd: tensor<160x64xf32>, %bg: tensor<160xf32>) -> tensor<8x64xf32> {
  %e_h = tensor.empty() : tensor<8x160xf32>
  %z_h = arith.constant dense<0.0> : tensor<8x160xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %g0 = linalg.matmul ins(%x, %wg : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %g = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g0, %bg : tensor<8x160xf32>, tensor<160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%p: f32, %bi: f32, %o: f32):
    %r = arith.subf %p, %bi : f32
    linalg.yield %r : f32
  } -> tensor<8x160xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %u = linalg.matmul ins(%x, %wu : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %r = arith.maximumf %g, %z_h : tensor<8x160xf32>
  %a = arith.mulf %r, %u : tensor<8x160xf32>
  %z_d = arith.constant dense<0.0> : tensor<8x64xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: operand 0 of the activation product is not a projection: linalg.generic is not a contraction of two operands}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_d : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Near miss: a "cast" between the contraction and the bias that also reads
// its output operand is no cast.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @near_miss_cast_reads_output
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @near_miss_cast_reads_output(%x: tensor<8x64xbf16>, %wg: tensor<64x160xbf16>, %wu: tensor<64x160xbf16>,
    %wd: tensor<160x64xbf16>, %bg: tensor<160xbf16>, %acc: tensor<8x160xbf16>) -> tensor<8x64xbf16> {
  %e_h = tensor.empty() : tensor<8x160xbf16>
  %z_h = arith.constant dense<0.0> : tensor<8x160xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %g32 = linalg.matmul ins(%x, %wg : tensor<8x64xbf16>, tensor<64x160xbf16>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %g16 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g32 : tensor<8x160xf32>) outs(%acc : tensor<8x160xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %c = arith.truncf %in : f32 to bf16
    %s = arith.addf %c, %o : bf16
    linalg.yield %s : bf16
  } -> tensor<8x160xbf16>
  %g = linalg.generic {indexing_maps = [#id2, #bias, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g16, %bg : tensor<8x160xbf16>, tensor<160xbf16>) outs(%e_h : tensor<8x160xbf16>) {
  ^bb0(%p: bf16, %bi: bf16, %o: bf16):
    %r = arith.addf %p, %bi : bf16
    linalg.yield %r : bf16
  } -> tensor<8x160xbf16>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %u32 = linalg.matmul ins(%x, %wu : tensor<8x64xbf16>, tensor<64x160xbf16>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %u = arith.truncf %u32 : tensor<8x160xf32> to tensor<8x160xbf16>
  %zero16 = arith.constant dense<0.0> : tensor<8x160xbf16>
  %r = arith.maximumf %g, %zero16 : tensor<8x160xbf16>
  %a = arith.mulf %r, %u : tensor<8x160xbf16>
  %z_d = arith.constant dense<0.0> : tensor<8x64xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: operand 0 of the activation product is not a projection: linalg.generic is not a contraction of two operands}}
  %y32 = linalg.matmul ins(%a, %wd : tensor<8x160xbf16>, tensor<160x64xbf16>) outs(%z_d : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = arith.truncf %y32 : tensor<8x64xf32> to tensor<8x64xbf16>
  return %y : tensor<8x64xbf16>
}

// -----

// Near miss: GeGLU's cube written as fpowi with exponent 2 is another
// function.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @near_miss_fpowi_square
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @near_miss_fpowi_square(%x: tensor<8x64xf32>, %wg: tensor<64x160xf32>, %wu: tensor<64x160xf32>,
    %wd: tensor<160x64xf32>) -> tensor<8x64xf32> {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c = arith.constant 0.044715 : f32
  %k = arith.constant 0.797884583 : f32
  %two = arith.constant 2 : i32
  %e_h = tensor.empty() : tensor<8x160xf32>
  %z_h = arith.constant dense<0.0> : tensor<8x160xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %g = linalg.matmul ins(%x, %wg : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %u = linalg.matmul ins(%x, %wu : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%in: f32, %ui: f32, %o: f32):
    %p = math.fpowi %in, %two : f32, i32
    %cp = arith.mulf %p, %c : f32
    %s = arith.addf %in, %cp : f32
    %ks = arith.mulf %s, %k : f32
    %th = math.tanh %ks : f32
    %t1 = arith.addf %th, %one : f32
    %h = arith.mulf %in, %half : f32
    %r = arith.mulf %h, %t1 : f32
    %m = arith.mulf %r, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x160xf32>
  %z_d = arith.constant dense<0.0> : tensor<8x64xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the activation product is none of silu(g)*u, gelu_tanh(g)*u, relu(g)*u (with a gate multiplier), for either operand as g}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_d : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Near miss: powf with a non-integral exponent (x^3.5 is NaN for x < 0).
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @near_miss_powf_fractional
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @near_miss_powf_fractional(%x: tensor<8x64xf32>, %wg: tensor<64x160xf32>, %wu: tensor<64x160xf32>,
    %wd: tensor<160x64xf32>) -> tensor<8x64xf32> {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c = arith.constant 0.044715 : f32
  %k = arith.constant 0.797884583 : f32
  %e35 = arith.constant 3.5 : f32
  %e_h = tensor.empty() : tensor<8x160xf32>
  %z_h = arith.constant dense<0.0> : tensor<8x160xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %g = linalg.matmul ins(%x, %wg : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %u = linalg.matmul ins(%x, %wu : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%in: f32, %ui: f32, %o: f32):
    %p = math.powf %in, %e35 : f32
    %cp = arith.mulf %p, %c : f32
    %s = arith.addf %in, %cp : f32
    %ks = arith.mulf %s, %k : f32
    %th = math.tanh %ks : f32
    %t1 = arith.addf %th, %one : f32
    %h = arith.mulf %in, %half : f32
    %r = arith.mulf %h, %t1 : f32
    %m = arith.mulf %r, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x160xf32>
  %z_d = arith.constant dense<0.0> : tensor<8x64xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the activation product is none of silu(g)*u, gelu_tanh(g)*u, relu(g)*u (with a gate multiplier), for either operand as g}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_d : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Near miss: sqrt(2/pi) written 0.797 (1.1e-3 relative) moves the function
// by 1.3e-4, as far as the exact (erf) GELU is from gelu_tanh: not fused.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @near_miss_gelu_constant_off
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @near_miss_gelu_constant_off(%x: tensor<8x64xf32>, %wg: tensor<64x160xf32>, %wu: tensor<64x160xf32>,
    %wd: tensor<160x64xf32>) -> tensor<8x64xf32> {
  %c3 = arith.constant 3 : i64
  %c = arith.constant 4.471500e-02 : f32
  %k = arith.constant 7.970000e-01 : f32
  %one = arith.constant 1.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %e_h = tensor.empty() : tensor<8x160xf32>
  %z_h = arith.constant dense<0.0> : tensor<8x160xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %g = linalg.matmul ins(%x, %wg : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %u = linalg.matmul ins(%x, %wu : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%in: f32, %ui: f32, %o: f32):
    %p = math.fpowi %in, %c3 : f32, i64
    %cp = arith.mulf %p, %c : f32
    %s = arith.addf %in, %cp : f32
    %ks = arith.mulf %s, %k : f32
    %th = math.tanh %ks : f32
    %t1 = arith.addf %th, %one : f32
    %h = arith.mulf %t1, %half : f32
    %r = arith.mulf %in, %h : f32
    %m = arith.mulf %r, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x160xf32>
  %z_d = arith.constant dense<0.0> : tensor<8x64xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the activation product is none of silu(g)*u, gelu_tanh(g)*u, relu(g)*u (with a gate multiplier), for either operand as g}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_d : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Near miss: a bias broadcast along the tokens (one value per row) is no
// bias of the projection's outputs.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @near_miss_bias_broadcast_along_columns
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @near_miss_bias_broadcast_along_columns(%x: tensor<8x64xf32>, %wg: tensor<64x160xf32>, %wu: tensor<64x160xf32>,
    %wd: tensor<160x64xf32>, %bg: tensor<8xf32>) -> tensor<8x64xf32> {
  %e_h = tensor.empty() : tensor<8x160xf32>
  %z_h = arith.constant dense<0.0> : tensor<8x160xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %g0 = linalg.matmul ins(%x, %wg : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %bgb = linalg.generic {indexing_maps = [#rows, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%bg : tensor<8xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<8x160xf32>
  %g = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g0, %bgb : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%p: f32, %bi: f32, %o: f32):
    %r = arith.addf %p, %bi : f32
    linalg.yield %r : f32
  } -> tensor<8x160xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %u = linalg.matmul ins(%x, %wu : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %r = arith.maximumf %g, %z_h : tensor<8x160xf32>
  %a = arith.mulf %r, %u : tensor<8x160xf32>
  %z_d = arith.constant dense<0.0> : tensor<8x64xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: operand 0 of the activation product is not a projection: linalg.generic is not a contraction of two operands}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_d : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Near miss: the weight of a batch-1 contraction expanded from a 2-D tensor
// along a non-unit batch dimension does not exist; here x is already 3-D
// (no expand_shape to look through) while the result is collapsed to 2-D,
// so the block's input and output would differ in rank.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @near_miss_collapsed_without_expanded_input
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @near_miss_collapsed_without_expanded_input(%x3: tensor<1x8x64xf32>, %wg: tensor<64x160xf32>,
    %wu: tensor<64x160xf32>, %wd: tensor<160x64xf32>) -> tensor<8x64xf32> {
  %wg3 = tensor.expand_shape %wg [[0, 1], [2]] output_shape [1, 64, 160] : tensor<64x160xf32> into tensor<1x64x160xf32>
  %wu3 = tensor.expand_shape %wu [[0, 1], [2]] output_shape [1, 64, 160] : tensor<64x160xf32> into tensor<1x64x160xf32>
  %z_h = arith.constant dense<0.0> : tensor<1x8x160xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %g3 = linalg.batch_matmul ins(%x3, %wg3 : tensor<1x8x64xf32>, tensor<1x64x160xf32>) outs(%z_h : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
  %g = tensor.collapse_shape %g3 [[0, 1], [2]] : tensor<1x8x160xf32> into tensor<8x160xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %u3 = linalg.batch_matmul ins(%x3, %wu3 : tensor<1x8x64xf32>, tensor<1x64x160xf32>) outs(%z_h : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
  %u = tensor.collapse_shape %u3 [[0, 1], [2]] : tensor<1x8x160xf32> into tensor<8x160xf32>
  %zero = arith.constant dense<0.0> : tensor<8x160xf32>
  %r = arith.maximumf %g, %zero : tensor<8x160xf32>
  %a = arith.mulf %r, %u : tensor<8x160xf32>
  %a3 = tensor.expand_shape %a [[0, 1], [2]] output_shape [1, 8, 160] : tensor<8x160xf32> into tensor<1x8x160xf32>
  %wd3 = tensor.expand_shape %wd [[0, 1], [2]] output_shape [1, 160, 64] : tensor<160x64xf32> into tensor<1x160x64xf32>
  %z_d = arith.constant dense<0.0> : tensor<1x8x64xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: operand 0 of the activation product is not a projection: the projection's result is collapsed from unit dimensions its input is not expanded with}}
  %y3 = linalg.batch_matmul ins(%a3, %wd3 : tensor<1x8x160xf32>, tensor<1x160x64xf32>) outs(%z_d : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %y = tensor.collapse_shape %y3 [[0, 1], [2]] : tensor<1x8x64xf32> into tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// JAX with dynamic tokens: silu's 1.0 is a rank-0 constant broadcast to the
// activation's shape by a generic; a broadcast of a constant is that
// constant.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @jax_broadcast_constant
// CHECK-NEXT: fmlp.gated_mlp silu
// CHECK-NEXT: return
func.func @jax_broadcast_constant(%x: tensor<?x64xf32>, %wg: tensor<64x160xf32>, %wu: tensor<64x160xf32>,
    %wd: tensor<160x64xf32>, %t: index) -> tensor<?x64xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant dense<1.0> : tensor<f32>
  %e_h = tensor.empty(%t) : tensor<?x160xf32>
  %z_h = linalg.fill ins(%zero : f32) outs(%e_h : tensor<?x160xf32>) -> tensor<?x160xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<?x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<?x160xf32>) -> tensor<?x160xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<?x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<?x160xf32>) -> tensor<?x160xf32>
  %ones = linalg.generic {indexing_maps = [#scalar, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%one : tensor<f32>) outs(%e_h : tensor<?x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<?x160xf32>
  %n = arith.negf %g : tensor<?x160xf32>
  %e = math.exp %n : tensor<?x160xf32>
  %d = arith.addf %ones, %e : tensor<?x160xf32>
  %s = arith.divf %ones, %d : tensor<?x160xf32>
  %silu = arith.mulf %g, %s : tensor<?x160xf32>
  %a = arith.mulf %silu, %u : tensor<?x160xf32>
  %e_d = tensor.empty(%t) : tensor<?x64xf32>
  %z_d = linalg.fill ins(%zero : f32) outs(%e_d : tensor<?x64xf32>) -> tensor<?x64xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<?x160xf32>, tensor<160x64xf32>) outs(%z_d : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// Near miss: the same with a rank-0 function argument broadcast in place of
// the constant 1.0: a third tensor, not a constant of the function.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @near_miss_broadcast_argument
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @near_miss_broadcast_argument(%x: tensor<8x64xf32>, %wg: tensor<64x160xf32>, %wu: tensor<64x160xf32>,
    %wd: tensor<160x64xf32>, %one: tensor<f32>) -> tensor<8x64xf32> {
  %e_h = tensor.empty() : tensor<8x160xf32>
  %z_h = arith.constant dense<0.0> : tensor<8x160xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %g = linalg.matmul ins(%x, %wg : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %u = linalg.matmul ins(%x, %wu : tensor<8x64xf32>, tensor<64x160xf32>) outs(%z_h : tensor<8x160xf32>) -> tensor<8x160xf32>
  %ones = linalg.generic {indexing_maps = [#scalar, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%one : tensor<f32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<8x160xf32>
  %n = arith.negf %g : tensor<8x160xf32>
  %e = math.exp %n : tensor<8x160xf32>
  %d = arith.addf %ones, %e : tensor<8x160xf32>
  %s = arith.divf %ones, %d : tensor<8x160xf32>
  %silu = arith.mulf %g, %s : tensor<8x160xf32>
  %a = arith.mulf %silu, %u : tensor<8x160xf32>
  %z_d = arith.constant dense<0.0> : tensor<8x64xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the projected tensor is an elementwise function of 3 tensors, not of a gate and an up projection}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_d : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
