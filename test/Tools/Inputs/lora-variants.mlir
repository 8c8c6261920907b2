// Blocks with LoRA adapters for the resource check (ptxas-resources.mlir):
// bf16 at Llama-1B-like widths with the gate's and up's adapters stacked
// to R = 32 and the down projection's of Rd = 16 (WGMMA: each adapter a
// tensor map of its own from its k-step on); f16 with D = 96, whose
// adapters start at k = 96, not a whole k-step (K1 and K4 on mma_sync);
// f32 with the gate/up adapters alone.
func.func @lora_bf16(%x: tensor<?x1024xbf16>, %wg: tensor<2816x1024xbf16>,
                     %wu: tensor<2816x1024xbf16>, %wd: tensor<1024x2816xbf16>,
                     %a: tensor<32x1024xbf16>, %bg: tensor<2816x32xbf16>, %bu: tensor<2816x32xbf16>,
                     %ad: tensor<16x2816xbf16>, %bd: tensor<1024x16xbf16>) -> tensor<?x1024xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd lora(%a, %bg, %bu) down_lora(%ad, %bd)
      : (tensor<?x1024xbf16>, tensor<2816x1024xbf16>, tensor<2816x1024xbf16>, tensor<1024x2816xbf16>,
         tensor<32x1024xbf16>, tensor<2816x32xbf16>, tensor<2816x32xbf16>,
         tensor<16x2816xbf16>, tensor<1024x16xbf16>) -> tensor<?x1024xbf16>
  return %y : tensor<?x1024xbf16>
}
func.func @lora_f16_d96(%x: tensor<?x96xf16>, %wg: tensor<256x96xf16>, %wu: tensor<256x96xf16>,
                        %wd: tensor<96x256xf16>, %a: tensor<16x96xf16>, %bg: tensor<256x16xf16>,
                        %bu: tensor<256x16xf16>, %ad: tensor<16x256xf16>, %bd: tensor<96x16xf16>)
    -> tensor<?x96xf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd lora(%a, %bg, %bu) down_lora(%ad, %bd)
      : (tensor<?x96xf16>, tensor<256x96xf16>, tensor<256x96xf16>, tensor<96x256xf16>,
         tensor<16x96xf16>, tensor<256x16xf16>, tensor<256x16xf16>,
         tensor<16x256xf16>, tensor<96x16xf16>) -> tensor<?x96xf16>
  return %y : tensor<?x96xf16>
}
func.func @lora_f32(%x: tensor<?x256xf32>, %wg: tensor<704x256xf32>, %wu: tensor<704x256xf32>,
                    %wd: tensor<256x704xf32>, %a: tensor<32x256xf32>, %bg: tensor<704x32xf32>,
                    %bu: tensor<704x32xf32>) -> tensor<?x256xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd lora(%a, %bg, %bu)
      : (tensor<?x256xf32>, tensor<704x256xf32>, tensor<704x256xf32>, tensor<256x704xf32>,
         tensor<32x256xf32>, tensor<704x32xf32>, tensor<704x32xf32>) -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}
