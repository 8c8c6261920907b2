// RUN: fmlp-opt %s --split-input-file --fmlp-recognize=explain-misses --verify-diagnostics | FileCheck %s

// Phi3's fused gate_up_proj: one contraction x W_gu^T of 2H outputs, whose
// columns [0, H) and [H, 2H) (tensor.extract_slice) are the gate and up
// projections. fmlp.gated_mlp takes the halves of W_gu as views
// (tensor.extract_slice of the stored weight, inserted before it): no copy.
// Positive cases first, then near misses, each with the remark that says why
// it is left alone.

#id = affine_map<(d0, d1) -> (d0, d1)>

// nn.Linear weight [2H, D] = [320, 64]: the gate and up weights are its row halves.
// CHECK-LABEL: func.func @fused_gate_up_out_in
// CHECK-SAME: (%[[X:.+]]: tensor<8x64xf32>, %[[WGU:.+]]: tensor<320x64xf32>, %[[WD:.+]]: tensor<160x64xf32>)
// CHECK-NEXT: %[[WG:.+]] = tensor.extract_slice %[[WGU]][0, 0] [160, 64] [1, 1] : tensor<320x64xf32> to tensor<160x64xf32>
// CHECK-NEXT: %[[WU:.+]] = tensor.extract_slice %[[WGU]][160, 0] [160, 64] [1, 1] : tensor<320x64xf32> to tensor<160x64xf32>
// CHECK-NEXT: %[[Y:.+]] = fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]] {down_layout = #fmlp.layout<in_out>} : (tensor<8x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>) -> tensor<8x64xf32>
// CHECK-NEXT: return %[[Y]]
func.func @fused_gate_up_out_in(%x: tensor<8x64xf32>, %wgu: tensor<320x64xf32>, %wd: tensor<160x64xf32>) -> (tensor<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e_t = tensor.empty() : tensor<64x320xf32>
  %wgu_t = linalg.transpose ins(%wgu : tensor<320x64xf32>) outs(%e_t : tensor<64x320xf32>) permutation = [1, 0]
  %e_gu = tensor.empty() : tensor<8x320xf32>
  %z_gu = linalg.fill ins(%zero : f32) outs(%e_gu : tensor<8x320xf32>) -> tensor<8x320xf32>
  %gu = linalg.matmul ins(%x, %wgu_t : tensor<8x64xf32>, tensor<64x320xf32>) outs(%z_gu : tensor<8x320xf32>) -> tensor<8x320xf32>
  %g = tensor.extract_slice %gu[0, 0] [8, 160] [1, 1] : tensor<8x320xf32> to tensor<8x160xf32>
  %u = tensor.extract_slice %gu[0, 160] [8, 160] [1, 1] : tensor<8x320xf32> to tensor<8x160xf32>
  %e_h = tensor.empty() : tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %p = arith.mulf %s, %ui : f32
    linalg.yield %p : f32
  } -> tensor<8x160xf32>
  %e_y = tensor.empty() : tensor<8x64xf32>
  %z_y = linalg.fill ins(%zero : f32) outs(%e_y : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_y : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// The same on [B, S, D] as torch-mlir and IREE write it: linalg.batch_matmul
// of the [D, 2H] weight broadcast along the batch by a generic, a bias of
// 2H features added before the split, dynamic B and S; the gate is the
// second half here (which half is the gate is read from the activation
// product), so the gate weight and bias are the columns [H, 2H).
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#drop_batch = affine_map<(d0, d1, d2) -> (d1, d2)>
#last = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @fused_gate_up_in_out_bias_3d
// CHECK-SAME: (%[[X:.+]]: tensor<?x?x64xf32>, %[[WGU:.+]]: tensor<64x320xf32>, %[[BGU:.+]]: tensor<320xf32>, %[[WD:.+]]: tensor<160x64xf32>
// CHECK-DAG: %[[WG:.+]] = tensor.extract_slice %[[WGU]][0, 160] [64, 160] [1, 1] : tensor<64x320xf32> to tensor<64x160xf32>
// CHECK-DAG: %[[WU:.+]] = tensor.extract_slice %[[WGU]][0, 0] [64, 160] [1, 1] : tensor<64x320xf32> to tensor<64x160xf32>
// CHECK-DAG: %[[BG:.+]] = tensor.extract_slice %[[BGU]][160] [160] [1] : tensor<320xf32> to tensor<160xf32>
// CHECK-DAG: %[[BU:.+]] = tensor.extract_slice %[[BGU]][0] [160] [1] : tensor<320xf32> to tensor<160xf32>
// CHECK: %[[Y:.+]] = fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]] gate_bias %[[BG]] up_bias %[[BU]]
// CHECK-NOT: linalg.
// CHECK: return %[[Y]]
func.func @fused_gate_up_in_out_bias_3d(%x: tensor<?x?x64xf32>, %wgu: tensor<64x320xf32>, %bgu: tensor<320xf32>,
    %wd: tensor<160x64xf32>, %b: index, %s: index) -> tensor<?x?x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e_b = tensor.empty(%b) : tensor<?x64x320xf32>
  %wgu_b = linalg.generic {indexing_maps = [#drop_batch, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wgu : tensor<64x320xf32>) outs(%e_b : tensor<?x64x320xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<?x64x320xf32>
  %e_gu = tensor.empty(%b, %s) : tensor<?x?x320xf32>
  %z_gu = linalg.fill ins(%zero : f32) outs(%e_gu : tensor<?x?x320xf32>) -> tensor<?x?x320xf32>
  %gu0 = linalg.batch_matmul ins(%x, %wgu_b : tensor<?x?x64xf32>, tensor<?x64x320xf32>) outs(%z_gu : tensor<?x?x320xf32>) -> tensor<?x?x320xf32>
  %gu = linalg.generic {indexing_maps = [#id3, #last, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%gu0, %bgu : tensor<?x?x320xf32>, tensor<320xf32>) outs(%e_gu : tensor<?x?x320xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<?x?x320xf32>
  %d0 = tensor.dim %gu, %c0 : tensor<?x?x320xf32>
  %d1 = tensor.dim %gu, %c1 : tensor<?x?x320xf32>
  %u = tensor.extract_slice %gu[0, 0, 0] [%d0, %d1, 160] [1, 1, 1] : tensor<?x?x320xf32> to tensor<?x?x160xf32>
  %g = tensor.extract_slice %gu[0, 0, 160] [%d0, %d1, 160] [1, 1, 1] : tensor<?x?x320xf32> to tensor<?x?x160xf32>
  %e_h = tensor.empty(%b, %s) : tensor<?x?x160xf32>
  %a = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%u, %g : tensor<?x?x160xf32>, tensor<?x?x160xf32>) outs(%e_h : tensor<?x?x160xf32>) {
  ^bb0(%ui: f32, %gi: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %sg = arith.divf %gi, %d : f32
    %pr = arith.mulf %ui, %sg : f32
    linalg.yield %pr : f32
  } -> tensor<?x?x160xf32>
  %e_db = tensor.empty(%b) : tensor<?x160x64xf32>
  %wd_b = linalg.generic {indexing_maps = [#drop_batch, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wd : tensor<160x64xf32>) outs(%e_db : tensor<?x160x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<?x160x64xf32>
  %e_y = tensor.empty(%b, %s) : tensor<?x?x64xf32>
  %z_y = linalg.fill ins(%zero : f32) outs(%e_y : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %y = linalg.batch_matmul ins(%a, %wd_b : tensor<?x?x160xf32>, tensor<?x160x64xf32>) outs(%z_y : tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  return %y : tensor<?x?x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// Near miss: the slices overlap (columns [0, 160) and [80, 240)).
// CHECK-LABEL: func.func @overlapping_halves
// CHECK-NOT: fmlp.gated_mlp
func.func @overlapping_halves(%x: tensor<8x64xf32>, %wgu: tensor<320x64xf32>, %wd: tensor<160x64xf32>) -> (tensor<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e_t = tensor.empty() : tensor<64x320xf32>
  %wgu_t = linalg.transpose ins(%wgu : tensor<320x64xf32>) outs(%e_t : tensor<64x320xf32>) permutation = [1, 0]
  %e_gu = tensor.empty() : tensor<8x320xf32>
  %z_gu = linalg.fill ins(%zero : f32) outs(%e_gu : tensor<8x320xf32>) -> tensor<8x320xf32>
// expected-remark @below {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %gu = linalg.matmul ins(%x, %wgu_t : tensor<8x64xf32>, tensor<64x320xf32>) outs(%z_gu : tensor<8x320xf32>) -> tensor<8x320xf32>
  %g = tensor.extract_slice %gu[0, 0] [8, 160] [1, 1] : tensor<8x320xf32> to tensor<8x160xf32>
  %u = tensor.extract_slice %gu[0, 80] [8, 160] [1, 1] : tensor<8x320xf32> to tensor<8x160xf32>
  %e_h = tensor.empty() : tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %p = arith.mulf %s, %ui : f32
    linalg.yield %p : f32
  } -> tensor<8x160xf32>
  %e_y = tensor.empty() : tensor<8x64xf32>
  %z_y = linalg.fill ins(%zero : f32) outs(%e_y : tensor<8x64xf32>) -> tensor<8x64xf32>
// expected-remark @below {{not fused into fmlp.gated_mlp: the operands of the activation product are slices, but not the two halves of one projection: the slices take columns [0, 160) and [80, 240) of width 320, not the halves [0, W/2) and [W/2, W) of a static even width W}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_y : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// Near miss: two equal adjacent slices that are not the halves: [0, 160) and [160, 320) of 400 columns.
// CHECK-LABEL: func.func @slices_not_at_half
// CHECK-NOT: fmlp.gated_mlp
func.func @slices_not_at_half(%x: tensor<8x64xf32>, %wgu: tensor<400x64xf32>, %wd: tensor<160x64xf32>) -> (tensor<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e_t = tensor.empty() : tensor<64x400xf32>
  %wgu_t = linalg.transpose ins(%wgu : tensor<400x64xf32>) outs(%e_t : tensor<64x400xf32>) permutation = [1, 0]
  %e_gu = tensor.empty() : tensor<8x400xf32>
  %z_gu = linalg.fill ins(%zero : f32) outs(%e_gu : tensor<8x400xf32>) -> tensor<8x400xf32>
// expected-remark @below {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %gu = linalg.matmul ins(%x, %wgu_t : tensor<8x64xf32>, tensor<64x400xf32>) outs(%z_gu : tensor<8x400xf32>) -> tensor<8x400xf32>
  %g = tensor.extract_slice %gu[0, 0] [8, 160] [1, 1] : tensor<8x400xf32> to tensor<8x160xf32>
  %u = tensor.extract_slice %gu[0, 160] [8, 160] [1, 1] : tensor<8x400xf32> to tensor<8x160xf32>
  %e_h = tensor.empty() : tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %p = arith.mulf %s, %ui : f32
    linalg.yield %p : f32
  } -> tensor<8x160xf32>
  %e_y = tensor.empty() : tensor<8x64xf32>
  %z_y = linalg.fill ins(%zero : f32) outs(%e_y : tensor<8x64xf32>) -> tensor<8x64xf32>
// expected-remark @below {{not fused into fmlp.gated_mlp: the operands of the activation product are slices, but not the two halves of one projection: the slices take columns [0, 160) and [160, 320) of width 400, not the halves [0, W/2) and [W/2, W) of a static even width W}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_y : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// Near miss: the slices leave a gap: [0, 160) and [170, 330) of 330 columns (not halves of equal size covering W).
// CHECK-LABEL: func.func @unequal_cover
// CHECK-NOT: fmlp.gated_mlp
func.func @unequal_cover(%x: tensor<8x64xf32>, %wgu: tensor<330x64xf32>, %wd: tensor<160x64xf32>) -> (tensor<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e_t = tensor.empty() : tensor<64x330xf32>
  %wgu_t = linalg.transpose ins(%wgu : tensor<330x64xf32>) outs(%e_t : tensor<64x330xf32>) permutation = [1, 0]
  %e_gu = tensor.empty() : tensor<8x330xf32>
  %z_gu = linalg.fill ins(%zero : f32) outs(%e_gu : tensor<8x330xf32>) -> tensor<8x330xf32>
// expected-remark @below {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %gu = linalg.matmul ins(%x, %wgu_t : tensor<8x64xf32>, tensor<64x330xf32>) outs(%z_gu : tensor<8x330xf32>) -> tensor<8x330xf32>
  %g = tensor.extract_slice %gu[0, 0] [8, 160] [1, 1] : tensor<8x330xf32> to tensor<8x160xf32>
  %u = tensor.extract_slice %gu[0, 170] [8, 160] [1, 1] : tensor<8x330xf32> to tensor<8x160xf32>
  %e_h = tensor.empty() : tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %p = arith.mulf %s, %ui : f32
    linalg.yield %p : f32
  } -> tensor<8x160xf32>
  %e_y = tensor.empty() : tensor<8x64xf32>
  %z_y = linalg.fill ins(%zero : f32) outs(%e_y : tensor<8x64xf32>) -> tensor<8x64xf32>
// expected-remark @below {{not fused into fmlp.gated_mlp: the operands of the activation product are slices, but not the two halves of one projection: the slices take columns [0, 160) and [170, 330) of width 330, not the halves [0, W/2) and [W/2, W) of a static even width W}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_y : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// Near miss: the gate half and the up half are slices of two different contractions.
// CHECK-LABEL: func.func @halves_of_different_contractions
// CHECK-NOT: fmlp.gated_mlp
func.func @halves_of_different_contractions(%x: tensor<8x64xf32>, %wgu: tensor<320x64xf32>, %wd: tensor<160x64xf32>) -> (tensor<8x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e_t = tensor.empty() : tensor<64x320xf32>
  %wgu_t = linalg.transpose ins(%wgu : tensor<320x64xf32>) outs(%e_t : tensor<64x320xf32>) permutation = [1, 0]
  %e_gu = tensor.empty() : tensor<8x320xf32>
  %z_gu = linalg.fill ins(%zero : f32) outs(%e_gu : tensor<8x320xf32>) -> tensor<8x320xf32>
// expected-remark @below {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %gu = linalg.matmul ins(%x, %wgu_t : tensor<8x64xf32>, tensor<64x320xf32>) outs(%z_gu : tensor<8x320xf32>) -> tensor<8x320xf32>
// expected-remark @below {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %gu2 = linalg.matmul ins(%x, %wgu_t : tensor<8x64xf32>, tensor<64x320xf32>) outs(%z_gu : tensor<8x320xf32>) -> tensor<8x320xf32>
  %g = tensor.extract_slice %gu[0, 0] [8, 160] [1, 1] : tensor<8x320xf32> to tensor<8x160xf32>
  %u = tensor.extract_slice %gu2[0, 160] [8, 160] [1, 1] : tensor<8x320xf32> to tensor<8x160xf32>
  %e_h = tensor.empty() : tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %p = arith.mulf %s, %ui : f32
    linalg.yield %p : f32
  } -> tensor<8x160xf32>
  %e_y = tensor.empty() : tensor<8x64xf32>
  %z_y = linalg.fill ins(%zero : f32) outs(%e_y : tensor<8x64xf32>) -> tensor<8x64xf32>
// expected-remark @below {{not fused into fmlp.gated_mlp: the operands of the activation product are slices, but not the two halves of one projection: the two slices are of different tensors}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_y : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// Near miss: gate_up has a third user (it is returned): fusing would lose it.
// CHECK-LABEL: func.func @gate_up_third_user
// CHECK-NOT: fmlp.gated_mlp
func.func @gate_up_third_user(%x: tensor<8x64xf32>, %wgu: tensor<320x64xf32>, %wd: tensor<160x64xf32>) -> (tensor<8x64xf32>, tensor<8x320xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e_t = tensor.empty() : tensor<64x320xf32>
  %wgu_t = linalg.transpose ins(%wgu : tensor<320x64xf32>) outs(%e_t : tensor<64x320xf32>) permutation = [1, 0]
  %e_gu = tensor.empty() : tensor<8x320xf32>
  %z_gu = linalg.fill ins(%zero : f32) outs(%e_gu : tensor<8x320xf32>) -> tensor<8x320xf32>
// expected-remark @below {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %gu = linalg.matmul ins(%x, %wgu_t : tensor<8x64xf32>, tensor<64x320xf32>) outs(%z_gu : tensor<8x320xf32>) -> tensor<8x320xf32>
  %g = tensor.extract_slice %gu[0, 0] [8, 160] [1, 1] : tensor<8x320xf32> to tensor<8x160xf32>
  %u = tensor.extract_slice %gu[0, 160] [8, 160] [1, 1] : tensor<8x320xf32> to tensor<8x160xf32>
  %e_h = tensor.empty() : tensor<8x160xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x160xf32>, tensor<8x160xf32>) outs(%e_h : tensor<8x160xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %n = arith.negf %gi : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %p = arith.mulf %s, %ui : f32
    linalg.yield %p : f32
  } -> tensor<8x160xf32>
  %e_y = tensor.empty() : tensor<8x64xf32>
  %z_y = linalg.fill ins(%zero : f32) outs(%e_y : tensor<8x64xf32>) -> tensor<8x64xf32>
// expected-remark @below {{not fused into fmlp.gated_mlp: an intermediate value (linalg.matmul) is also used outside the block}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x160xf32>, tensor<160x64xf32>) outs(%z_y : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y, %gu : tensor<8x64xf32>, tensor<8x320xf32>
}

