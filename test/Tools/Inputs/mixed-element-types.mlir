// A block whose x is f32 and weights f16 (legal: test/Dialect/FMLP/ops.mlir); fmlp-run refuses it (fmlp-run.mlir, MIXED).
func.func @mlp(%x: tensor<?x96xf32>, %wg: tensor<200x96xf16>, %wu: tensor<200x96xf16>, %wd: tensor<96x200xf16>) -> tensor<?x96xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<f16>} : (tensor<?x96xf32>, tensor<200x96xf16>, tensor<200x96xf16>, tensor<96x200xf16>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}
