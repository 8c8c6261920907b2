// RUN: fmlp-opt %s --split-input-file --verify-diagnostics --fmlp-fuse | FileCheck %s --check-prefixes=CHECK,AGU
// RUN: fmlp-opt %s --split-input-file --verify-diagnostics --fmlp-fuse=save=gu | FileCheck %s --check-prefixes=CHECK,GU
// RUN: fmlp-opt %s --split-input-file --verify-diagnostics --fmlp-fuse=save=u | FileCheck %s --check-prefixes=CHECK,SAVEU
// RUN: fmlp-opt %s --split-input-file --verify-diagnostics --fmlp-fuse=save=x | FileCheck %s --check-prefixes=CHECK,X

// The three entry points of one block, under each save policy.

// CHECK-LABEL: func.func @mlp.forward
// AGU-SAME: -> (tensor<?x96xf32>, tensor<?x200xf32> {fmlp.saved = "a"}, tensor<?x200xf32> {fmlp.saved = "g"}, tensor<?x200xf32> {fmlp.saved = "u"}) attributes {fmlp.entry = "forward", fmlp.precision = "ieee", fmlp.save = "agu"}
// GU-SAME: -> (tensor<?x96xf32>, tensor<?x200xf32> {fmlp.saved = "g"}, tensor<?x200xf32> {fmlp.saved = "u"}) attributes {fmlp.entry = "forward", fmlp.precision = "ieee", fmlp.save = "gu"}
// SAVEU-SAME: -> (tensor<?x96xf32>, tensor<?x200xf32> {fmlp.saved = "u"}) attributes {fmlp.entry = "forward", fmlp.precision = "ieee", fmlp.save = "u"}
// X-SAME: -> tensor<?x96xf32> attributes {fmlp.entry = "forward", fmlp.precision = "ieee", fmlp.save = "x"}
// AGU: %[[K1:.+]]:3 = fmlp.gate_up silu ins(%arg0, %arg1, %arg2 : {{.*}}) outs({{.*}}) -> tensor<?x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>
// AGU: %[[Y:.+]] = fmlp.down ins(%[[K1]]#0, %arg3 : {{.*}})
// AGU: return %[[Y]], %[[K1]]#0, %[[K1]]#1, %[[K1]]#2
// GU: %[[K1:.+]]:3 = fmlp.gate_up silu
// GU: %[[Y:.+]] = fmlp.down ins(%[[K1]]#0, %arg3
// GU: return %[[Y]], %[[K1]]#1, %[[K1]]#2
// SAVEU: %[[K1:.+]]:3 = fmlp.gate_up silu
// SAVEU: %[[Y:.+]] = fmlp.down ins(%[[K1]]#0, %arg3
// SAVEU: return %[[Y]], %[[K1]]#2 :
// X: %[[A:.+]] = fmlp.gate_up silu ins(%arg0, %arg1, %arg2 : {{.*}}) outs(%{{[^,]+}} : tensor<?x200xf32>) -> tensor<?x200xf32>
// X: %[[Y:.+]] = fmlp.down ins(%[[A]], %arg3
// X: return %[[Y]] :
func.func @mlp.forward(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>,
                       %wd: tensor<96x200xf32>) -> tensor<?x96xf32>
    attributes {fmlp.entry = "forward"} {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>)
      -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// In every backward K3 writes dG, dU over G, U (its outs are G and U), and
// K4 and K5 read them; K6 reads A. save=gu has K3 recompute A into a third
// out (from the G and U it reads before writing over them); save=u runs
// the gate projection again (fmlp.gate), and K3 writes dG over it, dU into a
// new buffer and A over the saved U; save=x runs K1 again.
// CHECK-LABEL: func.func @mlp.backward
// AGU-SAME: %[[DY:[^:]+]]: tensor<?x96xf32>, %[[A:[^:]+]]: tensor<?x200xf32> {fmlp.saved = "a"}, %[[G:[^:]+]]: tensor<?x200xf32> {fmlp.saved = "g"}, %[[U:[^:]+]]: tensor<?x200xf32> {fmlp.saved = "u"})
// AGU: %[[DGU:.+]]:2 = fmlp.down_grad silu ins(%[[DY]], %arg3, %[[G]], %[[U]] : {{.*}}) outs(%[[G]], %[[U]] :
// AGU: %[[DWD:.+]] = fmlp.down_weight_grad ins(%[[DY]], %[[A]] :
// AGU: %[[DX:.+]] = fmlp.input_grad ins(%[[DGU]]#0, %[[DGU]]#1, %arg1, %arg2 :
// AGU: %[[DW:.+]]:2 = fmlp.gate_up_weight_grad ins(%arg0, %[[DGU]]#0, %[[DGU]]#1 :
// AGU: return %[[DX]], %[[DW]]#0, %[[DW]]#1, %[[DWD]]
// GU-SAME: %[[DY:[^:]+]]: tensor<?x96xf32>, %[[G:[^:]+]]: tensor<?x200xf32> {fmlp.saved = "g"}, %[[U:[^:]+]]: tensor<?x200xf32> {fmlp.saved = "u"})
// GU: %[[EMPTY:.+]] = tensor.empty(%{{.+}}) : tensor<?x200xf32>
// GU: %[[DGU:.+]]:3 = fmlp.down_grad silu ins(%[[DY]], %arg3, %[[G]], %[[U]] : {{.*}}) outs(%[[G]], %[[U]], %[[EMPTY]] :
// GU: fmlp.down_weight_grad ins(%[[DY]], %[[DGU]]#2 :
// SAVEU-SAME: %[[DY:[^:]+]]: tensor<?x96xf32>, %[[U:[^:]+]]: tensor<?x200xf32> {fmlp.saved = "u"})
// SAVEU: %[[G:.+]] = fmlp.gate ins(%arg0, %arg1 : {{.*}}) outs(%{{.+}} : tensor<?x200xf32>) -> tensor<?x200xf32>
// SAVEU: %[[EMPTY:.+]] = tensor.empty(%{{.+}}) : tensor<?x200xf32>
// SAVEU: %[[DGU:.+]]:3 = fmlp.down_grad silu ins(%[[DY]], %arg3, %[[G]], %[[U]] : {{.*}}) outs(%[[G]], %[[EMPTY]], %[[U]] :
// SAVEU: fmlp.down_weight_grad ins(%[[DY]], %[[DGU]]#2 :
// SAVEU: fmlp.input_grad ins(%[[DGU]]#0, %[[DGU]]#1, %arg1, %arg2 :
// X-SAME: %[[DY:[^:]+]]: tensor<?x96xf32>) -> (
// X: %[[K1:.+]]:3 = fmlp.gate_up silu ins(%arg0, %arg1, %arg2
// X: fmlp.down_grad silu ins(%[[DY]], %arg3, %[[K1]]#1, %[[K1]]#2 : {{.*}}) outs(%[[K1]]#1, %[[K1]]#2 :
// X: fmlp.down_weight_grad ins(%[[DY]], %[[K1]]#0 :
// CHECK-NOT: fmlp.gated_mlp_grad
func.func @mlp.backward(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>,
                        %wd: tensor<96x200xf32>, %dy: tensor<?x96xf32>)
    -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>)
    attributes {fmlp.entry = "backward"} {
  %dx, %dwg, %dwu, %dwd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu, down %wd, dy %dy
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
         tensor<?x96xf32>)
      -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>)
  return %dx, %dwg, %dwu, %dwd : tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
      tensor<96x200xf32>
}

