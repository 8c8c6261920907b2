// Two blocks in one module (fmlp-run.mlir, TWO): fmlp-run checks the one
// --block names, and asks for the name when none is given.
func.func @wide(%x: tensor<?x64xf32>, %wg: tensor<160x64xf32>, %wu: tensor<160x64xf32>, %wd: tensor<64x160xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : (tensor<?x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
func.func @narrow(%x: tensor<?x64xf32>, %wg: tensor<96x64xf32>, %wu: tensor<96x64xf32>, %wd: tensor<64x96xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp relu %x, gate %wg, up %wu, down %wd : (tensor<?x64xf32>, tensor<96x64xf32>, tensor<96x64xf32>, tensor<64x96xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
