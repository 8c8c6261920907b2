// H = 8388736: the gate/up kernels' grid needs 65537 column tiles along y, past CUDA's 65535 (fmlp-compile.mlir, GRID).
func.func @mlp(%x: tensor<?x64xbf16>, %wg: tensor<8388736x64xbf16>, %wu: tensor<8388736x64xbf16>, %wd: tensor<64x8388736xbf16>) -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : (tensor<?x64xbf16>, tensor<8388736x64xbf16>, tensor<8388736x64xbf16>, tensor<64x8388736xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
