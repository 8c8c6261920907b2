// RUN: fmlp-opt %s --split-input-file --verify-roundtrip | FileCheck %s

// The kernel plan's operations on tensors (results) and on memrefs (no
// results; the outs are written).

// CHECK-LABEL: func.func @kernels_on_tensors
// CHECK: %[[K1:.+]]:3 = fmlp.gate_up silu ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<?x96xbf16>, tensor<200x96xbf16>, tensor<200x96xbf16>) outs(%{{.+}}, %{{.+}}, %{{.+}} : tensor<?x200xbf16>, tensor<?x200xbf16>, tensor<?x200xbf16>) {gate_multiplier = 5.000000e-01 : f64} -> tensor<?x200xbf16>, tensor<?x200xbf16>, tensor<?x200xbf16>
// CHECK: fmlp.down ins(%[[K1]]#0, %{{.+}} : tensor<?x200xbf16>, tensor<96x200xbf16>) outs(%{{.+}} : tensor<?x96xbf16>) -> tensor<?x96xbf16>
// CHECK: %[[K3:.+]]:3 = fmlp.down_grad silu ins(%{{.+}}, %{{.+}}, %[[K1]]#1, %[[K1]]#2 : {{.*}}) outs(%[[K1]]#1, %[[K1]]#2, %{{.+}} : {{.*}}) {gate_multiplier = 5.000000e-01 : f64}
// CHECK: fmlp.down_weight_grad ins(%{{.+}}, %[[K3]]#2 : tensor<?x96xbf16>, tensor<?x200xbf16>) outs(%{{.+}} : tensor<96x200xbf16>) -> tensor<96x200xbf16>
// CHECK: fmlp.input_grad ins(%[[K3]]#0, %[[K3]]#1, %{{.+}}, %{{.+}} : {{.*}}) outs(%{{.+}} : tensor<?x96xbf16>) -> tensor<?x96xbf16>
// CHECK: fmlp.gate_up_weight_grad ins(%{{.+}}, %[[K3]]#0, %[[K3]]#1 : {{.*}}) outs(%{{.+}}, %{{.+}} : tensor<200x96xbf16>, tensor<200x96xbf16>) -> tensor<200x96xbf16>, tensor<200x96xbf16>
func.func @kernels_on_tensors(%x: tensor<?x96xbf16>, %wg: tensor<200x96xbf16>,
                              %wu: tensor<200x96xbf16>, %wd: tensor<96x200xbf16>,
                              %dy: tensor<?x96xbf16>, %h: tensor<?x200xbf16>,
                              %d: tensor<?x96xbf16>, %wgrad: tensor<200x96xbf16>,
                              %wdgrad: tensor<96x200xbf16>) {
  %a, %g, %u = fmlp.gate_up silu ins(%x, %wg, %wu : tensor<?x96xbf16>, tensor<200x96xbf16>, tensor<200x96xbf16>)
      outs(%h, %h, %h : tensor<?x200xbf16>, tensor<?x200xbf16>, tensor<?x200xbf16>) {gate_multiplier = 0.5 : f64}
      -> tensor<?x200xbf16>, tensor<?x200xbf16>, tensor<?x200xbf16>
  %y = fmlp.down ins(%a, %wd : tensor<?x200xbf16>, tensor<96x200xbf16>) outs(%d : tensor<?x96xbf16>) -> tensor<?x96xbf16>
  // K3 also recomputing A (save=gu) for K6.
  %dg, %du, %ra = fmlp.down_grad silu ins(%dy, %wd, %g, %u : tensor<?x96xbf16>, tensor<96x200xbf16>, tensor<?x200xbf16>, tensor<?x200xbf16>)
      outs(%g, %u, %h : tensor<?x200xbf16>, tensor<?x200xbf16>, tensor<?x200xbf16>) {gate_multiplier = 0.5 : f64}
      -> tensor<?x200xbf16>, tensor<?x200xbf16>, tensor<?x200xbf16>
  %dwd = fmlp.down_weight_grad ins(%dy, %ra : tensor<?x96xbf16>, tensor<?x200xbf16>)
      outs(%wdgrad : tensor<96x200xbf16>) -> tensor<96x200xbf16>
  %dx = fmlp.input_grad ins(%dg, %du, %wg, %wu : tensor<?x200xbf16>, tensor<?x200xbf16>, tensor<200x96xbf16>, tensor<200x96xbf16>)
      outs(%d : tensor<?x96xbf16>) -> tensor<?x96xbf16>
  %dwg, %dwu = fmlp.gate_up_weight_grad ins(%x, %dg, %du : tensor<?x96xbf16>, tensor<?x200xbf16>, tensor<?x200xbf16>)
      outs(%wgrad, %wgrad : tensor<200x96xbf16>, tensor<200x96xbf16>) -> tensor<200x96xbf16>, tensor<200x96xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @kernels_on_memrefs
// CHECK: fmlp.gate_up relu ins({{.*}}) outs(%{{.+}} : memref<?x200xf32, strided<[600, 1]>>) {gate_layout = #fmlp.layout<in_out>}
// CHECK-NEXT: fmlp.down ins({{.*}}) outs(%{{.+}} : memref<?x96xf32>)
// CHECK-NEXT: fmlp.gate_up_weight_grad ins({{.*}}) outs(%{{.+}}, %{{.+}} : memref<96x200xf32>, memref<200x96xf32>) {accumulate, gate_layout = #fmlp.layout<in_out>}
func.func @kernels_on_memrefs(%x: memref<?x96xf32>, %wg: memref<96x200xf32>, %wu: memref<200x96xf32>,
                              %wd: memref<96x200xf32>, %a: memref<?x200xf32, strided<[600, 1]>>,
                              %y: memref<?x96xf32>, %dg: memref<?x200xf32>, %du: memref<?x200xf32>,
                              %dwg: memref<96x200xf32>, %dwu: memref<200x96xf32>) {
  fmlp.gate_up relu ins(%x, %wg, %wu : memref<?x96xf32>, memref<96x200xf32>, memref<200x96xf32>)
      outs(%a : memref<?x200xf32, strided<[600, 1]>>) {gate_layout = #fmlp.layout<in_out>}
  fmlp.down ins(%a, %wd : memref<?x200xf32, strided<[600, 1]>>, memref<96x200xf32>) outs(%y : memref<?x96xf32>)
  fmlp.gate_up_weight_grad ins(%x, %dg, %du : memref<?x96xf32>, memref<?x200xf32>, memref<?x200xf32>)
      outs(%dwg, %dwu : memref<96x200xf32>, memref<200x96xf32>) {gate_layout = #fmlp.layout<in_out>, accumulate}
  return
}

// -----

// Biases in K1 and K2, and a bias gradient.
// CHECK-LABEL: func.func @biases
// CHECK: fmlp.gate_up silu ins({{.*}}) gate_bias(%{{.+}} : memref<200xf32>) up_bias(%{{.+}} : memref<200xf32>) outs(
// CHECK: fmlp.down ins({{.*}}) down_bias(%{{.+}} : memref<96xf32>) outs(
// CHECK: fmlp.bias_grad ins(%{{.+}} : memref<?x96xf32>) outs(%{{.+}} : memref<96xf32>) {accumulate, scale = 5.000000e-01 : f64}
func.func @biases(%x: memref<?x96xf32>, %wg: memref<200x96xf32>, %wu: memref<200x96xf32>,
                  %wd: memref<96x200xf32>, %bg: memref<200xf32>, %bu: memref<200xf32>,
                  %bd: memref<96xf32>, %a: memref<?x200xf32>, %y: memref<?x96xf32>,
                  %dbd: memref<96xf32>) {
  fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x96xf32>, memref<200x96xf32>, memref<200x96xf32>)
      gate_bias(%bg : memref<200xf32>) up_bias(%bu : memref<200xf32>) outs(%a : memref<?x200xf32>)
  fmlp.down ins(%a, %wd : memref<?x200xf32>, memref<96x200xf32>) down_bias(%bd : memref<96xf32>)
      outs(%y : memref<?x96xf32>)
  fmlp.bias_grad ins(%y : memref<?x96xf32>) outs(%dbd : memref<96xf32>) {scale = 0.5 : f64, accumulate}
  return
}

// -----

// fmlp.gate: K1's gate projection alone (save=u's backward), with its bias
// and multiplier, in either weight layout.
// CHECK-LABEL: func.func @gate_alone
// CHECK: fmlp.gate ins(%{{.+}}, %{{.+}} : tensor<?x96xbf16>, tensor<200x96xbf16>) gate_bias(%{{.+}} : tensor<200xbf16>) outs(%{{.+}} : tensor<?x200xbf16>) {gate_multiplier = 5.000000e-01 : f64} -> tensor<?x200xbf16>
// CHECK: fmlp.gate ins(%{{.+}}, %{{.+}} : memref<?x96xf32>, memref<96x200xf32>) outs(%{{.+}} : memref<?x200xf32>) {gate_layout = #fmlp.layout<in_out>}
func.func @gate_alone(%x: tensor<?x96xbf16>, %wg: tensor<200x96xbf16>, %bg: tensor<200xbf16>,
                      %h: tensor<?x200xbf16>, %xm: memref<?x96xf32>, %wgm: memref<96x200xf32>,
                      %gm: memref<?x200xf32>) -> tensor<?x200xbf16> {
  %g = fmlp.gate ins(%x, %wg : tensor<?x96xbf16>, tensor<200x96xbf16>) gate_bias(%bg : tensor<200xbf16>)
      outs(%h : tensor<?x200xbf16>) {gate_multiplier = 0.5 : f64} -> tensor<?x200xbf16>
  fmlp.gate ins(%xm, %wgm : memref<?x96xf32>, memref<96x200xf32>) outs(%gm : memref<?x200xf32>)
      {gate_layout = #fmlp.layout<in_out>}
  return %g : tensor<?x200xbf16>
}

// -----

// Adapter terms (docs/LoRA.md): K1's lora(Z, Bg, Bu), K2's lora(Zd, Bd),
// K3's lora(dZd, Ad), K4's lora(dZ, A_cat).
// CHECK-LABEL: func.func @lora_terms
// CHECK: fmlp.gate_up silu ins({{.*}}) lora(%{{.+}}, %{{.+}}, %{{.+}} : memref<?x8xbf16>, memref<200x8xbf16>, memref<200x8xbf16>) outs(
// CHECK: fmlp.down ins({{.*}}) lora(%{{.+}}, %{{.+}} : memref<?x4xbf16>, memref<96x4xbf16>) outs(
// CHECK: fmlp.down_grad silu ins({{.*}}) lora(%{{.+}}, %{{.+}} : memref<?x4xbf16>, memref<4x200xbf16>) outs(
// CHECK: fmlp.input_grad ins({{.*}}) lora(%{{.+}}, %{{.+}} : memref<?x8xbf16>, memref<8x96xbf16>) outs(
func.func @lora_terms(%x: memref<?x96xbf16>, %wg: memref<200x96xbf16>, %wu: memref<200x96xbf16>,
                      %wd: memref<96x200xbf16>, %la: memref<8x96xbf16>, %bg: memref<200x8xbf16>,
                      %bu: memref<200x8xbf16>, %ad: memref<4x200xbf16>, %bd: memref<96x4xbf16>,
                      %z: memref<?x8xbf16>, %zd: memref<?x4xbf16>, %a: memref<?x200xbf16>,
                      %g: memref<?x200xbf16>, %u: memref<?x200xbf16>, %y: memref<?x96xbf16>) {
  fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x96xbf16>, memref<200x96xbf16>, memref<200x96xbf16>) lora(%z, %bg, %bu : memref<?x8xbf16>, memref<200x8xbf16>, memref<200x8xbf16>) outs(%a, %g, %u : memref<?x200xbf16>, memref<?x200xbf16>, memref<?x200xbf16>)
  fmlp.down ins(%a, %wd : memref<?x200xbf16>, memref<96x200xbf16>) lora(%zd, %bd : memref<?x4xbf16>, memref<96x4xbf16>) outs(%y : memref<?x96xbf16>)
  fmlp.down_grad silu ins(%y, %wd, %g, %u : memref<?x96xbf16>, memref<96x200xbf16>, memref<?x200xbf16>, memref<?x200xbf16>) lora(%zd, %ad : memref<?x4xbf16>, memref<4x200xbf16>) outs(%g, %u : memref<?x200xbf16>, memref<?x200xbf16>)
  fmlp.input_grad ins(%g, %u, %wg, %wu : memref<?x200xbf16>, memref<?x200xbf16>, memref<200x96xbf16>, memref<200x96xbf16>) lora(%z, %la : memref<?x8xbf16>, memref<8x96xbf16>) outs(%y : memref<?x96xbf16>)
  return
}

// -----

// fmlp.transpose: a weight copied into the other layout (fmlp-transpose-
// weights), on memrefs and on tensors.
// CHECK-LABEL: func.func @transpose
// CHECK: fmlp.transpose ins(%{{.+}} : memref<96x200xf32>) outs(%{{.+}} : memref<200x96xf32>)
// CHECK: fmlp.transpose ins(%{{.+}} : tensor<96x200xbf16>) outs(%{{.+}} : tensor<200x96xbf16>) -> tensor<200x96xbf16>
func.func @transpose(%w: memref<96x200xf32>, %wt: memref<200x96xf32>,
                     %v: tensor<96x200xbf16>, %vt: tensor<200x96xbf16>) -> tensor<200x96xbf16> {
  fmlp.transpose ins(%w : memref<96x200xf32>) outs(%wt : memref<200x96xf32>)
  %t = fmlp.transpose ins(%v : tensor<96x200xbf16>) outs(%vt : tensor<200x96xbf16>) -> tensor<200x96xbf16>
  return %t : tensor<200x96xbf16>
}

// -----

// Weight copies rounded to tf32 (fmlp-round-tf32-weights): a transpose that
// rounds, and a copy in the same layout.
// CHECK-LABEL: func.func @rounded_copies
// CHECK: fmlp.transpose ins(%{{.+}} : memref<96x200xf32>) outs(%{{.+}} : memref<200x96xf32>) {round_to_tf32}
// CHECK: fmlp.round_to_tf32 ins(%{{.+}} : memref<96x200xf32>) outs(%{{.+}} : memref<96x200xf32>)
// CHECK: fmlp.round_to_tf32 ins(%{{.+}} : tensor<96x200xf32>) outs(%{{.+}} : tensor<96x200xf32>) -> tensor<96x200xf32>
func.func @rounded_copies(%w: memref<96x200xf32>, %wt: memref<200x96xf32>,
                          %wr: memref<96x200xf32>, %v: tensor<96x200xf32>,
                          %vr: tensor<96x200xf32>) -> tensor<96x200xf32> {
  fmlp.transpose ins(%w : memref<96x200xf32>) outs(%wt : memref<200x96xf32>) {round_to_tf32}
  fmlp.round_to_tf32 ins(%w : memref<96x200xf32>) outs(%wr : memref<96x200xf32>)
  %r = fmlp.round_to_tf32 ins(%v : tensor<96x200xf32>) outs(%vr : tensor<96x200xf32>) -> tensor<96x200xf32>
  return %r : tensor<96x200xf32>
}
