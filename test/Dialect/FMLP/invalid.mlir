// RUN: fmlp-opt %s --split-input-file --verify-diagnostics

// One case per verifier message of fmlp.gated_mlp and fmlp.gated_mlp_grad,
// each matched word for word.

func.func @x_rank_1(%x: tensor<96xf32>, %wg: tensor<200x96xf32>,
                    %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op x must have rank >= 2 ([..., T, D]), got rank 1}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>) -> tensor<96xf32>
  return
}

// -----

func.func @dynamic_model_width(%x: tensor<?x?xf32>, %wg: tensor<200x96xf32>,
                               %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op model width D (the last dimension of x) must be static}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x?xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @gate_weight_rank_3(%x: tensor<?x96xf32>, %wg: tensor<1x200x96xf32>,
                              %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op gate weight must be 2-D, got rank 3}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xf32>, tensor<1x200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @dynamic_down_weight(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                               %wu: tensor<200x96xf32>, %wd: tensor<96x?xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op down weight must have a static shape, got [96, ?]}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x?xf32>) -> tensor<?x96xf32>
  return
}

// -----

// The gate weight is [in, out] but the default layout reads it as [out, in].
func.func @gate_weight_wrong_layout(%x: tensor<?x96xf32>, %wg: tensor<96x200xf32>,
                                    %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op gate weight of shape [96, 200] in layout out_in maps 200 -> 96 features, expected 96 -> 96}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xf32>, tensor<96x200xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @up_weight_other_hidden_width(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                                        %wu: tensor<208x96xf32>, %wd: tensor<96x200xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op up weight of shape [208, 96] in layout out_in maps 96 -> 208 features, expected 96 -> 200}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<208x96xf32>,
         tensor<96x200xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @down_weight_in_out_mismatch(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                                       %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op down weight of shape [96, 200] in layout in_out maps 96 -> 200 features, expected 200 -> 96}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      {down_layout = #fmlp.layout<in_out>}
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @gate_bias_wrong_length(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                                  %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                                  %bg: tensor<96xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op gate bias must be 1-D with H = 200 elements, got 'tensor<96xf32>'}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd gate_bias %bg
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<96xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @down_bias_2d(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                        %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                        %bd: tensor<1x96xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op down bias must be 1-D with D = 96 elements, got 'tensor<1x96xf32>'}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd down_bias %bd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<1x96xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @infinite_multiplier(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                               %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op gate_multiplier must be a finite number, got INF}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      {gate_multiplier = 0x7FF0000000000000 : f64}
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @multiplier_past_f32(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                               %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op down_multiplier must be finite as an f32 (the kernels scale fp32 sums by it), got 1.000000e+300}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      {down_multiplier = 1.0e300 : f64}
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @mixed_types_without_precision(%x: tensor<?x96xbf16>, %wg: tensor<200x96xbf16>,
                                         %wu: tensor<200x96xf32>, %wd: tensor<96x200xbf16>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op operands mix element types (x is 'bf16', the up weight is 'f32'); a 'precision' attribute must say how the contractions round them}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xbf16>, tensor<200x96xbf16>, tensor<200x96xf32>,
         tensor<96x200xbf16>) -> tensor<?x96xbf16>
  return
}

// -----

func.func @tf32_with_bf16_weight(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                                 %wu: tensor<200x96xf32>, %wd: tensor<96x200xbf16>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op precision 'tf32' takes f32 operands, but the down weight is 'bf16'}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      {precision = #fmlp.precision<tf32>}
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xbf16>) -> tensor<?x96xf32>
  return
}

// -----

func.func @result_type_differs(%x: tensor<?x96xbf16>, %wg: tensor<200x96xbf16>,
                               %wu: tensor<200x96xbf16>, %wd: tensor<96x200xbf16>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op y must have x's type 'tensor<?x96xbf16>', got 'tensor<?x96xf32>'}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xbf16>, tensor<200x96xbf16>, tensor<200x96xbf16>,
         tensor<96x200xbf16>) -> tensor<?x96xf32>
  return
}

// -----

func.func @integer_operand(%x: tensor<?x96xi8>, %wg: tensor<200x96xf32>,
                           %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op operand #0 must be ranked tensor of bfloat16 type or 16-bit float or 32-bit float values, but got 'tensor<?x96xi8>'}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xi8>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @unknown_activation(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                              %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>) {
  // expected-error @+1 {{unknown activation 'gelu', expected silu, gelu_tanh or relu}}
  %y = fmlp.gated_mlp gelu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>) -> tensor<?x96xf32>
  return
}

// -----

// The backward shares the forward's signature checks...
func.func @grad_mixed_types(%x: tensor<?x96xbf16>, %wg: tensor<200x96xbf16>,
                            %wu: tensor<200x96xbf16>, %wd: tensor<96x200xbf16>,
                            %dy: tensor<?x96xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp_grad' op operands mix element types (x is 'bf16', dy is 'f32'); a 'precision' attribute must say how the contractions round them}}
  %dx, %dwg, %dwu, %dwd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu,
      down %wd, dy %dy
      : (tensor<?x96xbf16>, tensor<200x96xbf16>, tensor<200x96xbf16>,
         tensor<96x200xbf16>, tensor<?x96xf32>)
      -> (tensor<?x96xbf16>, tensor<200x96xbf16>, tensor<200x96xbf16>,
          tensor<96x200xbf16>)
  return
}

