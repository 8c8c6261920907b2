// A block the dialect's verifier refuses (up's shape is not gate's):
// fmlp-run reports it at the op's line and column (fmlp-run.mlir, LOCATED).
func.func @mlp(%x: tensor<?x64xf32>, %wg: tensor<96x64xf32>, %wu: tensor<80x64xf32>, %wd: tensor<64x96xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : (tensor<?x64xf32>, tensor<96x64xf32>, tensor<80x64xf32>, tensor<64x96xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
