// RUN: fmlp-opt %s --split-input-file --fmlp-fuse=fp32-precision=tf32x3 | FileCheck %s
// RUN: fmlp-opt %s --split-input-file --fmlp-fuse | FileCheck %s --check-prefix=IEEE
// RUN: fmlp-opt %s --split-input-file --fmlp-fuse=fp32-precision=highest | FileCheck %s --check-prefix=HIGHEST
// RUN: not fmlp-opt %s --split-input-file --fmlp-fuse=fp32-precision=3xtf32 2>&1 | FileCheck %s --check-prefix=BAD

// fp32-precision gives fp32 blocks that state no precision their
// contractions' format (the pipelines' --precision); the entry point
// records it for the bundle's manifest. ieee, fp32's own, stays implicit.
// CHECK-LABEL: func.func @f32.forward
// CHECK-SAME: fmlp.precision = "tf32x3"
// CHECK: fmlp.gate_up {{.*}}precision = #fmlp.precision<tf32x3>
// CHECK: fmlp.down {{.*}}precision = #fmlp.precision<tf32x3>
// IEEE-LABEL: func.func @f32.forward
// IEEE-SAME: fmlp.precision = "ieee"
// IEEE-NOT: #fmlp.precision
// HIGHEST-LABEL: func.func @f32.forward
// HIGHEST-SAME: fmlp.precision = "highest"
// HIGHEST: fmlp.gate_up {{.*}}precision = #fmlp.precision<highest>
// BAD: fmlp-fuse: fp32-precision must be ieee, highest, tf32 or tf32x3, got '3xtf32'
func.func @f32.forward(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>,
                       %wd: tensor<96x200xf32>) -> tensor<?x96xf32>
    attributes {fmlp.entry = "forward"} {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>)
      -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// A block's own precision wins.
// CHECK-LABEL: func.func @own.forward
// IEEE-LABEL: func.func @own.forward
// CHECK-SAME: fmlp.precision = "tf32"
// CHECK: fmlp.gate_up {{.*}}precision = #fmlp.precision<tf32>
func.func @own.forward(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>,
                       %wd: tensor<96x200xf32>) -> tensor<?x96xf32>
    attributes {fmlp.entry = "forward"} {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<tf32>}
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>)
      -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// 16-bit blocks keep their own format: their products are exact.
// CHECK-LABEL: func.func @bf16.forward
// CHECK-SAME: fmlp.precision = "bf16"
// CHECK-NOT: #fmlp.precision
// CHECK: return
func.func @bf16.forward(%x: tensor<?x96xbf16>, %wg: tensor<200x96xbf16>, %wu: tensor<200x96xbf16>,
                        %wd: tensor<96x200xbf16>) -> tensor<?x96xbf16>
    attributes {fmlp.entry = "forward"} {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xbf16>, tensor<200x96xbf16>, tensor<200x96xbf16>, tensor<96x200xbf16>)
      -> tensor<?x96xbf16>
  return %y : tensor<?x96xbf16>
}
