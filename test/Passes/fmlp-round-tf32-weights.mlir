// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-round-tf32-weights --fmlp-select-tiles --split-input-file | FileCheck %s
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-round-tf32-weights --split-input-file | FileCheck %s --check-prefix=LANDING
// RUN: fmlp-opt %s --fmlp-plan-pipeline="chunk-tokens=1024" --fmlp-attach-target --fmlp-transpose-weights --fmlp-round-tf32-weights --split-input-file | FileCheck %s --check-prefix=CHUNKS
// RUN: fmlp-opt %s --fmlp-plan-pipeline="chunk-tokens=1024" --fmlp-attach-target --fmlp-transpose-weights --fmlp-round-tf32-weights --fmlp-select-tiles --convert-fmlp-to-nvvm --split-input-file | FileCheck %s --check-prefix=CHUNKS-KERNEL
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-round-tf32-weights --fmlp-round-tf32-weights --split-input-file | FileCheck %s --check-prefix=TWICE
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-round-tf32-weights=strategy=mma_sync --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target="chip=sm_80" --fmlp-transpose-weights --fmlp-round-tf32-weights --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-round-tf32-weights --fmlp-select-tiles --convert-fmlp-to-nvvm --split-input-file | FileCheck %s --check-prefix=KERNEL
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-round-tf32-weights --fmlp-select-tiles --split-input-file | FileCheck %s --check-prefix=STAGES
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-round-tf32-weights --fmlp-select-tiles --fmlp-tf32-round-in-stages-max-tokens=0 --split-input-file | FileCheck %s --check-prefix=COPIES
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-round-tf32-weights --fmlp-select-tiles --fmlp-tf32-round-in-stages-max-tokens=-1 --convert-fmlp-to-nvvm --split-input-file | FileCheck %s --check-prefix=ALL
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-round-tf32-weights=strategy=wmma --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-round-tf32-weights --split-input-file 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --fmlp-round-tf32-weights --split-input-file 2>&1 | FileCheck %s --check-prefix=CONFIGURED
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-round-tf32-weights --fmlp-tf32-transpose=cp-async --split-input-file 2>&1 | FileCheck %s --check-prefix=CP-ASYNC
// BAD: error: fmlp-round-tf32-weights: strategy must be auto, mma_sync or simt, got 'wmma'
// NOTARGET: error: the module has no fmlp.target: run fmlp-attach-target first
// CONFIGURED: error: 'fmlp.gate_up' op has a kernel config already: run fmlp-round-tf32-weights before fmlp-select-tiles, whose rule it asks which ops take WGMMA
// CP-ASYNC: error: 'fmlp.down_grad' op reads an fp32 operand MN-major, which --fmlp-tf32-transpose=cp-async copies into its stages unrounded: round its operands with the landing slots (the default)

// fp32 at precision tf32 on sm_90a, every kernel on WGMMA: each is marked
// fmlp.tf32_rounded (its kernel rounds A in registers and the tiles it
// transposes). The forward's K1 and K2 read Wg, Wu, Wd K-major as stored:
// rounded copies (<name>_tf32, the weight's shape) at the entry's start,
// once each. The backward's K-major copies (fmlp-transpose-weights) round
// as they transpose; its weight gradients read the activations MN-major
// (rounded as the kernel transposes them): no copy.
// CHECK-LABEL: func.func @mlp.forward(
// CHECK-SAME: %[[WG:[a-z0-9]+]]: memref<2816x1024xf32> {fmlp.name = "gate"}, %[[WU:[a-z0-9]+]]: memref<2816x1024xf32> {fmlp.name = "up"}, %[[WD:[a-z0-9]+]]: memref<1024x2816xf32> {fmlp.name = "down"}
// CHECK-SAME: %[[WGR:[a-z0-9]+]]: memref<2816x1024xf32> {fmlp.name = "gate_tf32", fmlp.workspace}, %[[WUR:[a-z0-9]+]]: memref<2816x1024xf32> {fmlp.name = "up_tf32", fmlp.workspace}, %[[WDR:[a-z0-9]+]]: memref<1024x2816xf32> {fmlp.name = "down_tf32", fmlp.workspace})
// CHECK-NEXT: fmlp.round_to_tf32 ins(%[[WG]] : memref<2816x1024xf32>) outs(%[[WGR]] : memref<2816x1024xf32>)
// CHECK-NEXT: fmlp.round_to_tf32 ins(%[[WU]] : memref<2816x1024xf32>) outs(%[[WUR]] : memref<2816x1024xf32>)
// CHECK-NEXT: fmlp.round_to_tf32 ins(%[[WD]] : memref<1024x2816xf32>) outs(%[[WDR]] : memref<1024x2816xf32>)
// CHECK: fmlp.gate_up silu ins(%{{.+}}, %[[WGR]], %[[WUR]] : {{.*}}) outs({{.*}}) {fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma{{.*}}, fmlp.tf32_rounded, {{.*}}precision = #fmlp.precision<tf32>}
// CHECK: fmlp.down ins(%{{.+}}, %[[WDR]] : {{.*}}) outs({{.*}}) {fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma{{.*}}, fmlp.tf32_rounded, {{.*}}precision = #fmlp.precision<tf32>}
// CHECK-LABEL: func.func @mlp.backward(
// CHECK-NOT: _tf32
// CHECK: fmlp.transpose ins({{.*}}) outs({{.*}}) {round_to_tf32}
// CHECK-NEXT: fmlp.transpose ins({{.*}}) outs({{.*}}) {round_to_tf32}
// CHECK-NEXT: fmlp.transpose ins({{.*}}) outs({{.*}}) {round_to_tf32}
// CHECK-NOT: fmlp.round_to_tf32
// CHECK: fmlp.down_grad silu {{.*}}fmlp.tf32_rounded
// CHECK: fmlp.down_weight_grad {{.*}}fmlp.tf32_rounded
// CHECK: fmlp.input_grad {{.*}}fmlp.tf32_rounded
// CHECK: fmlp.gate_up_weight_grad {{.*}}fmlp.tf32_rounded
// CHECK-LABEL: func.func @mlp.forward_nograd(
// CHECK-SAME: {fmlp.name = "gate_tf32", fmlp.workspace}
// CHECK-COUNT-3: fmlp.round_to_tf32
// CHECK-NOT: fmlp.round_to_tf32
// CHECK: return

