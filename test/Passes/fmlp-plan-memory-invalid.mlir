// RUN: fmlp-opt %s --split-input-file --verify-diagnostics --fmlp-expand-training --fmlp-fuse --fmlp-plan-memory
// RUN: fmlp-opt %s --split-input-file --verify-diagnostics --fmlp-expand-training --fmlp-fuse --fmlp-plan-memory=chunk-tokens=16

// Blocks fmlp-plan-memory refuses, at the block's location, rather than
// emit invalid IR: a static zero-size extent (its views would be out of
// bounds) and buffers whose sizes overflow int64 (they would wrap to
// negative extents).

func.func @zero_tokens(%x: tensor<0x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) -> tensor<0x96xf32> {
  // expected-error @below {{fmlp-plan-memory: the block operates on 'tensor<0x96xf32>', which has a zero-size dimension: fmlp plans blocks whose T, D, H and batch extents are at least 1}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<0x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>) -> tensor<0x96xf32>
  return %y : tensor<0x96xf32>
}

// -----

func.func @zero_hidden(%x: tensor<?x96xf32>, %wg: tensor<0x96xf32>, %wu: tensor<0x96xf32>, %wd: tensor<96x0xf32>) -> tensor<?x96xf32> {
  // expected-error @below {{which has a zero-size dimension: fmlp plans blocks whose T, D, H and batch extents are at least 1}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xf32>, tensor<0x96xf32>, tensor<0x96xf32>, tensor<96x0xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

func.func @zero_batch(%x: tensor<0x?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) -> tensor<0x?x96xf32> {
  // expected-error @below {{which has a zero-size dimension: fmlp plans blocks whose T, D, H and batch extents are at least 1}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<0x?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>) -> tensor<0x?x96xf32>
  return %y : tensor<0x?x96xf32>
}

// -----

// H = 2^62: the saved buffer's 3 H columns overflow.
func.func @huge_hidden(%x: tensor<?x96xbf16>, %wg: tensor<4611686018427387904x96xbf16>, %wu: tensor<4611686018427387904x96xbf16>, %wd: tensor<96x4611686018427387904xbf16>) -> tensor<?x96xbf16> {
  // expected-error @below {{fmlp-plan-memory: the saved buffer of 3 column blocks (4611686018427387904 + 4611686018427387904 + 4611686018427387904 columns) is over 2^63 bytes}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xbf16>, tensor<4611686018427387904x96xbf16>, tensor<4611686018427387904x96xbf16>, tensor<96x4611686018427387904xbf16>) -> tensor<?x96xbf16>
  return %y : tensor<?x96xbf16>
}
