// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-select-tiles --split-input-file | FileCheck %s
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-select-tiles="chip=sm_80" --split-input-file | FileCheck %s --check-prefix=SM80
// RUN: fmlp-opt %s --fmlp-plan-pipeline="save=gu" --fmlp-select-tiles --split-input-file | FileCheck %s --check-prefix=GU

// bf16 in nn.Linear's layout on sm_90a: every kernel on WGMMA, 128 x 128
// tiles for K1's two accumulators, 128 x 256 for the others, 4 stages of
// 48 KiB (197632 B with the barriers, under 232448).
// CHECK-LABEL: func.func @mlp.forward
// CHECK: fmlp.gate_up {{.*}}fmlp.kernel_config = {max_registers = 168 : i64, path = "wgmma", reason = "16-bit operands in TMA-addressable views on sm_90a", shared_bytes = 197632 : i64, stages = 4 : i64, tile_k = 64 : i64, tile_m = 128 : i64, tile_n = 128 : i64}
// CHECK: fmlp.down {{.*}}path = "wgmma"{{.*}}tile_n = 256
// CHECK-LABEL: func.func @mlp.backward
// CHECK: fmlp.down_weight_grad {{.*}}path = "wgmma"
// CHECK: fmlp.down_grad {{.*}}path = "wgmma"
// CHECK: fmlp.input_grad {{.*}}path = "wgmma"
// CHECK: fmlp.gate_up_weight_grad {{.*}}path = "wgmma"
// save=gu recomputes A from G and U inside K6's loads: K6 stays SIMT.
// GU-LABEL: func.func @mlp.backward
// GU: fmlp.down_weight_grad {{.*}}path = "simt", reason = "A is recomputed from G and U as it is loaded (save=gu)"
// GU: fmlp.down_grad {{.*}}path = "wgmma"
// SM80-COUNT-8: path = "simt", reason = "sm_80 has no WGMMA", shared_bytes = {{8192|12288}} : i64
func.func @mlp(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
               %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// -----

// fp32 takes the IEEE SIMT path: 64 x 64 x 16 tiles in f32 shared memory.
// CHECK-LABEL: func.func @f32.forward
// CHECK: fmlp.gate_up {{.*}}path = "simt", reason = "fp32 operands take the IEEE fp32 SIMT path", shared_bytes = 12288 : i64, stages = 1 : i64, tile_k = 16 : i64, tile_m = 64 : i64, tile_n = 64 : i64
func.func @f32(%x: tensor<?x64xf32>, %wg: tensor<128x64xf32>, %wu: tensor<128x64xf32>,
               %wd: tensor<64x128xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// Rows of 36 bf16 (72 B) are not 16-byte aligned: no tensor map, SIMT.
// CHECK-LABEL: func.func @unaligned.forward
// CHECK: fmlp.gate_up {{.*}}path = "simt", reason = "x has rows or an offset not 16-byte aligned"
func.func @unaligned(%x: tensor<?x36xbf16>, %wg: tensor<128x36xbf16>, %wu: tensor<128x36xbf16>,
                     %wd: tensor<36x128xbf16>) -> tensor<?x36xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x36xbf16>, tensor<128x36xbf16>, tensor<128x36xbf16>, tensor<36x128xbf16>) -> tensor<?x36xbf16>
  return %y : tensor<?x36xbf16>
}

