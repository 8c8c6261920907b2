// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file | FileCheck %s
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target="chip=sm_80" --fmlp-select-tiles --split-input-file | FileCheck %s --check-prefix=SM80
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target="chip=sm_100a" --fmlp-select-tiles --split-input-file | FileCheck %s --check-prefix=SM100A
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target="chip=sm_120a" --fmlp-select-tiles --split-input-file | FileCheck %s --check-prefix=SM120A
// RUN: fmlp-opt %s --fmlp-plan-pipeline="save=gu" --fmlp-attach-target --fmlp-select-tiles --split-input-file | FileCheck %s --check-prefix=GU
// RUN: fmlp-opt %s --fmlp-plan-pipeline="save=u" --fmlp-attach-target --fmlp-select-tiles --split-input-file | FileCheck %s --check-prefix=SAVEU
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-token-tiles=down:300:128:1,input_grad:300:128:3 | FileCheck %s --check-prefix=FORCED
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-token-tiles=down:300:64:2 2>&1 | FileCheck %s --check-prefix=FORCEDBAD
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-token-tiles=down:300:96:1 2>&1 | FileCheck %s --check-prefix=FORCEDMALFORMED
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-tf32x3-wgmma=false | FileCheck %s --check-prefix=X3MMA
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles=strategy=mma_sync --split-input-file | FileCheck %s --check-prefix=MMA
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles=strategy=simt --split-input-file | FileCheck %s --check-prefix=SIMT
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles=strategy=mma_sync --split-input-file | FileCheck %s --check-prefix=GRID
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles=strategy=mma_sync --fmlp-mma-sync-grid-tiles=false --split-input-file | FileCheck %s --check-prefix=NOGRID
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target="chip=sm_80" --fmlp-select-tiles --split-input-file | FileCheck %s --check-prefix=GRID80
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target="chip=sm_120a" --fmlp-select-tiles --split-input-file | FileCheck %s --check-prefix=GRID120
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-small-tokens-max=32 | FileCheck %s --check-prefix=SMALL32
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-tf32-wgmma=false | FileCheck %s --check-prefix=TF32MMA
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-tf32-wgmma-mn-major=false | FileCheck %s --check-prefix=TF32UNTRANSPOSED
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles=strategy=wmma --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: fmlp-select-tiles: strategy must be auto, mma_sync or simt, got 'wmma'
// FORCEDBAD: error: --fmlp-token-tiles: 'down:300:64:2' splits K of a kernel that may not (two accumulators, or a bias in its epilogue)
// FORCEDMALFORMED: error: --fmlp-token-tiles takes op:max_tokens:tile_n:split_k (max_tokens 1..65536, tile_n 64..256 in steps of 64), got 'down:300:96:1'
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-token-tiles=gate_up:300:256:1 2>&1 | FileCheck %s --check-prefix=FORCEDWIDE
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-token-tiles=weight_grad:300:128:1 2>&1 | FileCheck %s --check-prefix=FORCEDOP
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-token-tiles=down:512:128:1,down:300:128:1 2>&1 | FileCheck %s --check-prefix=FORCEDORDER
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-token-tiles=down:32:128:1 2>&1 | FileCheck %s --check-prefix=FORCEDSMALL
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --split-input-file --fmlp-token-tiles=down:100000:128:1 2>&1 | FileCheck %s --check-prefix=FORCEDHUGE
// FORCEDWIDE: error: --fmlp-token-tiles: 'gate_up:300:256:1': 2 accumulators of 256 columns exceed 256
// FORCEDOP: error: --fmlp-token-tiles: 'weight_grad:300:128:1' names no kernel op with token variants (gate_up, down, down_grad, input_grad)
// FORCEDORDER: error: --fmlp-token-tiles: 'down:300:128:1' must serve more tokens than the down entry before it (max_tokens 512)
// FORCEDSMALL: error: --fmlp-token-tiles: 'down:32:128:1' serves tokens the small_tokens variant (T <= 32) already does
// FORCEDHUGE: error: --fmlp-token-tiles takes op:max_tokens:tile_n:split_k (max_tokens 1..65536, tile_n 64..256 in steps of 64), got 'down:100000:128:1'

// The decision per chip, element type and shape, as the typed
// #fmlp.kernel_config that convert-fmlp-to-nvvm follows.

