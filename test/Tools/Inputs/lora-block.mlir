// A gated MLP block with LoRA adapters (docs/LoRA.md): the gate's and
// up's stacked to R = 8, the down projection's of Rd = 4.
func.func @mlp(%x: tensor<?x64xf32>, %wg: tensor<96x64xf32>, %wu: tensor<96x64xf32>,
               %wd: tensor<64x96xf32>, %a: tensor<8x64xf32>, %bg: tensor<96x8xf32>,
               %bu: tensor<96x8xf32>, %ad: tensor<4x96xf32>, %bd: tensor<64x4xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd lora(%a, %bg, %bu) down_lora(%ad, %bd)
      : (tensor<?x64xf32>, tensor<96x64xf32>, tensor<96x64xf32>, tensor<64x96xf32>,
         tensor<8x64xf32>, tensor<96x8xf32>, tensor<96x8xf32>, tensor<4x96xf32>, tensor<64x4xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