// Without fmlp-transpose-weights, the backward's WGMMA kernels transpose
// Wd, Wg, Wu in shared memory and round them there: no copy for them.
// LANDING-LABEL: func.func @mlp.forward(
// LANDING-COUNT-3: fmlp.round_to_tf32
// LANDING-LABEL: func.func @mlp.backward(
// LANDING-NOT: fmlp.round_to_tf32
// LANDING-NOT: fmlp.transpose
// LANDING: fmlp.down_grad silu {{.*}}fmlp.tf32_rounded
// LANDING: fmlp.input_grad {{.*}}fmlp.tf32_rounded
// LANDING: return

// Chunked: the copies before the chunk loop, once; the chunks' kernels
// read them.
// CHUNKS-LABEL: func.func @mlp.forward(
// CHUNKS: fmlp.round_to_tf32 ins(%{{.+}} : memref<2816x1024xf32>) outs(%[[GC:[a-z0-9]+]] : memref<2816x1024xf32>)
// CHUNKS-NEXT: fmlp.round_to_tf32 ins(%{{.+}} : memref<2816x1024xf32>) outs(%[[UC:[a-z0-9]+]] : memref<2816x1024xf32>)
// CHUNKS-NEXT: fmlp.round_to_tf32 ins(%{{.+}} : memref<1024x2816xf32>) outs(%[[DC:[a-z0-9]+]] : memref<1024x2816xf32>)
// CHUNKS: scf.for
// CHUNKS-NOT: fmlp.round_to_tf32
// CHUNKS: fmlp.gate_up silu ins(%{{.+}}, %[[GC]], %[[UC]] : {{.*}}fmlp.tf32_rounded
// CHUNKS: fmlp.down ins(%{{.+}}, %[[DC]] : {{.*}}fmlp.tf32_rounded
// CHUNKS: return
// Lowered: each chunk's kernels serve at most 1024 tokens; those of more
// than 768 read the copies (K1's kernel_config, K2's variant of T <= 1024
// past the bound), so each copy is launched from T = 769.
// CHUNKS-KERNEL-LABEL: func.func @mlp.forward_nograd(
// CHUNKS-KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_nograd_k0_round_to_tf32 {{.*}}fmlp.min_tokens = 769
// CHUNKS-KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_nograd_k1_round_to_tf32 {{.*}}fmlp.min_tokens = 769
// CHUNKS-KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_nograd_k2_round_to_tf32 {{.*}}fmlp.min_tokens = 769
// CHUNKS-KERNEL-NOT: round_to_tf32
// CHUNKS-KERNEL: scf.for
// CHUNKS-KERNEL-NOT: round_to_tf32
// CHUNKS-KERNEL: return

