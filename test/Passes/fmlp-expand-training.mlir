// RUN: fmlp-opt %s --split-input-file --fmlp-expand-training | FileCheck %s
// RUN: fmlp-opt %s --split-input-file --fmlp-expand-training=mode=infer | FileCheck %s --check-prefix=INFER
// RUN: not fmlp-opt %s --fmlp-expand-training=mode=eval 2>&1 | FileCheck %s --check-prefix=BAD-MODE

// A function that is one block becomes its three entry points.
// CHECK-LABEL: func.func @mlp.forward
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x96xf32> {fmlp.name = "x"}, %[[WG:[^:]+]]: tensor<200x96xf32> {fmlp.name = "gate"}, %[[WU:[^:]+]]: tensor<200x96xf32> {fmlp.name = "up"}, %[[WD:[^:]+]]: tensor<96x200xf32> {fmlp.name = "down"}) -> (tensor<?x96xf32> {fmlp.name = "y"}) attributes {fmlp.entry = "forward"}
// CHECK-NEXT: %[[Y:.+]] = fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]]
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @mlp.backward
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x96xf32> {fmlp.name = "x"}, %[[WG:[^:]+]]: tensor<200x96xf32> {fmlp.name = "gate"}, %[[WU:[^:]+]]: tensor<200x96xf32> {fmlp.name = "up"}, %[[WD:[^:]+]]: tensor<96x200xf32> {fmlp.name = "down"}, %[[DY:[^:]+]]: tensor<?x96xf32> {fmlp.name = "dy"}) -> (tensor<?x96xf32> {fmlp.name = "dx"}, tensor<200x96xf32> {fmlp.name = "d_gate"}, tensor<200x96xf32> {fmlp.name = "d_up"}, tensor<96x200xf32> {fmlp.name = "d_down"}) attributes {fmlp.entry = "backward"}
// CHECK-NEXT: %[[DX:.+]], %[[DWG:.+]], %[[DWU:.+]], %[[DWD:.+]] = fmlp.gated_mlp_grad silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]], dy %[[DY]]
// CHECK-NEXT: return %[[DX]], %[[DWG]], %[[DWU]], %[[DWD]]
// CHECK-LABEL: func.func @mlp.forward_nograd
// CHECK-SAME: attributes {fmlp.entry = "forward_nograd"}
// CHECK-NOT: func.func @mlp(
// INFER-NOT: @mlp.forward(
// INFER-NOT: @mlp.backward
// INFER-LABEL: func.func @mlp.forward_nograd
// INFER-NOT: func.func @mlp(
func.func @mlp(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>,
               %wd: tensor<96x200xf32>) -> tensor<?x96xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>)
      -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// Biases, multipliers and layouts travel to both directions; the backward