// bf16 in nn.Linear's layout on sm_90a: every kernel on WGMMA, 128 x 128
// tiles for K1's two accumulators, 128 x 256 for the others, 4 stages of
// 48 KiB (197632 B with the barriers, under 232448), except those whose N
// fits in one 64-column box (K2, K4, K5: N = D = 64): one box wide, 6
// stages.
// K1 and K2 (M = T, weights K-major) also get the variant for T <= 16:
// the small_tokens kernel, 8 KiB of partial sums per accumulator. K3..K6
// do not (K3 reads nn.Linear's Wd along its rows: MN-major). K3 (N = 128)
// gets the time model's WGMMA variant for T <= 2048
// (codegen/TileSelection.h): 64-wide tiles, 6 stages.
// CHECK-LABEL: func.func @mlp.forward
// CHECK: fmlp.gate_up {{.*}}fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "16-bit operands in TMA-addressable views on sm_90a">, fmlp.token_variants = [#fmlp.kernel_config<strategy = small_tokens, tile = [16, 16, 32], stages = 1, cluster = [1, 1], shared_bytes = 16384, max_registers = 128, reason = "T <= 16: the weights streamed through mma.sync on sm_90a, K split over 8 warps", max_tokens = 16>]}
// CHECK: fmlp.down {{.*}}strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 148480{{.*}}fmlp.token_variants = [#fmlp.kernel_config<strategy = small_tokens, {{.*}}shared_bytes = 8192, {{.*}}max_tokens = 16>]}
// An A/B knob: small_tokens kernels for T <= 32 (8 warps' partial sums of
// 32 tokens: twice the shared memory); 16 and 32 only
// (test/Tools/hidden-options.test).
// SMALL32: fmlp.gate_up {{.*}}fmlp.token_variants = [#fmlp.kernel_config<strategy = small_tokens, tile = [32, 16, 32], {{.*}}shared_bytes = 32768, {{.*}}reason = "T <= 32: {{.*}}max_tokens = 32>]}
// SMALL32: fmlp.down {{.*}}fmlp.token_variants = [#fmlp.kernel_config<strategy = small_tokens, tile = [32, 16, 32], {{.*}}shared_bytes = 16384, {{.*}}max_tokens = 32>, #fmlp.kernel_config<strategy = wgmma
// CHECK-LABEL: func.func @mlp.backward
// CHECK-NOT: small_tokens
// CHECK: fmlp.down_grad {{.*}}strategy = wgmma{{.*}}fmlp.token_variants = [#fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], {{.*}}max_tokens = 2048>]}
// CHECK: fmlp.down_weight_grad {{.*}}strategy = wgmma
// CHECK-NOT: token_variants
// CHECK-SAME: {{$}}
// CHECK: fmlp.input_grad {{.*}}strategy = wgmma, tile = [128, 64, 64], stages = 6
// CHECK-NOT: token_variants
// CHECK-SAME: {{$}}
// CHECK: fmlp.gate_up_weight_grad {{.*}}strategy = wgmma
// CHECK-NOT: token_variants
// CHECK-SAME: {{$}}
// CHECK-NOT: small_tokens
// CHECK-LABEL: func.func @mlp.forward_nograd
// CHECK: fmlp.gate_up {{.*}}token_variants = [#fmlp.kernel_config<strategy = small_tokens
// CHECK: fmlp.down {{.*}}token_variants = [#fmlp.kernel_config<strategy = small_tokens
// save=gu: K3 recomputes A into a buffer in its epilogue, so that K6 reads
// it through TMA like save=agu's saved A.
// GU-LABEL: func.func @mlp.backward
// GU: fmlp.down_grad {{.*}}strategy = wgmma
// GU: fmlp.down_weight_grad {{.*}}strategy = wgmma, tile = [128, 128, 64]
// save=u: the recomputed G and the dU that K3 writes are adjacent columns
// of the workspace, so K4 and K5 read [dG dU] through one tensor map
// (else they would fall back to SIMT); K6 reads the A that K3 writes over
// the saved U.
// SAVEU-LABEL: func.func @mlp.backward
// SAVEU: fmlp.gate {{.*}}strategy = wgmma
// SAVEU: fmlp.down_grad {{.*}}strategy = wgmma
// SAVEU: fmlp.down_weight_grad {{.*}}strategy = wgmma
// SAVEU: fmlp.input_grad {{.*}}strategy = wgmma
// SAVEU: fmlp.gate_up_weight_grad {{.*}}strategy = wgmma
// Chips without WGMMA: the mma_sync kernels, 128 x 256 tiles (128 per
// accumulator for K1's two; 192 columns for the weight gradients, whose
// one tile then does less: staticGridTileN). Where the chip has TMA (sm_90a, sm_100a,
// sm_120a), one thread loads the operands by TMA in k-tiles of 64 (rows of
// 128 bytes) where two stages of 48 KiB fit, with two mbarriers a stage (16
// B each past the ring): sm_100a 4 stages, sm_120a 2 in its 101376 B.
// Without TMA, k-tiles of 64 where three stages fit (sm_80: 3 in 166912 B),
// else of 32.
// SM80-COUNT-3: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 3, cluster = [1, 1], shared_bytes = 147456, max_registers = 255, reason = "sm_80 has no WGMMA; mma.sync on sm_80"
// SM80: fmlp.down_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 163840, max_registers = 255, reason = "sm_80 has no WGMMA; mma.sync on sm_80; 192-column tiles: fewer waves on 108 multiprocessors"
// SM80-COUNT-1: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 3, cluster = [1, 1], shared_bytes = 147456, max_registers = 255, reason = "sm_80 has no WGMMA; mma.sync on sm_80"
// SM80: fmlp.gate_up_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 163840, max_registers = 255, reason = "sm_80 has no WGMMA; mma.sync on sm_80; 192-column tiles: fewer waves on 108 multiprocessors"
// SM80-COUNT-2: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 3, cluster = [1, 1], shared_bytes = 147456, max_registers = 255, reason = "sm_80 has no WGMMA; mma.sync on sm_80"
// The same kernels on sm_90a when asked for (the H200 runs them), and SIMT
// ones when SIMT is asked for (without the small_tokens variants, which
// are mma.sync kernels).
// MMA-COUNT-3: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 4, cluster = [1, 1], shared_bytes = 196672, max_registers = 255, stages_by_tma = true, reason = "the mma_sync strategy was asked for; mma.sync on sm_90a"
// MMA: fmlp.down_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 163904, max_registers = 255, stages_by_tma = true, reason = "the mma_sync strategy was asked for; mma.sync on sm_90a; 192-column tiles: fewer waves on 132 multiprocessors"
// MMA-COUNT-1: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 4, cluster = [1, 1], shared_bytes = 196672, max_registers = 255, stages_by_tma = true, reason = "the mma_sync strategy was asked for; mma.sync on sm_90a"
// MMA: fmlp.gate_up_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 163904, max_registers = 255, stages_by_tma = true, reason = "the mma_sync strategy was asked for; mma.sync on sm_90a; 192-column tiles: fewer waves on 132 multiprocessors"
// MMA-COUNT-2: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 4, cluster = [1, 1], shared_bytes = 196672, max_registers = 255, stages_by_tma = true, reason = "the mma_sync strategy was asked for; mma.sync on sm_90a"
// MMA: fmlp.gate_up {{.*}}strategy = simt, {{.*}}reason = "the mma_sync strategy was asked for; highest: a contraction of 64 terms takes IEEE fp32 (tf32x3's bound is within fp32's from 84 terms on)"
// MMA: fmlp.gate_up {{.*}}strategy = simt, {{.*}}reason = "the mma_sync strategy was asked for; fp32 operands contracted as ieee take the IEEE fp32 SIMT path"
// SIMT-COUNT-8: strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = {{8192|12288}}, max_registers = 128, reason = "the simt strategy was asked for"{{>}}
// SIMT-NOT: strategy = {{wgmma|mma_sync|small_tokens}}
// Every chip has mma.sync: K1 and K2 take the small_tokens variant there too.
// SM80: fmlp.gate_up {{.*}}strategy = small_tokens, {{.*}}reason = "T <= 16: the weights streamed through mma.sync on sm_80, K split over 8 warps"
// SM120A: fmlp.down {{.*}}strategy = small_tokens
// SM100A-COUNT-3: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 4, cluster = [1, 1], shared_bytes = 196672, max_registers = 255, stages_by_tma = true, reason = "sm_100a has no WGMMA; mma.sync on sm_100a"
// SM100A: fmlp.down_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 163904, max_registers = 255, stages_by_tma = true, reason = "sm_100a has no WGMMA; mma.sync on sm_100a; 192-column tiles: fewer waves on 148 multiprocessors"
// SM100A-COUNT-1: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 4, cluster = [1, 1], shared_bytes = 196672, max_registers = 255, stages_by_tma = true, reason = "sm_100a has no WGMMA; mma.sync on sm_100a"
// SM100A: fmlp.gate_up_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 163904, max_registers = 255, stages_by_tma = true, reason = "sm_100a has no WGMMA; mma.sync on sm_100a; 192-column tiles: fewer waves on 148 multiprocessors"
// SM100A-COUNT-2: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 4, cluster = [1, 1], shared_bytes = 196672, max_registers = 255, stages_by_tma = true, reason = "sm_100a has no WGMMA; mma.sync on sm_100a"
// SM120A-COUNT-3: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 2, cluster = [1, 1], shared_bytes = 98336, max_registers = 255, stages_by_tma = true, reason = "sm_120a has no WGMMA; mma.sync on sm_120a"
// SM120A: fmlp.down_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 2, cluster = [1, 1], shared_bytes = 81952, max_registers = 255, stages_by_tma = true, reason = "sm_120a has no WGMMA; mma.sync on sm_120a; 192-column tiles: fewer waves on 170 multiprocessors"
// SM120A-COUNT-1: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 2, cluster = [1, 1], shared_bytes = 98336, max_registers = 255, stages_by_tma = true, reason = "sm_120a has no WGMMA; mma.sync on sm_120a"
// SM120A: fmlp.gate_up_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 2, cluster = [1, 1], shared_bytes = 81952, max_registers = 255, stages_by_tma = true, reason = "sm_120a has no WGMMA; mma.sync on sm_120a; 192-column tiles: fewer waves on 170 multiprocessors"
// SM120A-COUNT-2: strategy = mma_sync, tile = [128, {{128|256}}, 64], stages = 2, cluster = [1, 1], shared_bytes = 98336, max_registers = 255, stages_by_tma = true, reason = "sm_120a has no WGMMA; mma.sync on sm_120a"
func.func @mlp(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
               %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// -----

// fp32 blocks under the pipelines' default precision, highest (IEEE fp32's
// accuracy): contractions of fewer than 84 terms (over D = 64) take the
// SIMT kernels, 64 x 64 x 16 tiles in f32 shared memory; longer ones (over
// H = 128 and 2H) tf32x3 on WGMMA (stages of a high part and B's low
// part, 128 columns in all), each k8 step's sums added in fp32 over H =
// 128 (groups of 2 need 142 terms), 2 k8 steps a group over 2H = 256 (4
// need 262); the weight gradients (over T) a SIMT variant for T < 84.
// CHECK-LABEL: func.func @f32.forward
// CHECK: fmlp.gate_up {{.*}}strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 12288, max_registers = 128, reason = "fp32 operands contracted as highest (WGMMA takes 16-bit ones, and fp32 ones as tf32 or tf32x3); highest: a contraction of 64 terms takes IEEE fp32 (tf32x3's bound is within fp32's from 84 terms on)">, precision = #fmlp.precision<highest>}
// CHECK-NOT: small_tokens
// CHECK: fmlp.down {{.*}}strategy = wgmma, tile = [128, 64, 32], stages = 6, cluster = [1, 1], shared_bytes = 197632, {{.*}}reason = "tf32x3 products of fp32 operands (each split into tf32 high and low parts, each k8 step's sums added in fp32), both K-major, in TMA-addressable views on sm_90a (highest: within fp32's bound from 84 terms)">, precision = #fmlp.precision<highest>}
// CHECK-LABEL: func.func @f32.backward
// CHECK: fmlp.down_grad {{.*}}strategy = simt,
// CHECK: fmlp.down_weight_grad {{.*}}strategy = wgmma, tile = [128, 128, 32], stages = 4, {{.*}}fmlp.token_variants = [#fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], {{.*}}reason = "T < 84: highest contracts T terms as IEEE fp32 (tf32x3's bound is within fp32's from 84 on)", max_tokens = 83>]
// CHECK: fmlp.input_grad {{.*}}strategy = wgmma, {{.*}}reason = "tf32x3 products of fp32 operands (each split into tf32 high and low parts, 2 k8 steps summed on the tensor core per fp32 add), the MN-major ones transposed in shared memory, in TMA-addressable views on sm_90a (highest: within fp32's bound from 142 terms)"
// CHECK-NOT: token_variants
// CHECK-SAME: {{$}}
// CHECK: fmlp.gate_up_weight_grad {{.*}}strategy = wgmma, {{.*}}max_tokens = 83>]
func.func @f32(%x: tensor<?x64xf32>, %wg: tensor<128x64xf32>, %wu: tensor<128x64xf32>,
               %wd: tensor<64x128xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// fp32 contracted as ieee takes the SIMT path, every kernel.
// CHECK-LABEL: func.func @ieee.forward
// CHECK: fmlp.gate_up {{.*}}strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 12288, max_registers = 128, reason = "fp32 operands contracted as ieee (WGMMA takes 16-bit ones, and fp32 ones as tf32 or tf32x3); fp32 operands contracted as ieee take the IEEE fp32 SIMT path"
// CHECK-LABEL: func.func @ieee.backward
// CHECK-NOT: strategy = {{wgmma|mma_sync|small_tokens}}
// CHECK-LABEL: func.func @ieee.forward_nograd
func.func @ieee(%x: tensor<?x256xf32>, %wg: tensor<128x256xf32>, %wu: tensor<128x256xf32>,
                %wd: tensor<256x128xf32>) -> tensor<?x256xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<ieee>}
      : (tensor<?x256xf32>, tensor<128x256xf32>, tensor<128x256xf32>, tensor<256x128xf32>) -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}

