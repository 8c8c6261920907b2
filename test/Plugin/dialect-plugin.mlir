// The stock mlir-opt-22 loads fmlp as a dialect plugin: the ops parse,
// verify and round-trip (textual and bytecode) there exactly as in fmlp-opt.
// RUN: %mlir_opt %s --load-dialect-plugin=%fmlp_plugin --split-input-file --verify-roundtrip | FileCheck %s
// RUN: %mlir_opt %s --load-dialect-plugin=%fmlp_plugin --split-input-file --mlir-print-op-generic | %mlir_opt --load-dialect-plugin=%fmlp_plugin --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @forward
// CHECK: fmlp.gated_mlp silu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} {gate_layout = #fmlp.layout<in_out>} : (tensor<?x4096xbf16>, tensor<4096x11008xbf16>, tensor<11008x4096xbf16>, tensor<4096x11008xbf16>) -> tensor<?x4096xbf16>
func.func @forward(%x: tensor<?x4096xbf16>, %wg: tensor<4096x11008xbf16>,
                   %wu: tensor<11008x4096xbf16>, %wd: tensor<4096x11008xbf16>)
    -> tensor<?x4096xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      {gate_layout = #fmlp.layout<in_out>}
      : (tensor<?x4096xbf16>, tensor<4096x11008xbf16>, tensor<11008x4096xbf16>,
         tensor<4096x11008xbf16>) -> tensor<?x4096xbf16>
  return %y : tensor<?x4096xbf16>
}

// -----

// CHECK-LABEL: func.func @backward
// CHECK: fmlp.gated_mlp_grad relu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}}, dy %{{.+}} down_bias %{{.+}} {precision = #fmlp.precision<ieee>}
func.func @backward(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                    %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                    %dy: tensor<?x96xf32>, %bd: tensor<96xf32>) -> tensor<96xf32> {
  %dx, %dwg, %dwu, %dwd, %dbd = fmlp.gated_mlp_grad relu %x, gate %wg, up %wu,
      down %wd, dy %dy down_bias %bd {precision = #fmlp.precision<ieee>}
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<96x200xf32>, tensor<?x96xf32>, tensor<96xf32>)
      -> (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
          tensor<96x200xf32>, tensor<96xf32>)
  return %dbd : tensor<96xf32>
}