// A second run leaves the marked ops and their copies as they are.
// TWICE-LABEL: func.func @mlp.forward(
// TWICE-COUNT-3: fmlp.round_to_tf32
// TWICE-NOT: fmlp.round_to_tf32
// TWICE-LABEL: func.func @mlp.backward(
// TWICE-NOT: _tf32_tf32
// TWICE-NOT: fmlp.round_to_tf32
// TWICE-LABEL: func.func @mlp.forward_nograd(
// TWICE-NOT: _tf32_tf32
// TWICE-COUNT-3: fmlp.round_to_tf32
// TWICE-NOT: fmlp.round_to_tf32
// TWICE: return

// The rule (codegen/TileSelection.h): the WGMMA token variants of K1 and
// K2 up to T = 768 round B in their stages (K1's kernel_config's tiles as a
// variant of T <= 768, K2's variant of T <= 1024 split at 768), the others
// (K2's of T in 769 .. 1024 and of T <= 2048, and the kernel_config, every
// larger T) read the copies; the backward's kernels read transposed
// copies, not rounded ones: none. With the bound at 0, every kernel reads
// the copies; at -1 none does, and no copy is launched.
// STAGES-LABEL: func.func @mlp.forward(
// STAGES: fmlp.gate_up silu {{.*}}{fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, {{[^>]*}}reason = "tf32 products {{[^>"]*}}">, fmlp.tf32_rounded, fmlp.token_variants = [#fmlp.kernel_config<{{[^>]*}}B rounded to tf32 in the stages", max_tokens = 512, rounds_in_stages = true>, #fmlp.kernel_config<{{[^>]*}}reason = "T <= 768: the kernel_config's tiles, the weights read as stored (the copies from T = 769); B rounded to tf32 in the stages", max_tokens = 768, rounds_in_stages = true>]
// STAGES: fmlp.down {{.*}}max_tokens = 512, rounds_in_stages = true>, #fmlp.kernel_config<{{[^>]*}}(split at the rounding bound); B rounded to tf32 in the stages", max_tokens = 768, rounds_in_stages = true>, #fmlp.kernel_config<{{[^>]*}}max_tokens = 1024>, #fmlp.kernel_config<{{[^>]*}}max_tokens = 2048>]
// STAGES-LABEL: func.func @mlp.backward(
// STAGES-NOT: rounds_in_stages
// STAGES-LABEL: func.func @mlp.forward_nograd(
// STAGES: rounds_in_stages = true>]
// STAGES: max_tokens = 512, rounds_in_stages = true>, #fmlp.kernel_config<
// COPIES-NOT: rounds_in_stages
// ALL-LABEL: func.func @mlp.forward(
// ALL-NOT: round_to_tf32
// ALL: gpu.launch_func @fmlp_kernels::@mlp_forward_k3_gate_up_upto512_round_in_stages
// ALL-NOT: round_to_tf32
// ALL: gpu.launch_func @fmlp_kernels::@mlp_forward_k3_gate_up_round_in_stages {{.*}}args(%arg0 : memref<?x1024xf32>, %arg1 : memref<2816x1024xf32>, %arg2 : memref<2816x1024xf32>,
// ALL-LABEL: func.func @mlp.backward(

// mma_sync asked for, or a chip without WGMMA: mma_sync rounds each operand
// as it loads it (cvt.rna): nothing to do.
// NONE-NOT: fmlp.round_to_tf32
// NONE-NOT: _tf32
// NONE-NOT: tf32_rounded
// NONE-NOT: {round_to_tf32}