// -----

// Rows of 36 bf16 (72 B) are not 16-byte aligned: no tensor map, SIMT.
// CHECK-LABEL: func.func @unaligned.forward
// CHECK: fmlp.gate_up {{.*}}strategy = simt, {{.*}}reason = "x has rows or an offset not 16-byte aligned"
// CHECK-NOT: small_tokens
// CHECK-LABEL: func.func @unaligned.backward
func.func @unaligned(%x: tensor<?x36xbf16>, %wg: tensor<128x36xbf16>, %wu: tensor<128x36xbf16>,
                     %wd: tensor<36x128xbf16>) -> tensor<?x36xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x36xbf16>, tensor<128x36xbf16>, tensor<128x36xbf16>, tensor<36x128xbf16>) -> tensor<?x36xbf16>
  return %y : tensor<?x36xbf16>
}

// -----

// D = 1024, H = 2816: the weight gradients' grids are static and 192 wide
// tiles cut waves x width on sm_90a's 132 multiprocessors (K6: 8 x 15
// tiles in one wave; K5: 44 x 6 in two), 6 stages where they fit.
// The token variants per count of 128-row tiles (codegen/TileSelection.h;
// the unit test TokenVariantsPerCountOfRowTiles has every kernel's): K2's K = H = 2816 (44 k-tiles) in 4 slices of 64-wide
// tiles at T <= 256 (16 x 2 x 4 = 128 blocks), 2 at T <= 512, unsplit to
// T = 1024, 128 wide to 2048; K3 (N = H, no split: its epilogue reads G and
// U) 64, 128 and 192 wide, the kernel_config's 256 for 9 to 12 row tiles
// (99-132 blocks, one wave, where 192 takes two) and 192 again to 2048; K1
// 64 wide (132 blocks, not 66) to T = 384. K1 and K2 also take small_tokens kernels
// of 32 tokens for T = 17..32: their 6-12 MB of weights sit in L2, and a
// WGMMA grid's fixed costs outweigh reading them (the time model).
// --fmlp-token-tiles (FORCED) fixes the WGMMA ones instead, per kernel op.
// The (4096, 11008) block keeps WGMMA from T = 17 (180 MB of weights:
// bench/NOTES.md item 55; test/Tools/fmlp-compile-bundle.mlir).
// CHECK-LABEL: func.func @llama_1k.forward
// CHECK: fmlp.gate_up {{.*}}fmlp.token_variants = [#fmlp.kernel_config<strategy = small_tokens, {{.*}}max_tokens = 16>, #fmlp.kernel_config<strategy = small_tokens, tile = [32, 16, 32], stages = 1, cluster = [1, 1], shared_bytes = 32768, max_registers = 128, reason = "T <= 32: the weights streamed through mma.sync on sm_90a, K split over 8 warps (the time model: 5 us against 9 us on WGMMA)", max_tokens = 32>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], {{.*}}max_tokens = 384>]}
// CHECK: fmlp.down {{.*}}fmlp.token_variants = [#fmlp.kernel_config<strategy = small_tokens, {{.*}}max_tokens = 16>, #fmlp.kernel_config<strategy = small_tokens, tile = [32, 16, 32], {{.*}}max_tokens = 32>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, split_k = 4, reason = "T <= 256: tiles 64 wide, K in 4 slices (the time model's least on sm_90a)", max_tokens = 256>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], {{.*}}split_k = 2, {{.*}}max_tokens = 512>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], {{[^>]*}}max_tokens = 1024>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 64], {{[^>]*}}max_tokens = 2048>]}
// FORCED-LABEL: func.func @llama_1k.forward
// FORCED: fmlp.down {{.*}}fmlp.token_variants = [#fmlp.kernel_config<strategy = small_tokens, {{.*}}max_tokens = 16>, #fmlp.kernel_config<strategy = small_tokens, {{.*}}max_tokens = 32>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 64], {{[^>]*}}reason = "T <= 300: tiles 128 wide (fixed for an A/B run)", max_tokens = 300>]}
// FORCED-LABEL: func.func @llama_1k.backward
// FORCED: fmlp.input_grad {{.*}}fmlp.token_variants = [#fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 64], {{.*}}split_k = 3, {{.*}}max_tokens = 300>]}
// CHECK-LABEL: func.func @llama_1k.backward
// CHECK: fmlp.down_grad {{[^#]*}}#fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64]
// CHECK-NOT: split_k
// CHECK-SAME: fmlp.token_variants = [#fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], {{.*}}max_tokens = 384>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 64], {{.*}}max_tokens = 768>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 192, 64], stages = 5, {{.*}}max_tokens = 1024>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], {{.*}}max_tokens = 1536>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 192, 64], stages = 5, {{.*}}max_tokens = 2048>]}
// CHECK: fmlp.down_weight_grad {{.*}}strategy = wgmma, tile = [128, 192, 64]
// CHECK-NOT: split_k
// CHECK: fmlp.input_grad {{.*}}strategy = wgmma, tile = [128, 256, 64]{{.*}}split_k = 8, {{.*}}max_tokens = 128>, {{.*}}split_k = 4, {{.*}}max_tokens = 256>, {{.*}}tile = [128, 128, 64], {{.*}}split_k = 4, {{.*}}max_tokens = 512>, {{.*}}split_k = 2, {{.*}}max_tokens = 1024>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 64], {{[^>]*}}max_tokens = 2048>]}
// CHECK: fmlp.gate_up_weight_grad {{.*}}strategy = wgmma, tile = [128, 192, 64]
// The mma_sync kernels of 8 warps take the same rule between 256 and 192
// columns (warps of 64 x 48) on each chip's multiprocessors: 192 on
// sm_90a's 132 and sm_120a's 170; on sm_80's 108, 88 blocks of 256 are one
// wave, 176 two. A stage of 192 columns is 40 KiB: 4 on sm_80, 2 on
// sm_120a. --fmlp-mma-sync-grid-tiles=false (an A/B knob) keeps 256.
// GRID-LABEL: func.func @llama_1k.backward
// GRID: fmlp.down_grad {{.*}}strategy = mma_sync, tile = [128, 256, 64]
// GRID: fmlp.down_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 163904,
// GRID: fmlp.input_grad {{.*}}strategy = mma_sync, tile = [128, 256, 64]
// GRID: fmlp.gate_up_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 163904,
// NOGRID-LABEL: func.func @llama_1k.backward
// NOGRID: fmlp.down_weight_grad {{.*}}strategy = mma_sync, tile = [128, 256, 64]
// NOGRID-NOT: 192-column
// NOGRID: fmlp.gate_up_weight_grad {{.*}}strategy = mma_sync, tile = [128, 256, 64]
// GRID120-LABEL: func.func @llama_1k.backward
// GRID120: fmlp.down_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 2, cluster = [1, 1], shared_bytes = 81952,
// GRID120: fmlp.gate_up_weight_grad {{.*}}strategy = mma_sync, tile = [128, 192, 64], stages = 2,
// GRID80-LABEL: func.func @llama_1k.backward
// GRID80: fmlp.down_weight_grad {{.*}}strategy = mma_sync, tile = [128, 256, 64], stages = 3,
// GRID80: fmlp.gate_up_weight_grad {{.*}}strategy = mma_sync, tile = [128, 256, 64], stages = 3,
func.func @llama_1k(%x: tensor<?x1024xbf16>, %wg: tensor<2816x1024xbf16>, %wu: tensor<2816x1024xbf16>,
                    %wd: tensor<1024x2816xbf16>) -> tensor<?x1024xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x1024xbf16>, tensor<2816x1024xbf16>, tensor<2816x1024xbf16>, tensor<1024x2816xbf16>) -> tensor<?x1024xbf16>
  return %y : tensor<?x1024xbf16>
}

