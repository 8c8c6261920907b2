// RUN: fmlp-opt %s --fmlp-attach-target --fmlp-transpose-weights --split-input-file --verify-diagnostics | FileCheck %s
// RUN: fmlp-opt %s --fmlp-attach-target --fmlp-transpose-weights --fmlp-transpose-weights --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=TWICE

// Only entry points (fmlp.entry) get copies: a function without the
// attribute may be called (func.call), and a new argument would break its
// callers. The same op in an entry point reads Wg and Wu K-major copies.
// CHECK-LABEL: func.func private @helper(
// CHECK-SAME: %{{.+}}: memref<?x64xf32>)
// CHECK-NOT: fmlp.transpose
// CHECK: fmlp.input_grad
// CHECK-LABEL: func.func @entry(
// CHECK-SAME: {fmlp.name = "gate_transposed", fmlp.workspace}, %{{.+}}: memref<64x128xf32> {fmlp.name = "up_transposed", fmlp.workspace})
// CHECK-NEXT: fmlp.transpose
// CHECK-NEXT: fmlp.transpose
// CHECK-NEXT: fmlp.input_grad {{.*}} {gate_layout = #fmlp.layout<in_out>, precision = #fmlp.precision<tf32>, up_layout = #fmlp.layout<in_out>}
// A second run finds every weight K-major: nothing more.
// TWICE-LABEL: func.func @entry(
// TWICE-COUNT-2: fmlp.transpose
// TWICE-NOT: fmlp.transpose
// TWICE: return
func.func private @helper(%dg: memref<?x128xf32>, %du: memref<?x128xf32>,
                          %wg: memref<128x64xf32>, %wu: memref<128x64xf32>,
                          %dx: memref<?x64xf32>) {
  fmlp.input_grad ins(%dg, %du, %wg, %wu : memref<?x128xf32>, memref<?x128xf32>, memref<128x64xf32>, memref<128x64xf32>) outs(%dx : memref<?x64xf32>) {precision = #fmlp.precision<tf32>}
  return
}
func.func @entry(%dg: memref<?x128xf32> {fmlp.name = "dg"}, %du: memref<?x128xf32> {fmlp.name = "du"},
                 %wg: memref<128x64xf32> {fmlp.name = "gate"}, %wu: memref<128x64xf32> {fmlp.name = "up"},
                 %dx: memref<?x64xf32> {fmlp.name = "dx"}) attributes {fmlp.entry = "backward"} {
  fmlp.input_grad ins(%dg, %du, %wg, %wu : memref<?x128xf32>, memref<?x128xf32>, memref<128x64xf32>, memref<128x64xf32>) outs(%dx : memref<?x64xf32>) {precision = #fmlp.precision<tf32>}
  return
}

// -----

// After fmlp-select-tiles the choice is made, by the weights' layouts.
#cfg = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 12288, max_registers = 128, reason = "hand-written">
func.func @configured(%dg: memref<?x128xf32> {fmlp.name = "dg"}, %du: memref<?x128xf32> {fmlp.name = "du"},
                      %wg: memref<128x64xf32> {fmlp.name = "gate"}, %wu: memref<128x64xf32> {fmlp.name = "up"},
                      %dx: memref<?x64xf32> {fmlp.name = "dx"}) attributes {fmlp.entry = "backward"} {
  // expected-error @+1 {{'fmlp.input_grad' op has a kernel config already: run fmlp-transpose-weights before fmlp-select-tiles, which chooses by the weights' layouts}}
  fmlp.input_grad ins(%dg, %du, %wg, %wu : memref<?x128xf32>, memref<?x128xf32>, memref<128x64xf32>, memref<128x64xf32>) outs(%dx : memref<?x64xf32>) {precision = #fmlp.precision<tf32>, fmlp.kernel_config = #cfg}
  return
}