// The no-grad forward stores A only, whatever the policy; leading
// dimensions of x are collapsed into T around the kernels.
// CHECK-LABEL: func.func @mlp.forward_nograd
// CHECK-SAME: attributes {fmlp.entry = "forward_nograd", fmlp.precision = "ieee"}
// CHECK: %[[X2:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<2x?x96xf32> into tensor<?x96xf32>
// CHECK: %[[A:.+]] = fmlp.gate_up gelu_tanh ins(%[[X2]], %arg1, %arg2 : {{.*}}) outs(%{{[^,]+}} : tensor<?x200xf32>) -> tensor<?x200xf32>
// CHECK: %[[Y2:.+]] = fmlp.down ins(%[[A]], %arg3 : {{.*}}) {{.*}}{down_multiplier = 2.000000e+00 : f64}
// CHECK: %[[Y:.+]] = tensor.expand_shape %[[Y2]] {{\[}}[0, 1], [2]]
// CHECK: return %[[Y]]
func.func @mlp.forward_nograd(%x: tensor<2x?x96xf32>, %wg: tensor<200x96xf32>,
                              %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>)
    -> tensor<2x?x96xf32> attributes {fmlp.entry = "forward_nograd"} {
  %y = fmlp.gated_mlp gelu_tanh %x, gate %wg, up %wu, down %wd {down_multiplier = 2.0 : f64}
      : (tensor<2x?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>)
      -> tensor<2x?x96xf32>
  return %y : tensor<2x?x96xf32>
}

// -----

// Biases go into K1's and K2's epilogues; their gradients are sums over the
// tokens of dG, dU and (times md) dY.
// CHECK-LABEL: func.func @biased.forward(
// CHECK: fmlp.gate_up silu ins({{.*}}) gate_bias(%arg4 : tensor<200xf32>) up_bias(%arg5 : tensor<200xf32>) outs(
// CHECK: fmlp.down ins({{.*}}) down_bias(%arg6 : tensor<96xf32>) outs(
func.func @biased.forward(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>,
                          %wd: tensor<96x200xf32>, %bg: tensor<200xf32>, %bu: tensor<200xf32>,
                          %bd: tensor<96xf32>) -> tensor<?x96xf32>
    attributes {fmlp.entry = "forward"} {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd gate_bias %bg up_bias %bu down_bias %bd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
         tensor<200xf32>, tensor<200xf32>, tensor<96xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// CHECK-LABEL: func.func @biased.backward(
// CHECK: %[[DGU:.+]]:{{[23]}} = fmlp.down_grad
// CHECK: %[[DBG:.+]] = fmlp.bias_grad ins(%[[DGU]]#0 : tensor<?x200xf32>) outs(%{{.+}} : tensor<200xf32>) -> tensor<200xf32>
// CHECK: %[[DBD:.+]] = fmlp.bias_grad ins(%arg6 : tensor<?x96xf32>) outs(%{{.+}} : tensor<96xf32>) {scale = 5.000000e-01 : f64} -> tensor<96xf32>
// CHECK: return {{.*}}, %[[DBG]], %[[DBD]] :
func.func @biased.backward(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>,
                           %wd: tensor<96x200xf32>, %bg: tensor<200xf32>, %bd: tensor<96xf32>,
                           %dy: tensor<?x96xf32>)
    -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
        tensor<200xf32>, tensor<96xf32>) attributes {fmlp.entry = "backward"} {
  %dx, %dwg, %dwu, %dwd, %dbg, %dbd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu,
      down %wd, dy %dy gate_bias %bg down_bias %bd {down_multiplier = 0.5 : f64}
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
         tensor<?x96xf32>, tensor<200xf32>, tensor<96xf32>)
      -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
          tensor<200xf32>, tensor<96xf32>)
  return %dx, %dwg, %dwu, %dwd, %dbg, %dbd : tensor<?x96xf32>, tensor<200x96xf32>,
      tensor<200x96xf32>, tensor<96x200xf32>, tensor<200xf32>, tensor<96xf32>
}