// -----

// K2 with a down bias takes no split variant (its epilogue's bias loads
// spill in the last arriver at 8 slices), not even when asked for
// (FORCEDBAD above); K4 (no bias) still splits.
// CHECK-LABEL: func.func @biased_1k.forward
// CHECK: fmlp.down {{.*}}fmlp.token_variants = [#fmlp.kernel_config<strategy = small_tokens, {{.*}}max_tokens = 16>, #fmlp.kernel_config<strategy = small_tokens, {{.*}}max_tokens = 32>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], {{[^>]*}}reason = "T <= 1024: tiles 64 wide (the time model's least on sm_90a)", max_tokens = 1024>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 64], {{[^>]*}}max_tokens = 2048>]}
// CHECK-LABEL: func.func @biased_1k.backward
// CHECK: fmlp.input_grad {{.*}}split_k = 8, {{.*}}max_tokens = 128>
// FORCED-LABEL: func.func @biased_1k.forward
// FORCED: fmlp.down {{.*}}tile = [128, 128, 64]
// FORCED-NOT: split_k
// FORCED-SAME: max_tokens = 300>]}
func.func @biased_1k(%x: tensor<?x1024xbf16>, %wg: tensor<2816x1024xbf16>, %wu: tensor<2816x1024xbf16>,
                     %wd: tensor<1024x2816xbf16>, %bg: tensor<2816xbf16>, %bu: tensor<2816xbf16>,
                     %bd: tensor<1024xbf16>) -> tensor<?x1024xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd gate_bias %bg up_bias %bu down_bias %bd
      : (tensor<?x1024xbf16>, tensor<2816x1024xbf16>, tensor<2816x1024xbf16>, tensor<1024x2816xbf16>,
         tensor<2816xbf16>, tensor<2816xbf16>, tensor<1024xbf16>) -> tensor<?x1024xbf16>
  return %y : tensor<?x1024xbf16>
}

