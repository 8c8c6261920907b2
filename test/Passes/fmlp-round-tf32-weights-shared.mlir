// RUN: fmlp-opt %s --fmlp-round-tf32-weights | FileCheck %s

// A weight or a transposed copy that a kernel of another precision reads
// too (not a plan fmlp-fuse makes: one precision per block; built by hand):
// the rounded copy goes to the tf32 WGMMA kernel alone, and the transposed
// copy that a tf32x3 kernel also reads stays exact (tf32x3 splits it; the
// tf32 kernel then multiplies it truncated).
// CHECK-LABEL: func.func @shared(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?x64xf32> {fmlp.name = "x"}, %[[WG:[a-z0-9]+]]: memref<128x64xf32> {fmlp.name = "gate"}, %[[WU:[a-z0-9]+]]: memref<128x64xf32> {fmlp.name = "up"}
// CHECK-SAME: %[[WGR:[a-z0-9]+]]: memref<128x64xf32> {fmlp.name = "gate_tf32", fmlp.workspace}, %[[WUR:[a-z0-9]+]]: memref<128x64xf32> {fmlp.name = "up_tf32", fmlp.workspace})
// CHECK-NEXT: fmlp.round_to_tf32 ins(%[[WG]] : memref<128x64xf32>) outs(%[[WGR]] : memref<128x64xf32>)
// CHECK-NEXT: fmlp.round_to_tf32 ins(%[[WU]] : memref<128x64xf32>) outs(%[[WUR]] : memref<128x64xf32>)
// CHECK-NEXT: fmlp.transpose ins(%[[WG]] : memref<128x64xf32>) outs(%{{.+}} : memref<64x128xf32>){{$}}
// CHECK-NEXT: fmlp.transpose ins(%[[WU]] : memref<128x64xf32>) outs(%{{.+}} : memref<64x128xf32>){{$}}
// CHECK-NEXT: fmlp.gate_up silu ins(%[[X]], %[[WGR]], %[[WUR]] : {{.*}}) outs({{.*}}) {fmlp.tf32_rounded, precision = #fmlp.precision<tf32>}
// CHECK-NEXT: fmlp.gate_up silu ins(%[[X]], %[[WG]], %[[WU]] : {{.*}}) outs({{.*}}) {precision = #fmlp.precision<ieee>}
// CHECK-NEXT: fmlp.input_grad {{.*}} {fmlp.tf32_rounded, gate_layout = #fmlp.layout<in_out>, precision = #fmlp.precision<tf32>, up_layout = #fmlp.layout<in_out>}
// CHECK-NEXT: fmlp.input_grad {{.*}} {gate_layout = #fmlp.layout<in_out>, precision = #fmlp.precision<tf32x3>, up_layout = #fmlp.layout<in_out>}
module attributes {fmlp.target = #fmlp.target<"sm_90a">} {
  func.func @shared(%x: memref<?x64xf32> {fmlp.name = "x"},
                    %wg: memref<128x64xf32> {fmlp.name = "gate"},
                    %wu: memref<128x64xf32> {fmlp.name = "up"},
                    %a: memref<?x128xf32> {fmlp.name = "a"},
                    %a2: memref<?x128xf32> {fmlp.name = "a2"},
                    %dg: memref<?x128xf32> {fmlp.name = "dg"},
                    %du: memref<?x128xf32> {fmlp.name = "du"},
                    %dx: memref<?x64xf32> {fmlp.name = "dx"},
                    %dx2: memref<?x64xf32> {fmlp.name = "dx2"},
                    %wgt: memref<64x128xf32> {fmlp.name = "gate_transposed", fmlp.workspace},
                    %wut: memref<64x128xf32> {fmlp.name = "up_transposed", fmlp.workspace})
      attributes {fmlp.chunk_tokens = 0 : i64, fmlp.entry = "forward_nograd"} {
    fmlp.transpose ins(%wg : memref<128x64xf32>) outs(%wgt : memref<64x128xf32>)
    fmlp.transpose ins(%wu : memref<128x64xf32>) outs(%wut : memref<64x128xf32>)
    fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x64xf32>, memref<128x64xf32>, memref<128x64xf32>) outs(%a : memref<?x128xf32>) {precision = #fmlp.precision<tf32>}
    fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x64xf32>, memref<128x64xf32>, memref<128x64xf32>) outs(%a2 : memref<?x128xf32>) {precision = #fmlp.precision<ieee>}
    fmlp.input_grad ins(%dg, %du, %wgt, %wut : memref<?x128xf32>, memref<?x128xf32>, memref<64x128xf32>, memref<64x128xf32>) outs(%dx : memref<?x64xf32>) {gate_layout = #fmlp.layout<in_out>, precision = #fmlp.precision<tf32>, up_layout = #fmlp.layout<in_out>}
    fmlp.input_grad ins(%dg, %du, %wgt, %wut : memref<?x128xf32>, memref<?x128xf32>, memref<64x128xf32>, memref<64x128xf32>) outs(%dx2 : memref<?x64xf32>) {gate_layout = #fmlp.layout<in_out>, precision = #fmlp.precision<tf32x3>, up_layout = #fmlp.layout<in_out>}
    return
  }
}
