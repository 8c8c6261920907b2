// x with three dynamic leading extents (T is their product; fmlp-run.mlir, DYNAMIC).
func.func @mlp(%x: tensor<?x?x?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>, %wd: tensor<64x128xbf16>) -> tensor<?x?x?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : (tensor<?x?x?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x?x?x64xbf16>
  return %y : tensor<?x?x?x64xbf16>
}
