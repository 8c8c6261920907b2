// RUN: fmlp-opt %s --split-input-file --verify-roundtrip | FileCheck %s
// RUN: fmlp-opt %s --split-input-file --mlir-print-op-generic | fmlp-opt --split-input-file | FileCheck %s

// Llama-7B's block as Hugging Face stores it: bf16, nn.Linear layouts (the
// default, elided when printed), T dynamic.
// CHECK-LABEL: func.func @llama_7b_swiglu
// CHECK-SAME: (%[[X:.+]]: tensor<?x4096xbf16>, %[[WG:.+]]: tensor<11008x4096xbf16>, %[[WU:.+]]: tensor<11008x4096xbf16>, %[[WD:.+]]: tensor<4096x11008xbf16>)
// CHECK: %[[Y:.+]] = fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]] : (tensor<?x4096xbf16>, tensor<11008x4096xbf16>, tensor<11008x4096xbf16>, tensor<4096x11008xbf16>) -> tensor<?x4096xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @llama_7b_swiglu(%x: tensor<?x4096xbf16>, %wg: tensor<11008x4096xbf16>,
                           %wu: tensor<11008x4096xbf16>, %wd: tensor<4096x11008xbf16>)
    -> tensor<?x4096xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x4096xbf16>, tensor<11008x4096xbf16>, tensor<11008x4096xbf16>,
         tensor<4096x11008xbf16>) -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}

// -----

