// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles | FileCheck %s --check-prefix=DEFAULT
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles \
// RUN:   -fmlp-small-tokens-gate-up-columns=32 -fmlp-small-tokens-down-columns=32 | FileCheck %s --check-prefix=WIDE
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --convert-fmlp-to-nvvm \
// RUN:   -fmlp-small-tokens-gate-up-columns=32 | FileCheck %s --check-prefix=KERNEL
// RUN: not fmlp-opt %s --fmlp-select-tiles -fmlp-small-tokens-down-columns=24 2>&1 | FileCheck %s --check-prefix=BAD

// Hidden knobs for A/B runs (not the default until measured): small_tokens
// blocks of 32 output columns, 16 warps, K split twice as finely, so that
// each token piece a thread loads serves twice the weight rows (the
// tokens read from L2 half as often at T = 16).
// DEFAULT: small_tokens, tile = [16, 16, 32], stages = 1, cluster = [1, 1], shared_bytes = 16384, {{.*}}K split over 8 warps"
// DEFAULT: small_tokens, tile = [16, 16, 32], stages = 1, cluster = [1, 1], shared_bytes = 8192, {{.*}}K split over 8 warps"
// WIDE: small_tokens, tile = [16, 32, 32], stages = 1, cluster = [1, 1], shared_bytes = 32768, {{.*}}K split over 16 warps"
// WIDE: small_tokens, tile = [16, 32, 32], stages = 1, cluster = [1, 1], shared_bytes = 32768, {{.*}}K split over 16 warps"

// K1 at 32 columns: 512 threads on N / 32 blocks; a chunk loads gate's and
// up's rows n0 + g + 8 i, i < 4 (8 pieces), then its two token tiles; the
// 16 warps' partial sums of both weights (64 KiB) exceed static shared
// memory, so they are added one weight at a time in 32 KiB: a warp's 16
// values of the gate's accumulators stored, the block met, summed, the
// block met again before the up's are stored over them.
// KERNEL: llvm.mlir.global internal @mlp_forward_nograd_k0_gate_up_small_tokens_partial() {{.*}} : !llvm.array<8192 x f32>
// KERNEL-LABEL: llvm.func @mlp_forward_nograd_k0_gate_up_small_tokens(
// KERNEL-SAME: fmlp.block = array<i64: 512, 1, 1>, fmlp.dynamic_shared_bytes = 0 : i64, fmlp.grid_fixed = array<i64: 4, 1, 1>
// KERNEL: griddepcontrol.wait
// KERNEL-COUNT-8: llvm.inline_asm has_side_effects "ld.global.nc.L2::128B.v4.b32
// KERNEL-COUNT-2: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// KERNEL: nvvm.mma.sync
// KERNEL-COUNT-16: llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr<3>
// KERNEL-NEXT: nvvm.barrier0
// KERNEL: nvvm.barrier0
// KERNEL-COUNT-16: llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr<3>
// KERNEL-NEXT: nvvm.barrier0
// KERNEL-LABEL: llvm.func @mlp_forward_nograd_k1_down_small_tokens(
// KERNEL-SAME: fmlp.block = array<i64: 256, 1, 1>

// BAD: for the --fmlp-small-tokens-down-columns option: must be 16 or 32, not '24'
func.func @mlp(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
               %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