// takes the biases after the weights and returns their gradients last.
// CHECK-LABEL: func.func @biased.backward
// CHECK-SAME: %{{.+}}: tensor<200xf32> {fmlp.name = "gate_bias"}, %{{.+}}: tensor<96xf32> {fmlp.name = "down_bias"}, %[[DY:[^:]+]]: tensor<?x96xf32> {fmlp.name = "dy"}) -> (tensor<?x96xf32> {fmlp.name = "dx"}, tensor<96x200xf32> {fmlp.name = "d_gate"}, tensor<200x96xf32> {fmlp.name = "d_up"}, tensor<96x200xf32> {fmlp.name = "d_down"}, tensor<200xf32> {fmlp.name = "d_gate_bias"}, tensor<96xf32> {fmlp.name = "d_down_bias"})
// CHECK-NEXT: fmlp.gated_mlp_grad relu {{.+}} dy %[[DY]] gate_bias %{{.+}} down_bias %{{.+}} {down_multiplier = 2.500000e-01 : f64, gate_layout = #fmlp.layout<in_out>, gate_multiplier = 5.000000e-01 : f64}
func.func @biased(%x: tensor<?x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<200x96xf32>,
                  %wd: tensor<96x200xf32>, %bg: tensor<200xf32>, %bd: tensor<96xf32>)
    -> tensor<?x96xf32> {
  %y = fmlp.gated_mlp relu %x, gate %wg, up %wu, down %wd gate_bias %bg down_bias %bd
      {gate_layout = #fmlp.layout<in_out>, gate_multiplier = 0.5 : f64,
       down_multiplier = 0.25 : f64}
      : (tensor<?x96xf32>, tensor<96x200xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
         tensor<200xf32>, tensor<96xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// Two blocks: each gets its own entry points; a function that does more
// than hold blocks is kept.
// CHECK-LABEL: func.func @model.mlp0.forward(
// CHECK-LABEL: func.func @model.mlp0.backward(
// CHECK-LABEL: func.func @model.mlp0.forward_nograd(
// CHECK-LABEL: func.func @model.mlp1.forward(
// CHECK-LABEL: func.func @model.mlp1.backward(
// CHECK-LABEL: func.func @model.mlp1.forward_nograd(
// CHECK-LABEL: func.func @model(
// CHECK: arith.addf
func.func @model(%x: tensor<8x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>,
                 %wd: tensor<96x200xf32>) -> tensor<8x96xf32> {
  %y0 = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<8x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>)
      -> tensor<8x96xf32>
  %h = arith.addf %x, %y0 : tensor<8x96xf32>
  %y1 = fmlp.gated_mlp silu %h, gate %wg, up %wu, down %wd
      : (tensor<8x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>)
      -> tensor<8x96xf32>
  return %y1 : tensor<8x96xf32>
}

// -----

// One value passed as two operands (tied gate and up weights, or two equal
// constants merged by CSE): every entry point has an argument per operand
// and reads each where its operand was, the forward as the backward does
// (the forward once read the up argument for both).
// CHECK-LABEL: func.func @tied.forward
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x64xbf16> {fmlp.name = "x"}, %[[WG:[^:]+]]: tensor<128x64xbf16> {fmlp.name = "gate"}, %[[WU:[^:]+]]: tensor<128x64xbf16> {fmlp.name = "up"}, %[[WD:[^:]+]]: tensor<64x128xbf16> {fmlp.name = "down"}, %[[BG:[^:]+]]: tensor<128xbf16> {fmlp.name = "gate_bias"}, %[[BU:[^:]+]]: tensor<128xbf16> {fmlp.name = "up_bias"}, %[[BD:[^:]+]]: tensor<64xbf16> {fmlp.name = "down_bias"})
// CHECK-NEXT: fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]] gate_bias %[[BG]] up_bias %[[BU]] down_bias %[[BD]]
// CHECK-LABEL: func.func @tied.backward
// CHECK-SAME: (%[[X:[^:]+]]: tensor<?x64xbf16> {fmlp.name = "x"}, %[[WG:[^:]+]]: tensor<128x64xbf16> {fmlp.name = "gate"}, %[[WU:[^:]+]]: tensor<128x64xbf16> {fmlp.name = "up"}, %[[WD:[^:]+]]: tensor<64x128xbf16> {fmlp.name = "down"}, %[[BG:[^:]+]]: tensor<128xbf16> {fmlp.name = "gate_bias"}, %[[BU:[^:]+]]: tensor<128xbf16> {fmlp.name = "up_bias"}, %[[BD:[^:]+]]: tensor<64xbf16> {fmlp.name = "down_bias"}
// CHECK-NEXT: fmlp.gated_mlp_grad silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]], dy %{{[^ ]+}} gate_bias %[[BG]] up_bias %[[BU]] down_bias %[[BD]]
// CHECK-LABEL: func.func @tied.forward_nograd
// CHECK-SAME: %[[WG:[^:]+]]: tensor<128x64xbf16> {fmlp.name = "gate"}, %[[WU:[^:]+]]: tensor<128x64xbf16> {fmlp.name = "up"}
// CHECK: gate %[[WG]], up %[[WU]]
func.func @tied(%x: tensor<?x64xbf16>, %w: tensor<128x64xbf16>, %wd: tensor<64x128xbf16>,
                %b: tensor<128xbf16>, %bd: tensor<64xbf16>) -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %w, up %w, down %wd gate_bias %b up_bias %b down_bias %bd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>,
         tensor<128xbf16>, tensor<128xbf16>, tensor<64xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// BAD-MODE: fmlp-expand-training: mode must be train or infer, got 'eval'
