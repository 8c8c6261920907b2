// RUN: fmlp-opt %s --split-input-file --fmlp-fuse | FileCheck %s --check-prefixes=CHECK,AGU
// RUN: fmlp-opt %s --split-input-file --fmlp-fuse=save=x | FileCheck %s --check-prefixes=CHECK,X

// A block with LoRA adapters (docs/LoRA.md): A [8, 96], Bg, Bu [200, 8];
// Ad [4, 200], Bd [96, 4]. The forward projects Z = x A^T before K1 and
// Zd = A Ad^T before K2, each of which takes its adapter term in its own
// contraction; Z and Zd are saved beside A, G, U (save=x keeps nothing).

// CHECK-LABEL: func.func @mlp.forward
// AGU-SAME: -> (tensor<?x96xf32>, tensor<?x200xf32> {fmlp.saved = "a"}, tensor<?x200xf32> {fmlp.saved = "g"}, tensor<?x200xf32> {fmlp.saved = "u"}, tensor<?x8xf32> {fmlp.saved = "z"}, tensor<?x4xf32> {fmlp.saved = "zd"})
// X-SAME: -> tensor<?x96xf32> attributes
// CHECK: %[[Z:.+]] = fmlp.down ins(%arg0, %arg4 : tensor<?x96xf32>, tensor<8x96xf32>)
// AGU: %[[K1:[0-9]+]]:3 = fmlp.gate_up silu ins(%arg0, %arg1, %arg2 : {{.*}}) lora(%[[Z]], %arg5, %arg6 :
// X: %[[K1:[0-9]+]] = fmlp.gate_up silu ins(%arg0, %arg1, %arg2 : {{.*}}) lora(%[[Z]], %arg5, %arg6 :
// CHECK: %[[ZD:.+]] = fmlp.down ins(%[[K1]]{{(#0)?}}, %arg7 : tensor<?x200xf32>, tensor<4x200xf32>)
// CHECK: %[[Y:.+]] = fmlp.down ins(%[[K1]]{{(#0)?}}, %arg3 : {{.*}}) lora(%[[ZD]], %arg8 :
// AGU: return %[[Y]], %[[K1]]#0, %[[K1]]#1, %[[K1]]#2, %[[Z]], %[[ZD]] :
// X: return %[[Y]] :
func.func @mlp.forward(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>,
                       %wd: tensor<96x200xf32>, %a: tensor<8x96xf32>, %bg: tensor<200x8xf32>,
                       %bu: tensor<200x8xf32>, %ad: tensor<4x200xf32>, %bd: tensor<96x4xf32>)
    -> tensor<?x96xf32> attributes {fmlp.entry = "forward"} {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd lora(%a, %bg, %bu) down_lora(%ad, %bd)
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
         tensor<8x96xf32>, tensor<200x8xf32>, tensor<200x8xf32>, tensor<4x200xf32>,
         tensor<96x4xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// The backward: dZd = dY Bd (Bd read as [in, out]) joins K3's contraction
// (dA += md dZd Ad); dZ = [dG dU] [Bg; Bu] (K4's form) joins K4's (dx +=
// dZ A); the adapters' gradients are weight-gradient kernels on Z, Zd, dZ,
// dZd, returned after the weights' in operand order.
// CHECK-LABEL: func.func @mlp.backward
// AGU-SAME: %[[A:[^:]+]]: tensor<?x200xf32> {fmlp.saved = "a"}, %[[G:[^:]+]]: tensor<?x200xf32> {fmlp.saved = "g"}, %[[U:[^:]+]]: tensor<?x200xf32> {fmlp.saved = "u"}, %[[Z:[^:]+]]: tensor<?x8xf32> {fmlp.saved = "z"}, %[[ZD:[^:]+]]: tensor<?x4xf32> {fmlp.saved = "zd"})
// X: %[[Z:.+]] = fmlp.down ins(%arg0, %arg4
// X: %[[K1B:[0-9]+]]:3 = fmlp.gate_up silu {{.*}} lora(%[[Z]], %arg5, %arg6
// X: %[[ZD:.+]] = fmlp.down ins(%[[K1B]]#0, %arg7
// CHECK: %[[DZD:.+]] = fmlp.down ins(%arg9, %arg8 : tensor<?x96xf32>, tensor<96x4xf32>) outs({{.*}}) {down_layout = #fmlp.layout<in_out>} -> tensor<?x4xf32>
// CHECK: %[[K3:.+]]:2 = fmlp.down_grad silu ins(%arg9, %arg3, {{.*}}) lora(%[[DZD]], %arg7 :
// CHECK: %[[DWD:.+]] = fmlp.down_weight_grad ins(%arg9,
// CHECK: %[[DZ:.+]] = fmlp.input_grad ins(%[[K3]]#0, %[[K3]]#1, %arg5, %arg6 : {{.*}}) outs({{.*}}) -> tensor<?x8xf32>
// CHECK: %[[DX:.+]] = fmlp.input_grad ins(%[[K3]]#0, %[[K3]]#1, %arg1, %arg2 : {{.*}}) lora(%[[DZ]], %arg4 :
// CHECK: %[[DW:.+]]:2 = fmlp.gate_up_weight_grad ins(%arg0, %[[K3]]#0, %[[K3]]#1
// CHECK: %[[DLA:.+]] = fmlp.down_weight_grad ins(%[[DZ]], %arg0 : {{.*}}) -> tensor<8x96xf32>
// AGU: %[[DLB:.+]]:2 = fmlp.gate_up_weight_grad ins(%[[Z]], %[[K3]]#0, %[[K3]]#1 : {{.*}}) -> tensor<200x8xf32>, tensor<200x8xf32>
// X: %[[DLB:.+]]:2 = fmlp.gate_up_weight_grad ins(%[[Z]], %[[K3]]#0, %[[K3]]#1 : {{.*}}) -> tensor<200x8xf32>, tensor<200x8xf32>
// CHECK: %[[DAD:.+]] = fmlp.down_weight_grad ins(%[[DZD]], {{.*}}) -> tensor<4x200xf32>
// CHECK: %[[DBD:.+]] = fmlp.down_weight_grad ins(%arg9, %[[ZD]] : {{.*}}) -> tensor<96x4xf32>
// CHECK: return %[[DX]], %[[DW]]#0, %[[DW]]#1, %[[DWD]], %[[DLA]], %[[DLB]]#0, %[[DLB]]#1, %[[DAD]], %[[DBD]] :
func.func @mlp.backward(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>,
                        %wd: tensor<96x200xf32>, %a: tensor<8x96xf32>, %bg: tensor<200x8xf32>,
                        %bu: tensor<200x8xf32>, %ad: tensor<4x200xf32>, %bd: tensor<96x4xf32>,
                        %dy: tensor<?x96xf32>)
    -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
        tensor<8x96xf32>, tensor<200x8xf32>, tensor<200x8xf32>, tensor<4x200xf32>, tensor<96x4xf32>)
    attributes {fmlp.entry = "backward"} {
  %g:9 = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu, down %wd, dy %dy lora(%a, %bg, %bu) down_lora(%ad, %bd)
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
         tensor<?x96xf32>, tensor<8x96xf32>, tensor<200x8xf32>, tensor<200x8xf32>,
         tensor<4x200xf32>, tensor<96x4xf32>)
      -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
          tensor<8x96xf32>, tensor<200x8xf32>, tensor<200x8xf32>, tensor<4x200xf32>, tensor<96x4xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4, %g#5, %g#6, %g#7, %g#8
      : tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>,
        tensor<8x96xf32>, tensor<200x8xf32>, tensor<200x8xf32>, tensor<4x200xf32>, tensor<96x4xf32>
}