// -----

// ... and then checks its own operand dy and its results.
func.func @grad_dy_shape(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                         %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                         %dy: tensor<4x96xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp_grad' op dy must have x's type 'tensor<?x96xf32>', got 'tensor<4x96xf32>'}}
  %dx, %dwg, %dwu, %dwd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu,
      down %wd, dy %dy
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<4x96xf32>)
      -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
          tensor<96x200xf32>)
  return
}

// -----

func.func @grad_dx_type(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                        %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                        %dy: tensor<?x96xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp_grad' op dx must have x's type 'tensor<?x96xf32>', got 'tensor<?x96xbf16>'}}
  %dx, %dwg, %dwu, %dwd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu,
      down %wd, dy %dy
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<?x96xf32>)
      -> (tensor<?x96xbf16>, tensor<200x96xf32>, tensor<200x96xf32>,
          tensor<96x200xf32>)
  return
}

// -----

// An out_in weight gets an out_in gradient, never the transpose.
func.func @grad_weight_transposed(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                                  %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                                  %dy: tensor<?x96xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp_grad' op d_up must have up's type 'tensor<200x96xf32>', got 'tensor<96x200xf32>'}}
  %dx, %dwg, %dwu, %dwd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu,
      down %wd, dy %dy
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<?x96xf32>)
      -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
          tensor<96x200xf32>)
  return
}

// -----

func.func @grad_missing_bias_gradient(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                                      %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                                      %dy: tensor<?x96xf32>, %bg: tensor<200xf32>,
                                      %bd: tensor<96xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp_grad' op expected 2 gradients of optional operands (one per bias and adapter operand), got 1}}
  %dx, %dwg, %dwu, %dwd, %dbg = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu,
      down %wd, dy %dy gate_bias %bg down_bias %bd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<?x96xf32>, tensor<200xf32>, tensor<96xf32>)
      -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
          tensor<96x200xf32>, tensor<200xf32>)
  return
}

// -----

func.func @grad_bias_gradient_type(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                                   %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                                   %dy: tensor<?x96xf32>, %bd: tensor<96xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp_grad' op the gradient of down_bias must have down_bias's type 'tensor<96xf32>', got 'tensor<200xf32>'}}
  %dx, %dwg, %dwu, %dwd, %dbd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu,
      down %wd, dy %dy down_bias %bd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<?x96xf32>, tensor<96xf32>)
      -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
          tensor<96x200xf32>, tensor<200xf32>)
  return
}

// -----

func.func @lora_a_wrong_width(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                              %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                              %a: tensor<8x64xf32>, %bg: tensor<200x8xf32>,
                              %bu: tensor<200x8xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op lora_a must be a static [8, 96] tensor (adapters are [out, in]), got 'tensor<8x64xf32>'}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd lora(%a, %bg, %bu)
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<8x64xf32>, tensor<200x8xf32>,
         tensor<200x8xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @lora_b_wrong_rank(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                             %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                             %a: tensor<8x96xf32>, %bg: tensor<200x8xf32>,
                             %bu: tensor<200x16xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op up_lora_b must be a static [200, 8] tensor (adapters are [out, in]), got 'tensor<200x16xf32>'}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd lora(%a, %bg, %bu)
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<8x96xf32>, tensor<200x8xf32>,
         tensor<200x16xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @down_lora_dynamic(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                             %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                             %ad: tensor<?x200xf32>, %bd: tensor<96x4xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op down_lora_a must be a static [?, 200] tensor (adapters are [out, in]), got 'tensor<?x200xf32>'}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd down_lora(%ad, %bd)
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<?x200xf32>, tensor<96x4xf32>) -> tensor<?x96xf32>
  return
}

// -----

// The generic form can give an adapter group in part.
func.func @lora_in_part(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                        %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                        %a: tensor<8x96xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op lora takes its 3 adapter operands together (lora_a, gate_lora_b, up_lora_b), got 1}}
  %y = "fmlp.gated_mlp"(%x, %wg, %wu, %wd, %a)
      <{activation = #fmlp.activation<silu>,
        operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0>}>
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<8x96xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @lora_element_type(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                             %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                             %ad: tensor<4x200xbf16>, %bd: tensor<96x4xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op operands mix element types (x is 'f32', down_lora_a is 'bf16'); a 'precision' attribute must say how the contractions round them}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd down_lora(%ad, %bd)
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<4x200xbf16>, tensor<96x4xf32>) -> tensor<?x96xf32>
  return
}

// -----

func.func @grad_missing_adapter_gradient(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                                         %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                                         %dy: tensor<?x96xf32>, %ad: tensor<4x200xf32>,
                                         %bd: tensor<96x4xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp_grad' op the gradient of down_lora_b must have down_lora_b's type 'tensor<96x4xf32>', got 'tensor<4x200xf32>'}}
  %dx, %dwg, %dwu, %dwd, %dad, %dbd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu,
      down %wd, dy %dy down_lora(%ad, %bd)
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<?x96xf32>, tensor<4x200xf32>, tensor<96x4xf32>)
      -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
          tensor<96x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>)
  return
}
