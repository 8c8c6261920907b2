// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --convert-fmlp-to-nvvm | FileCheck %s
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --convert-fmlp-to-nvvm \
// RUN:   -fmlp-small-tokens-l2-prefetch=0 -fmlp-small-tokens-weights-l1=allocate | FileCheck %s --check-prefix=PLAIN
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --convert-fmlp-to-nvvm \
// RUN:   -fmlp-small-tokens-weights-l1=skip | FileCheck %s --check-prefix=SKIP-L1
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --convert-fmlp-to-nvvm \
// RUN:   -fmlp-small-tokens-weights-l1=skip-nograd | FileCheck %s --check-prefix=SKIP-NOGRAD
// RUN: not fmlp-opt %s --convert-fmlp-to-nvvm -fmlp-small-tokens-weights-l1=never 2>&1 | FileCheck %s --check-prefix=BAD-L1
// RUN: not fmlp-opt %s --convert-fmlp-to-nvvm -fmlp-small-tokens-l2-prefetch=96 2>&1 | FileCheck %s --check-prefix=BAD

// The small_tokens kernels stream the weights: each 16-byte piece is read
// by one thread once, and the next chunk reads the rest of its line, so
// its load asks L2 for the whole 128-byte line (inline PTX: LLVM's load
// cannot say it), after the no-grad forward's griddepcontrol.wait; the
// tokens, which every block reads, stay plain loads. A chunk of K1 loads
// gate's and up's rows n0 + g and n0 + g + 8 (4 pieces), then its two
// token tiles (2); K2 the down weight's two rows, then its tokens.
// CHECK-LABEL: llvm.func @mlp_forward_nograd_k0_gate_up_small_tokens(
// CHECK: griddepcontrol.wait
// CHECK-COUNT-4: llvm.inline_asm has_side_effects "ld.global.nc.L2::128B.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l" %{{.+}} : (!llvm.ptr<1>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-2: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: nvvm.mma.sync
// CHECK-LABEL: llvm.func @mlp_forward_nograd_k1_down_small_tokens(
// CHECK: griddepcontrol.wait
// CHECK-COUNT-2: llvm.inline_asm has_side_effects "ld.global.nc.L2::128B.v4.b32
// CHECK-COUNT-2: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: nvvm.mma.sync

// Without the qualifiers (the hidden knobs, for A/B runs) every piece is
// a plain 16-byte load.
// PLAIN-LABEL: llvm.func @mlp_forward_nograd_k0_gate_up_small_tokens(
// PLAIN-NOT: ld.global
// PLAIN-COUNT-6: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// PLAIN-NOT: ld.global
// PLAIN: nvvm.mma.sync

// The hidden knob that also skips L1 (measured, not the default), in
// every small_tokens kernel or only in the no-grad forward's (the training
// forward's kernels are others: the same GEMM, other outputs).
// SKIP-L1-LABEL: llvm.func @mlp_forward_k0_gate_up_small_tokens(
// SKIP-L1: llvm.inline_asm has_side_effects "ld.global.nc.L1::no_allocate.L2::128B.v4.b32
// SKIP-L1-LABEL: llvm.func @mlp_forward_nograd_k0_gate_up_small_tokens(
// SKIP-L1: llvm.inline_asm has_side_effects "ld.global.nc.L1::no_allocate.L2::128B.v4.b32
// SKIP-NOGRAD-LABEL: llvm.func @mlp_forward_k0_gate_up_small_tokens(
// SKIP-NOGRAD-NOT: no_allocate
// SKIP-NOGRAD: llvm.inline_asm has_side_effects "ld.global.nc.L2::128B.v4.b32
// SKIP-NOGRAD-LABEL: llvm.func @mlp_forward_k1_down_small_tokens(
// SKIP-NOGRAD-NOT: no_allocate
// SKIP-NOGRAD: llvm.inline_asm has_side_effects "ld.global.nc.L2::128B.v4.b32
// SKIP-NOGRAD-LABEL: llvm.func @mlp_forward_nograd_k0_gate_up_small_tokens(
// SKIP-NOGRAD: llvm.inline_asm has_side_effects "ld.global.nc.L1::no_allocate.L2::128B.v4.b32
// SKIP-NOGRAD-LABEL: llvm.func @mlp_forward_nograd_k1_down_small_tokens(
// SKIP-NOGRAD: llvm.inline_asm has_side_effects "ld.global.nc.L1::no_allocate.L2::128B.v4.b32

// BAD-L1: for the --fmlp-small-tokens-weights-l1 option: Cannot find option named 'never'!

// BAD: for the --fmlp-small-tokens-l2-prefetch option: must be 0, 64, 128 or 256, not '96'
func.func @mlp(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
               %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