// -----

// The block's precision reaches every GEMM kernel (fmlp-fuse) and the
// selection: tf32 on f32 operands takes WGMMA on sm_90a, k8 on tf32,
// k-tiles of 32 (a stage's 128-byte rows). K1 and K2 (both operands
// K-major, nn.Linear's weights) take the same 4 stages of 48 KiB as 16-bit
// ones (197,632 B), with their token variants. The backward's kernels read
// MN-major operands, which tf32 WGMMA does not take: the producer lands
// them in two slots beside the ring and transposes them: K3 lands B (32 KiB
// a slot at 256 columns: 3 stages, 1024 + 3 x 48 KiB + 2 x 32 KiB =
// 214,016 B; K4's N = 64 takes 64 columns: 6 stages of 24 KiB and 2 slots
// of 8 KiB), K6 and K5 A and B (K6's static grid takes 128 columns: 5
// stages of 32 KiB and 2 slots of 32 KiB). tf32x3 takes WGMMA on stages
// of a high and a low part (64 KiB at 128 columns: 3 stages; its
// accumulators and step sums are 128 registers a thread), or mma.sync
// (64-byte rows, 128 columns) where its A/B knob is off ...
// CHECK-LABEL: func.func @tf32.forward
// CHECK: fmlp.gate_up {{.*}}strategy = wgmma, tile = [128, 128, 32], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "tf32 products of fp32 operands, both K-major, in TMA-addressable views on sm_90a">, fmlp.token_variants = [#fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 32], stages = 6, {{.*}}max_tokens = 2048>], precision = #fmlp.precision<tf32>}
// CHECK: fmlp.down {{.*}}strategy = wgmma, tile = [128, 64, 32], {{.*}}precision = #fmlp.precision<tf32>
// CHECK-LABEL: func.func @tf32.backward
// CHECK: fmlp.down_grad {{.*}}strategy = wgmma, tile = [128, 256, 32], stages = 3, cluster = [1, 1], shared_bytes = 214016, max_registers = 168, reason = "tf32 products of fp32 operands, the MN-major ones transposed in shared memory, in TMA-addressable views on sm_90a">
// CHECK: fmlp.down_weight_grad {{.*}}strategy = wgmma, tile = [128, 128, 32], stages = 5, cluster = [1, 1], shared_bytes = 230400, {{.*}}reason = "tf32 products of fp32 operands, the MN-major ones transposed in shared memory,
// CHECK: fmlp.input_grad {{.*}}strategy = wgmma, tile = [128, 64, 32], stages = 6, cluster = [1, 1], shared_bytes = 164864
// CHECK: fmlp.gate_up_weight_grad {{.*}}strategy = wgmma, {{.*}}reason = "tf32 products of fp32 operands, the MN-major ones transposed in shared memory,
// CHECK-LABEL: func.func @tf32.forward_nograd
// CHECK: fmlp.gate_up {{.*}}strategy = wgmma
// With tf32 on WGMMA off (an A/B knob), every tf32 kernel is mma.sync's.
// TF32MMA-LABEL: func.func @tf32.forward
// TF32MMA: fmlp.gate_up {{.*}}strategy = mma_sync, tile = [128, 128, 32], stages = 4, cluster = [1, 1], shared_bytes = 208896, max_registers = 255, reason = "fp32 operands: tf32 on WGMMA is off (--fmlp-tf32-wgmma=false); mma.sync on sm_90a, tf32 products">, precision = #fmlp.precision<tf32>}
// TF32MMA: fmlp.down {{.*}}strategy = mma_sync, tile = [128, 256, 32], {{.*}}precision = #fmlp.precision<tf32>}
// TF32MMA-NOT: strategy = wgmma
// TF32MMA-LABEL: func.func @tf32x3.forward
// With the transposition off (the other A/B knob), the backward's kernels
// stay on mma.sync's m16n8k8, k-tiles of 128-byte rows (32 fp32) where
// three stages fit, with room for the padded rows of MN-contiguous tiles
// (4 x (384 x 32 x 4 + 3 x 32 x 32) = 208,896 B).
// TF32UNTRANSPOSED-LABEL: func.func @tf32.forward
// TF32UNTRANSPOSED: fmlp.gate_up {{.*}}strategy = wgmma
// TF32UNTRANSPOSED-LABEL: func.func @tf32.backward
// TF32UNTRANSPOSED: fmlp.down_grad {{.*}}strategy = mma_sync, tile = [128, 256, 32], stages = 4, cluster = [1, 1], shared_bytes = 208896, max_registers = 255, reason = "tf32 WGMMA reads K-major operands only, and down is MN-major (its rows index k), which --fmlp-tf32-wgmma-mn-major=false leaves untransposed; mma.sync on sm_90a, tf32 products">
// TF32UNTRANSPOSED: fmlp.down_weight_grad {{.*}}strategy = mma_sync, {{.*}}reason = "tf32 WGMMA reads K-major operands only, and dy is MN-major
// TF32UNTRANSPOSED: fmlp.input_grad {{.*}}strategy = mma_sync, {{.*}}reason = "tf32 WGMMA reads K-major operands only, and gate is MN-major
// TF32UNTRANSPOSED: fmlp.gate_up_weight_grad {{.*}}strategy = mma_sync, {{.*}}reason = "tf32 WGMMA reads K-major operands only, and dG is MN-major
// TF32UNTRANSPOSED-LABEL: func.func @tf32.forward_nograd
// TF32UNTRANSPOSED: fmlp.gate_up {{.*}}strategy = wgmma
// TF32UNTRANSPOSED-LABEL: func.func @tf32x3.forward
// Other chips have no WGMMA: mma.sync as before.
// SM120A-LABEL: func.func @tf32.forward
// SM120A: fmlp.gate_up {{.*}}strategy = mma_sync, tile = [128, 128, 16], stages = 3, cluster = [1, 1], shared_bytes = 78336, {{.*}}mma.sync on sm_120a, tf32 products">
// CHECK-LABEL: func.func @tf32x3.forward
// CHECK: fmlp.gate_up {{.*}}strategy = wgmma, tile = [128, 64, 32], stages = 4, cluster = [1, 1], shared_bytes = 197632, {{.*}}reason = "tf32x3 products of fp32 operands (each split into tf32 high and low parts, 4 k8 steps summed on the tensor core per fp32 add), both K-major, in TMA-addressable views on sm_90a">, precision = #fmlp.precision<tf32x3>}
// CHECK-NOT: token_variants
// CHECK-LABEL: func.func @tf32x3.backward
// CHECK: fmlp.down_grad {{.*}}strategy = wgmma, tile = [128, 128, 32], stages = 4, cluster = [1, 1], shared_bytes = 230400, {{.*}}reason = "tf32x3 products of fp32 operands (each split into tf32 high and low parts, 4 k8 steps summed on the tensor core per fp32 add), the MN-major ones transposed in shared memory,
// X3MMA-LABEL: func.func @tf32x3.forward
// X3MMA: fmlp.gate_up {{.*}}strategy = mma_sync, tile = [128, 64, 16], stages = 4, cluster = [1, 1], shared_bytes = 71680, {{.*}}reason = "fp32 operands: tf32x3 on WGMMA is off (--fmlp-tf32x3-wgmma=false); mma.sync on sm_90a, tf32x3 products">, precision = #fmlp.precision<tf32x3>}
func.func @tf32(%x: tensor<?x64xf32>, %wg: tensor<128x64xf32>, %wu: tensor<128x64xf32>,
                %wd: tensor<64x128xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<tf32>}
      : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

func.func @tf32x3(%x: tensor<?x64xf32>, %wg: tensor<128x64xf32>, %wu: tensor<128x64xf32>,
                  %wd: tensor<64x128xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<tf32x3>}
      : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// ... and bf16 operands contracted as f16 are not WGMMA's bf16 products.
// CHECK-LABEL: func.func @f16_on_bf16.forward
// CHECK: fmlp.gate_up {{.*}}strategy = simt, {{.*}}reason = "precision f16 on bf16 operands takes the SIMT path">, precision = #fmlp.precision<f16>}
func.func @f16_on_bf16(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
                       %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<f16>}
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