// GeGLU with [in, out] weights and leading batch dimensions.
// CHECK-LABEL: func.func @geglu_in_out_batched
// CHECK: fmlp.gated_mlp gelu_tanh %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} {down_layout = #fmlp.layout<in_out>, gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>} : (tensor<8x?x96xf16>, tensor<96x200xf16>, tensor<96x200xf16>, tensor<200x96xf16>) -> tensor<8x?x96xf16>
func.func @geglu_in_out_batched(%x: tensor<8x?x96xf16>, %wg: tensor<96x200xf16>,
                                %wu: tensor<96x200xf16>, %wd: tensor<200x96xf16>)
    -> tensor<8x?x96xf16> {
  %y = fmlp.gated_mlp gelu_tanh %x, gate %wg, up %wu, down %wd
      {gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>,
       down_layout = #fmlp.layout<in_out>}
      : (tensor<8x?x96xf16>, tensor<96x200xf16>, tensor<96x200xf16>,
         tensor<200x96xf16>) -> tensor<8x?x96xf16>
  return %y : tensor<8x?x96xf16>
}

// -----

// ReGLU with all three biases, Falcon-H1 multipliers and an explicit
// precision, with a static token count.
// CHECK-LABEL: func.func @reglu_biases_multipliers
// CHECK: fmlp.gated_mlp relu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} gate_bias %{{.+}} up_bias %{{.+}} down_bias %{{.+}} {down_multiplier = 2.500000e-01 : f64, gate_multiplier = 5.000000e-01 : f64, precision = #fmlp.precision<tf32x3>} : (tensor<37x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>, tensor<200xf32>, tensor<200xf32>, tensor<96xf32>) -> tensor<37x96xf32>
func.func @reglu_biases_multipliers(%x: tensor<37x96xf32>, %wg: tensor<200x96xf32>,
                                    %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                                    %bg: tensor<200xf32>, %bu: tensor<200xf32>,
                                    %bd: tensor<96xf32>) -> tensor<37x96xf32> {
  %y = fmlp.gated_mlp relu %x, gate %wg, up %wu, down %wd gate_bias %bg
      up_bias %bu down_bias %bd
      {gate_multiplier = 0.5 : f64, down_multiplier = 0.25 : f64,
       precision = #fmlp.precision<tf32x3>}
      : (tensor<37x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<200xf32>, tensor<200xf32>, tensor<96xf32>)
      -> tensor<37x96xf32>
  return %y : tensor<37x96xf32>
}

// -----

// Only the down bias: the optional operands are told apart by keyword.
// CHECK-LABEL: func.func @down_bias_only
// CHECK: fmlp.gated_mlp silu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} down_bias %{{.+}} :
func.func @down_bias_only(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                          %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                          %bd: tensor<96xf32>) -> tensor<?x96xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd down_bias %bd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<96xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// Mixed element types are legal once a precision says how to round them:
// f32 activations against bf16 weights, contracted in bf16.
// CHECK-LABEL: func.func @mixed_types_with_precision
// CHECK: fmlp.gated_mlp silu {{.+}} {precision = #fmlp.precision<bf16>} : (tensor<?x96xf32>, tensor<200x96xbf16>
func.func @mixed_types_with_precision(%x: tensor<?x96xf32>, %wg: tensor<200x96xbf16>,
                                      %wu: tensor<200x96xbf16>, %wd: tensor<96x200xbf16>)
    -> tensor<?x96xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      {precision = #fmlp.precision<bf16>}
      : (tensor<?x96xf32>, tensor<200x96xbf16>, tensor<200x96xbf16>,
         tensor<96x200xbf16>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// The backward of the Llama block: gradients for x and the three weights.
// CHECK-LABEL: func.func @llama_7b_swiglu_grad
// CHECK: %[[DX:.+]], %[[DWG:.+]], %[[DWU:.+]], %[[DWD:.+]] = fmlp.gated_mlp_grad silu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}}, dy %{{.+}} : (tensor<?x4096xbf16>, tensor<11008x4096xbf16>, tensor<11008x4096xbf16>, tensor<4096x11008xbf16>, tensor<?x4096xbf16>) -> (tensor<?x4096xbf16>, tensor<11008x4096xbf16>, tensor<11008x4096xbf16>, tensor<4096x11008xbf16>)
// CHECK-NEXT: return %[[DX]], %[[DWG]], %[[DWU]], %[[DWD]]
func.func @llama_7b_swiglu_grad(%x: tensor<?x4096xbf16>, %wg: tensor<11008x4096xbf16>,
                                %wu: tensor<11008x4096xbf16>, %wd: tensor<4096x11008xbf16>,
                                %dy: tensor<?x4096xbf16>)
    -> (tensor<?x4096xbf16>, tensor<11008x4096xbf16>, tensor<11008x4096xbf16>,
        tensor<4096x11008xbf16>) {
  %dx, %dwg, %dwu, %dwd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu,
      down %wd, dy %dy
      : (tensor<?x4096xbf16>, tensor<11008x4096xbf16>, tensor<11008x4096xbf16>,
         tensor<4096x11008xbf16>, tensor<?x4096xbf16>)
      -> (tensor<?x4096xbf16>, tensor<11008x4096xbf16>, tensor<11008x4096xbf16>,
          tensor<4096x11008xbf16>)
  return %dx, %dwg, %dwu, %dwd : tensor<?x4096xbf16>, tensor<11008x4096xbf16>,
      tensor<11008x4096xbf16>, tensor<4096x11008xbf16>
}

// -----

// With biases, one gradient per bias follows the weight gradients.
// CHECK-LABEL: func.func @grad_with_biases
// CHECK: %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[BIAS_GRADS:.+]]:2 = fmlp.gated_mlp_grad gelu_tanh %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}}, dy %{{.+}} up_bias %{{.+}} down_bias %{{.+}} {gate_multiplier = 2.000000e+00 : f64}
// CHECK-SAME: -> (tensor<?x96xf16>, tensor<200x96xf16>, tensor<200x96xf16>, tensor<96x200xf16>, tensor<200xf16>, tensor<96xf16>)
// CHECK-NEXT: return %[[BIAS_GRADS]]#0
func.func @grad_with_biases(%x: tensor<?x96xf16>, %wg: tensor<200x96xf16>,
                            %wu: tensor<200x96xf16>, %wd: tensor<96x200xf16>,
                            %dy: tensor<?x96xf16>, %bu: tensor<200xf16>,
                            %bd: tensor<96xf16>) -> tensor<200xf16> {
  %dx, %dwg, %dwu, %dwd, %dbu, %dbd = fmlp.gated_mlp_grad gelu_tanh %x,
      gate %wg, up %wu, down %wd, dy %dy up_bias %bu down_bias %bd
      {gate_multiplier = 2.0 : f64}
      : (tensor<?x96xf16>, tensor<200x96xf16>, tensor<200x96xf16>,
         tensor<96x200xf16>, tensor<?x96xf16>, tensor<200xf16>, tensor<96xf16>)
      -> (tensor<?x96xf16>, tensor<200x96xf16>, tensor<200x96xf16>,
          tensor<96x200xf16>, tensor<200xf16>, tensor<96xf16>)
  return %dbu : tensor<200xf16>
}

// -----

// Low-rank adapters: the gate's and up's (lora: A [R, D], Bg and Bu
// [H, R]) and the down projection's (down_lora: Ad [Rd, H], Bd [D, Rd]);
// the backward returns their gradients after the biases'.
// CHECK-LABEL: func.func @lora
// CHECK: fmlp.gated_mlp silu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} down_bias %{{.+}} lora(%{{.+}}, %{{.+}}, %{{.+}}) down_lora(%{{.+}}, %{{.+}}) :
// CHECK: fmlp.gated_mlp_grad silu {{.+}} down_bias %{{.+}} lora(%{{.+}}, %{{.+}}, %{{.+}}) down_lora(%{{.+}}, %{{.+}}) :
func.func @lora(%x: tensor<?x96xbf16>, %wg: tensor<200x96xbf16>,
                %wu: tensor<200x96xbf16>, %wd: tensor<96x200xbf16>,
                %bd: tensor<96xbf16>, %a: tensor<16x96xbf16>,
                %bg: tensor<200x16xbf16>, %bu: tensor<200x16xbf16>,
                %ad: tensor<8x200xbf16>, %bdl: tensor<96x8xbf16>,
                %dy: tensor<?x96xbf16>) -> tensor<?x96xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd down_bias %bd
      lora(%a, %bg, %bu) down_lora(%ad, %bdl)
      : (tensor<?x96xbf16>, tensor<200x96xbf16>, tensor<200x96xbf16>,
         tensor<96x200xbf16>, tensor<96xbf16>, tensor<16x96xbf16>,
         tensor<200x16xbf16>, tensor<200x16xbf16>, tensor<8x200xbf16>,
         tensor<96x8xbf16>) -> tensor<?x96xbf16>
  %g:10 = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu, down %wd, dy %dy
      down_bias %bd lora(%a, %bg, %bu) down_lora(%ad, %bdl)
      : (tensor<?x96xbf16>, tensor<200x96xbf16>, tensor<200x96xbf16>,
         tensor<96x200xbf16>, tensor<?x96xbf16>, tensor<96xbf16>,
         tensor<16x96xbf16>, tensor<200x16xbf16>, tensor<200x16xbf16>,
         tensor<8x200xbf16>, tensor<96x8xbf16>)
      -> (tensor<?x96xbf16>, tensor<200x96xbf16>, tensor<200x96xbf16>,
          tensor<96x200xbf16>, tensor<96xbf16>, tensor<16x96xbf16>,
          tensor<200x16xbf16>, tensor<200x16xbf16>, tensor<8x200xbf16>,
          tensor<96x8xbf16>)
  return %y : tensor<?x96xbf16>
}
