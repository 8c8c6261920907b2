// A small SwiGLU block written in the fmlp dialect (D = 256, H = 704, bf16):
// the package test compiles it with the installed fmlp-compile.
func.func @mlp(%x: tensor<?x256xbf16>, %gate: tensor<704x256xbf16>,
               %up: tensor<704x256xbf16>, %down: tensor<256x704xbf16>)
    -> tensor<?x256xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %gate, up %up, down %down
      : (tensor<?x256xbf16>, tensor<704x256xbf16>, tensor<704x256xbf16>,
         tensor<256x704xbf16>) -> tensor<?x256xbf16>
  return %y : tensor<?x256xbf16>
}