// The copy as a kernel: 32 x 32 tiles (256 threads) in the weight's
// layout, grid x over its 1024 columns, y over its 2816 rows, never over
// T; cvt.rna on each element. The GEMM kernels take A from registers,
// rounded (register-sourced tf32 WGMMA).
// KERNEL-LABEL: func.func @mlp.forward(
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_k0_round_to_tf32 blocks in (%c32, %c88, %{{.+}}) threads in (%c256,
// KERNEL-SAME: args(%arg1 : memref<2816x1024xf32>, %arg6 : memref<2816x1024xf32>,
// KERNEL-SAME: fmlp.written = array<i64: 1>
// The token variants of T <= 768 read the weights as stored and round them
// in their stages: each copy is launched under scf.if T >= F, F the fewest
// T some kernel reads it at (769: K1's and K2's rounding variants end at
// 768), its launch saying so (the manifest's min_tokens); the
// variants' launches take the weights (%arg1..3), the kernel_config's the
// copies (%arg6..8). K2's variant of T <= 1024 serves 513 .. 768 rounding
// and 769 .. 1024 reading the copy: two kernels. The producer rounds B in
// place (cvt.rna) and arrives on the stage's ready barrier, which the
// consumers wait on: warp 0 loads, warps 1..3 round (96 arrivals).
// KERNEL-LABEL: func.func @mlp.forward_nograd(
// KERNEL: %[[T:.+]] = memref.dim %arg0, %{{.+}} : memref<?x1024xf32>
// KERNEL-NEXT: %[[F:.+]] = arith.constant 769 : index
// KERNEL-NEXT: %[[NEEDED:.+]] = arith.cmpi uge, %[[T]], %[[F]]
// KERNEL-NEXT: scf.if %[[NEEDED]] {
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_nograd_k0_round_to_tf32 {{.*}}args(%arg1 : memref<2816x1024xf32>, %arg6 : memref<2816x1024xf32>, {{.*}}fmlp.min_tokens = 769 : i64
// KERNEL: arith.constant 769 : index
// KERNEL-NEXT: arith.cmpi uge
// KERNEL-NEXT: scf.if
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_nograd_k2_round_to_tf32 {{.*}}fmlp.min_tokens = 769 : i64
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_nograd_k3_gate_up_upto512_round_in_stages {{.*}}args(%arg0 : memref<?x1024xf32>, %arg1 : memref<2816x1024xf32>, %arg2 : memref<2816x1024xf32>,
// KERNEL-SAME: fmlp.max_tokens = 512 : i64
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_nograd_k3_gate_up_upto768_round_in_stages {{.*}}args(%arg0 : memref<?x1024xf32>, %arg1 : memref<2816x1024xf32>, %arg2 : memref<2816x1024xf32>,
// KERNEL-SAME: fmlp.max_tokens = 768 : i64, fmlp.min_tokens = 513 : i64
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_nograd_k3_gate_up {{.*}}args(%arg0 : memref<?x1024xf32>, %arg6 : memref<2816x1024xf32>, %arg7 : memref<2816x1024xf32>,
// KERNEL-SAME: fmlp.min_tokens = 769 : i64
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_nograd_k4_down_upto512_round_in_stages_splitk4 {{.*}}, %arg3 : memref<1024x2816xf32>,
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_nograd_k4_down_upto768_round_in_stages_splitk2 {{.*}}, %arg3 : memref<1024x2816xf32>,
// KERNEL-SAME: fmlp.max_tokens = 768 : i64, fmlp.min_tokens = 513 : i64
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_forward_nograd_k4_down_upto1024_splitk2 {{.*}}, %arg8 : memref<1024x2816xf32>,
// KERNEL-SAME: fmlp.min_tokens = 769 : i64
// KERNEL-LABEL: llvm.func @mlp_forward_k0_round_to_tf32(
// KERNEL-NOT: nvvm.barrier0
// KERNEL: nvvm.convert.float.to.tf32 %{{.+}} {rnd = #nvvm.fp_rnd_mode<rna>}
// KERNEL: llvm.return
// KERNEL-LABEL: llvm.func @mlp_forward_k3_gate_up(
// KERNEL: nvvm.convert.float.to.tf32 %{{.+}} {rnd = #nvvm.fp_rnd_mode<rna>}
// KERNEL: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// KERNEL-LABEL: llvm.func @mlp_backward_k0_transpose(
// KERNEL: nvvm.barrier0
// KERNEL: nvvm.convert.float.to.tf32 %{{.+}} {rnd = #nvvm.fp_rnd_mode<rna>}
// KERNEL: llvm.return
// KERNEL-LABEL: llvm.func @mlp_forward_nograd_k3_gate_up_upto512_round_in_stages(
// KERNEL: nvvm.mbarrier.init %{{.+}}, %c96_i32
// KERNEL: nvvm.mbarrier.try_wait.parity
// KERNEL: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// KERNEL-COUNT-4: nvvm.convert.float.to.tf32 %{{.+}} {rnd = #nvvm.fp_rnd_mode<rna>}
// KERNEL: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// KERNEL: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// KERNEL: nvvm.mbarrier.arrive %
func.func @mlp(%x: tensor<?x1024xf32>, %wg: tensor<2816x1024xf32>,
               %wu: tensor<2816x1024xf32>, %wd: tensor<1024x2816xf32>)
    -> tensor<?x1024xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<tf32>}
      : (tensor<?x1024xf32>, tensor<2816x1024xf32>, tensor<2816x1024xf32>,
         tensor<1024x2816xf32>) -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}

// -----

// tf32x3 (highest, from 84 terms) splits its operands exactly: nothing
// rounds, and bf16 has nothing to round.
// CHECK-LABEL: func.func @x3.forward(
// CHECK-NOT: fmlp.round_to_tf32
// CHECK-NOT: fmlp.tf32_rounded
// CHECK-NOT: {round_to_tf32}
// CHECK-LABEL: func.func @x3.forward_nograd(
// CHECK-NOT: fmlp.round_to_tf32
// CHECK: return
func.func @x3(%x: tensor<?x1024xf32>, %wg: tensor<2816x1024xf32>,
              %wu: tensor<2816x1024xf32>, %wd: tensor<1024x2816xf32>)
    -> tensor<?x1024xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<highest>}
      : (tensor<?x1024xf32>, tensor<2816x1024xf32>, tensor<2816x1024xf32>,
         tensor<1024x2816xf32>) -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}

// -----

// CHECK-LABEL: func.func @mlp16.forward(
// CHECK-NOT: fmlp.round_to_tf32
// CHECK-NOT: fmlp.tf32_rounded
// CHECK-LABEL: func.func @mlp16.forward_nograd(
// CHECK-NOT: fmlp.round_to_tf32
// CHECK: return
func.func @mlp16(%x: tensor<?x1024xbf16>, %wg: tensor<2816x1024xbf16>,
                 %wu: tensor<2816x1024xbf16>, %wd: tensor<1024x2816xbf16>)
    -> tensor<?x1024xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x1024xbf16>, tensor<2816x1024xbf16>, tensor<2816x1024xbf16>,
         tensor<1024x2816xbf16>) -> tensor<?x1024xbf16>
  return %y : tensor<?x1024xbf16>
}

