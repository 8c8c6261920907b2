// A block over [batch, sequence, D] activations (GeGLU, weights stored
// [in, out]): the bundle describes x and y as [T, D] (T = batch x sequence).
func.func @geglu_in_out_batched(%x: tensor<8x?x96xbf16>, %wg: tensor<96x200xbf16>,
                                %wu: tensor<96x200xbf16>, %wd: tensor<200x96xbf16>)
    -> tensor<8x?x96xbf16> {
  %y = fmlp.gated_mlp gelu_tanh %x, gate %wg, up %wu, down %wd
      {gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>,
       down_layout = #fmlp.layout<in_out>}
      : (tensor<8x?x96xbf16>, tensor<96x200xbf16>, tensor<96x200xbf16>,
         tensor<200x96xbf16>) -> tensor<8x?x96xbf16>
  return %y : tensor<8x?x96xbf16>
}
