// A block with D = 2^62: valid IR, but 3 D H parameters overflow int64.
func.func @huge(%x: tensor<?x4611686018427387904xbf16>, %wg: tensor<8x4611686018427387904xbf16>,
                %wu: tensor<8x4611686018427387904xbf16>, %wd: tensor<4611686018427387904x8xbf16>)
    -> tensor<?x4611686018427387904xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x4611686018427387904xbf16>, tensor<8x4611686018427387904xbf16>,
         tensor<8x4611686018427387904xbf16>, tensor<4611686018427387904x8xbf16>)
      -> tensor<?x4611686018427387904xbf16>
  return %y : tensor<?x4611686018427387904xbf16>
}