// -----

// LoRA (docs/LoRA.md): the adapters' B matrices are B parts read K-major
// beside the weights (K1: [Wg | Bg], [Wu | Bu]; K2: [Wd | Bd]) and get
// rounded copies too, as do the adapters' own A matrices where their
// GEMMs read them as weights (Z = x A^T: a down op with A as its weight).
// In the backward, K3 and K4 keep the weights MN-major beside the
// adapters' (rounded as the kernel transposes them); the K-major copies of
// the adapters' B matrices round.
// CHECK-LABEL: func.func @lora.forward(
// CHECK-SAME: {fmlp.name = "lora_a_tf32", fmlp.workspace}, %{{.+}}: memref<96x64xf32> {fmlp.name = "gate_tf32", fmlp.workspace}, %{{.+}}: memref<96x8xf32> {fmlp.name = "gate_lora_b_tf32", fmlp.workspace}, %{{.+}}: memref<96x64xf32> {fmlp.name = "up_tf32", fmlp.workspace}, %{{.+}}: memref<96x8xf32> {fmlp.name = "up_lora_b_tf32", fmlp.workspace}, %{{.+}}: memref<4x96xf32> {fmlp.name = "down_lora_a_tf32", fmlp.workspace}, %{{.+}}: memref<64x96xf32> {fmlp.name = "down_tf32", fmlp.workspace}, %{{.+}}: memref<64x4xf32> {fmlp.name = "down_lora_b_tf32", fmlp.workspace})
// CHECK-COUNT-8: fmlp.round_to_tf32
// CHECK: fmlp.gate_up silu ins({{.*}}) lora({{.*}}) outs({{.*}}) {{{.*}}fmlp.tf32_rounded
// CHECK-LABEL: func.func @lora.backward(
// CHECK: fmlp.transpose ins(%{{.+}} : memref<64x4xf32>) outs(%{{.+}} : memref<4x64xf32>) {round_to_tf32}
// CHECK-NEXT: fmlp.transpose ins(%{{.+}} : memref<96x8xf32>) outs(%{{.+}} : memref<8x96xf32>) {round_to_tf32}
// CHECK-NEXT: fmlp.transpose ins(%{{.+}} : memref<96x8xf32>) outs(%{{.+}} : memref<8x96xf32>) {round_to_tf32}
// CHECK-NOT: fmlp.round_to_tf32
// CHECK: fmlp.down_grad {{.*}}fmlp.tf32_rounded
// CHECK: return
func.func @lora(%x: tensor<?x64xf32>, %wg: tensor<96x64xf32>, %wu: tensor<96x64xf32>,
                %wd: tensor<64x96xf32>, %a: tensor<8x64xf32>, %bg: tensor<96x8xf32>,
                %bu: tensor<96x8xf32>, %ad: tensor<4x96xf32>, %bd: tensor<64x4xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd lora(%a, %bg, %bu) down_lora(%ad, %bd) {precision = #fmlp.precision<tf32>}
      : (tensor<?x64xf32>, tensor<96x64xf32>, tensor<96x64xf32>, tensor<64x96xf32>,
         tensor<8x64xf32>, tensor<96x8xf32>, tensor<96x8xf32>, tensor<4x96xf32>, tensor<64x4xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

