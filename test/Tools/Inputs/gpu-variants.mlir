// Blocks that exercise every variant of the generated kernels: both weight
// layouts (K-major and MN-major tensor maps), biases, multipliers, every
// activation, each element type, widths that TMA cannot take (SIMT), and H
// not a multiple of 64 (K4's split). Used by test/Tools/ptxas-resources.mlir.

// bf16 GeGLU, weights stored [in, out], Falcon-H1 multipliers; H = 200.
func.func @geglu_in_out(%x: tensor<?x96xbf16>, %wg: tensor<96x200xbf16>,
                        %wu: tensor<96x200xbf16>, %wd: tensor<200x96xbf16>)
    -> tensor<?x96xbf16> {
  %y = fmlp.gated_mlp gelu_tanh %x, gate %wg, up %wu, down %wd
      {gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>,
       down_layout = #fmlp.layout<in_out>, gate_multiplier = 0.5 : f64,
       down_multiplier = 0.25 : f64}
      : (tensor<?x96xbf16>, tensor<96x200xbf16>, tensor<96x200xbf16>,
         tensor<200x96xbf16>) -> tensor<?x96xbf16>
  return %y : tensor<?x96xbf16>
}

// f16 ReGLU with all three biases.
func.func @reglu_biases(%x: tensor<?x128xf16>, %wg: tensor<256x128xf16>,
                        %wu: tensor<256x128xf16>, %wd: tensor<128x256xf16>,
                        %bg: tensor<256xf16>, %bu: tensor<256xf16>,
                        %bd: tensor<128xf16>) -> tensor<?x128xf16> {
  %y = fmlp.gated_mlp relu %x, gate %wg, up %wu, down %wd gate_bias %bg
      up_bias %bu down_bias %bd
      : (tensor<?x128xf16>, tensor<256x128xf16>, tensor<256x128xf16>,
         tensor<128x256xf16>, tensor<256xf16>, tensor<256xf16>, tensor<128xf16>)
      -> tensor<?x128xf16>
  return %y : tensor<?x128xf16>
}

// f32 SwiGLU with biases and multipliers (IEEE SIMT).
func.func @swiglu_f32(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                      %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                      %bg: tensor<200xf32>, %bu: tensor<200xf32>,
                      %bd: tensor<96xf32>) -> tensor<?x96xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd gate_bias %bg
      up_bias %bu down_bias %bd
      {gate_multiplier = 0.5 : f64, down_multiplier = 0.25 : f64}
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<200xf32>, tensor<200xf32>, tensor<96xf32>)
      -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// bf16 rows of 36 and 100 elements: not 16-byte multiples, SIMT.
func.func @unaligned(%x: tensor<?x36xbf16>, %wg: tensor<100x36xbf16>,
                     %wu: tensor<100x36xbf16>, %wd: tensor<36x100xbf16>)
    -> tensor<?x36xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x36xbf16>, tensor<100x36xbf16>, tensor<100x36xbf16>,
         tensor<36x100xbf16>) -> tensor<?x36xbf16>
  return %y : tensor<?x36xbf16>
}
