// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-select-tiles --split-input-file | FileCheck %s
// RUN: fmlp-opt %s --fmlp-plan-pipeline="chunk-tokens=1024 save=u" --fmlp-attach-target --fmlp-transpose-weights --split-input-file | FileCheck %s --check-prefix=CHUNKS
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights=strategy=mma_sync --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target="chip=sm_80" --fmlp-transpose-weights --split-input-file | FileCheck %s --check-prefix=NONE
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-select-tiles --convert-fmlp-to-nvvm --split-input-file | FileCheck %s --check-prefix=KERNEL
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-select-tiles --fmlp-transpose-in-stages-max-tokens=0 --convert-fmlp-to-nvvm --split-input-file | FileCheck %s --check-prefix=COPIES
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights --fmlp-select-tiles --fmlp-transpose-in-stages-max-tokens=-1 --convert-fmlp-to-nvvm --split-input-file | FileCheck %s --check-prefix=STAGES
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-transpose-weights=strategy=wmma --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not fmlp-opt %s --fmlp-plan-pipeline --fmlp-transpose-weights --split-input-file 2>&1 | FileCheck %s --check-prefix=NOTARGET
// BAD: error: fmlp-transpose-weights: strategy must be auto, mma_sync or simt, got 'wmma'
// NOTARGET: error: the module has no fmlp.target: run fmlp-attach-target first

// fp32 at precision tf32 on sm_90a: the backward's down_grad reads Wd and
// input_grad Wg, Wu MN-major, so each gets a K-major copy, written by an
// fmlp.transpose into a workspace argument (D x H elements) at the entry's
// start; the ops read the copies, their layouts flipped to in_out, and
// take WGMMA without landing slots (4 stages of 256 columns). The forward
// entries read every weight K-major: no copy.
// CHECK-LABEL: func.func @mlp.forward(
// CHECK-NOT: fmlp.transpose
// CHECK-LABEL: func.func @mlp.backward(
// CHECK-SAME: %[[WG:[a-z0-9]+]]: memref<2816x1024xf32> {fmlp.name = "gate"}, %[[WU:[a-z0-9]+]]: memref<2816x1024xf32> {fmlp.name = "up"}, %[[WD:[a-z0-9]+]]: memref<1024x2816xf32> {fmlp.name = "down"}
// CHECK-SAME: %[[WDT:[a-z0-9]+]]: memref<2816x1024xf32> {fmlp.name = "down_transposed", fmlp.workspace}, %[[WGT:[a-z0-9]+]]: memref<1024x2816xf32> {fmlp.name = "gate_transposed", fmlp.workspace}, %[[WUT:[a-z0-9]+]]: memref<1024x2816xf32> {fmlp.name = "up_transposed", fmlp.workspace})
// CHECK-NEXT: fmlp.transpose ins(%[[WD]] : memref<1024x2816xf32>) outs(%[[WDT]] : memref<2816x1024xf32>)
// CHECK-NEXT: fmlp.transpose ins(%[[WG]] : memref<2816x1024xf32>) outs(%[[WGT]] : memref<1024x2816xf32>)
// CHECK-NEXT: fmlp.transpose ins(%[[WU]] : memref<2816x1024xf32>) outs(%[[WUT]] : memref<1024x2816xf32>)
// CHECK: fmlp.down_grad silu ins(%{{.+}}, %[[WDT]], %{{.+}}, %{{.+}} : {{.*}}) outs({{.*}}) {down_layout = #fmlp.layout<in_out>, fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 32], stages = 4, {{.*}} reason = "tf32 products of fp32 operands, both K-major, in TMA-addressable views on sm_90a">
// The token variants of T <= 512 are those of the op reading Wd as stored
// (MN-major: 6 stages of 64 columns beside the landing slots to 256, of
// 128 to 512), transposing it in their stages; from 513 on, the copy's.
// CHECK-SAME: fmlp.token_variants = [#fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 32], stages = 6, {{.*}} transposes_in_stages = true, reason = "{{[^"]*}}B's weights transposed in the stages", max_tokens = 256>, #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 32], stages = 6, {{[^>]*}}transposes_in_stages = true, {{[^>]*}}max_tokens = 512>, #fmlp.kernel_config<{{[^>]*}}max_tokens = 1024>]
// CHECK: fmlp.input_grad ins(%{{.+}}, %{{.+}}, %[[WGT]], %[[WUT]] : {{.*}}) outs({{.*}}) {fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 32], stages = 4, {{.*}} gate_layout = #fmlp.layout<in_out>, precision = #fmlp.precision<tf32>, up_layout = #fmlp.layout<in_out>}
// CHECK-NOT: fmlp.transpose
// CHECK-LABEL: func.func @mlp.forward_nograd(
// CHECK-NOT: fmlp.transpose
// CHECK: return

// Chunked (save=u: the gate projection again in the backward, reading Wg
// K-major: not copied for it): the copies before the chunk loop, once.
// CHUNKS-LABEL: func.func @mlp.backward(
// CHUNKS: fmlp.transpose ins(%{{.+}} : memref<1024x2816xf32>) outs(%{{.+}} : memref<2816x1024xf32>)
// CHUNKS-NEXT: fmlp.transpose ins(%{{.+}} : memref<2816x1024xf32>) outs(%{{.+}} : memref<1024x2816xf32>)
// CHUNKS-NEXT: fmlp.transpose ins(%{{.+}} : memref<2816x1024xf32>) outs(%{{.+}} : memref<1024x2816xf32>)
// CHUNKS: scf.for
// CHUNKS-NOT: fmlp.transpose
// CHUNKS: fmlp.gate ins(%{{[^,]+}}, %arg1 :
// CHUNKS: return

// mma_sync asked for, or a chip without WGMMA: its kernels read any layout.
// NONE-NOT: fmlp.transpose
// NONE-NOT: _transposed

// The copy as a kernel: 32 x 32 tiles (256 threads), grid x over the
// input's 2816 columns, y over its 1024 rows, never over T; launched only
// from T = 513 (fmlp.min_tokens), where the first kernel that reads it
// serves: the token variants of T <= 512 read the weight as stored
// (MN-major, Wd itself) and transpose it in their stages.
// KERNEL-LABEL: func.func @mlp.backward(
// KERNEL: %[[T:.+]] = memref.dim %arg0, %{{.+}} : memref<?x1024xf32>
// KERNEL: %[[FROM:.+]] = arith.constant 513 : index
// KERNEL: %[[NEEDED:.+]] = arith.cmpi uge, %[[T]], %[[FROM]] : index
// KERNEL: scf.if %[[NEEDED]] {
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_backward_k0_transpose blocks in (%c88, %c32, %{{.+}}) threads in (%c256{{[_0-9]*}},
// KERNEL-SAME: args(%arg3 : memref<1024x2816xf32>, %arg10 : memref<2816x1024xf32>,
// KERNEL-SAME: fmlp.grid_fixed = array<i64: 88, 32, 1>, fmlp.grid_tokens_per_block = array<i64: 0, 0, 0>
// KERNEL-SAME: fmlp.min_tokens = 513
// KERNEL-SAME: fmlp.written = array<i64: 1>
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_backward_k3_down_grad_upto256_transpose_in_stages
// KERNEL-SAME: args(%arg4 : memref<?x1024xf32>, %arg3 : memref<1024x2816xf32>,
// KERNEL-SAME: fmlp.max_tokens = 256
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_backward_k3_down_grad_upto512_transpose_in_stages
// KERNEL-SAME: args(%arg4 : memref<?x1024xf32>, %arg3 : memref<1024x2816xf32>,
// KERNEL-SAME: fmlp.max_tokens = 512 : i64, fmlp.min_tokens = 257
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_backward_k3_down_grad_upto1024
// KERNEL-SAME: args(%arg4 : memref<?x1024xf32>, %arg10 : memref<2816x1024xf32>,
// KERNEL-SAME: fmlp.min_tokens = 513
// The bound at 0: every kernel reads the copies, made at every T; at -1:
// every kernel transposes in its stages, and no copy is made (its
// workspace stays an argument that no launch refers to).
// COPIES-LABEL: func.func @mlp.backward(
// COPIES-NOT: scf.if
// COPIES: gpu.launch_func @fmlp_kernels::@mlp_backward_k0_transpose
// COPIES-NOT: transpose_in_stages
// COPIES: return
// STAGES-LABEL: func.func @mlp.backward(
// STAGES-NOT: @mlp_backward_k{{[0-9]+}}_transpose
// STAGES: gpu.launch_func @fmlp_kernels::@mlp_backward_k{{[0-9]+}}_down_grad_transpose_in_stages blocks
// STAGES-NOT: @mlp_backward_k{{[0-9]+}}_transpose
// STAGES: return
// KERNEL-LABEL: llvm.func @mlp_backward_k0_transpose(
// KERNEL: nvvm.barrier0
// KERNEL: llvm.return
func.func @mlp(%x: tensor<?x1024xf32>, %wg: tensor<2816x1024xf32>,
               %wu: tensor<2816x1024xf32>, %wd: tensor<1024x2816xf32>)
    -> tensor<?x1024xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<tf32>}
      : (tensor<?x1024xf32>, tensor<2816x1024xf32>, tensor<2816x1024xf32>,
         tensor<1024x2816xf32>) -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}

// -----

// bf16: WGMMA reads 16-bit operands in either layout.
// CHECK-LABEL: func.func @mlp16.backward(
// CHECK-NOT: fmlp.transpose
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

// highest at D = 64: down_grad's 64-term contraction takes IEEE fp32 on
// SIMT (tf32x3's bound holds from 84 terms), which reads Wd as it is;
// input_grad's 256 terms take tf32x3 on WGMMA, with copies of Wg and Wu.
// CHECK-LABEL: func.func @small.backward(
// CHECK-NOT: down_transposed
// CHECK-SAME: {fmlp.name = "gate_transposed", fmlp.workspace}
// CHECK-NEXT: fmlp.transpose
// CHECK-NEXT: fmlp.transpose
// CHECK: fmlp.down_grad silu ins(%{{.+}}, %arg3,
// CHECK: fmlp.input_grad {{.*}}strategy = wgmma
func.func @small(%x: tensor<?x64xf32>, %wg: tensor<128x64xf32>,
                 %wu: tensor<128x64xf32>, %wd: tensor<64x128xf32>)
    -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<highest>}
      : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>,
         tensor<64x128xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// LoRA (docs/LoRA.md): K3's B is [Wd^T | Ad] and K4's [Wg^T | Wu^T | A_cat],
// the adapters' matrices MN-major beside the weights; a copy of a weight
// alone would leave two layouts in one operand, which neither WGMMA nor
// mma_sync reads: no copy of Wd, Wg, Wu, the ops keep them (and the landing
// slots). The adapters' own backward GEMMs (dZ = [dG dU] [Bg Bu], dZd = dy
// Bd: input_grad and down_grad with the B matrices as their weights) read
// those MN-major alone: each gets a copy (R x H, Rd x D elements).
// CHECK-LABEL: func.func @lora.backward(
// CHECK-SAME: {fmlp.name = "workspace"}, %{{.+}}: memref<4x64xf32> {fmlp.name = "down_lora_b_transposed", fmlp.workspace}, %{{.+}}: memref<8x96xf32> {fmlp.name = "gate_lora_b_transposed", fmlp.workspace}, %{{.+}}: memref<8x96xf32> {fmlp.name = "up_lora_b_transposed", fmlp.workspace})
// CHECK-NEXT: fmlp.transpose ins(%{{.+}} : memref<64x4xf32>)
// CHECK-NEXT: fmlp.transpose ins(%{{.+}} : memref<96x8xf32>)
// CHECK-NEXT: fmlp.transpose ins(%{{.+}} : memref<96x8xf32>)
// CHECK-NOT: fmlp.transpose
// CHECK: fmlp.down_grad {{.*}}reason = "tf32 products of fp32 operands, the MN-major ones transposed in shared memory
// CHECK: return
func.func @lora(%x: tensor<?x64xf32>, %wg: tensor<96x64xf32>, %wu: tensor<96x64xf32>,
                %wd: tensor<64x96xf32>, %a: tensor<8x64xf32>, %bg: tensor<96x8xf32>,
                %bu: tensor<96x8xf32>, %ad: tensor<4x96xf32>, %bd: tensor<64x4xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd lora(%a, %bg, %bu) down_lora(%ad, %bd) {precision = #fmlp.precision<tf32>}
      : (tensor<?x64xf32>, tensor<96x64xf32>, tensor<96x64xf32>, tensor<64x96xf32>,
         tensor<8x64xf32>, tensor<96x8xf32>, tensor<96x8xf32>, tensor<4x96xf32>, tensor<64x4xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// Weights stored [in, out] (ONNX, JAX exports) at tf32: the forward's K1
// and K2 read them MN-major, so they get transposed copies too; their
// token variants of T <= 512 read the weights themselves and transpose
// them in their stages, and the copies are launched from T = 513 only.
// KERNEL-LABEL: func.func @mlp_in_out.forward_nograd(
// KERNEL: %[[NEEDED:.+]] = arith.cmpi uge, %{{.+}}, %{{.+}} : index
// KERNEL: scf.if %[[NEEDED]] {
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_in_out_forward_nograd_k0_transpose
// KERNEL-SAME: args(%arg1 : memref<1024x2816xf32>, %arg6 : memref<2816x1024xf32>,
// KERNEL-SAME: fmlp.min_tokens = 513
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_in_out_forward_nograd_k3_gate_up_upto512_transpose_in_stages
// KERNEL-SAME: args(%arg0 : memref<?x1024xf32>, %arg1 : memref<1024x2816xf32>, %arg2 : memref<1024x2816xf32>,
// KERNEL-SAME: fmlp.max_tokens = 512
// KERNEL: gpu.launch_func @fmlp_kernels::@mlp_in_out_forward_nograd_k3_gate_up
// KERNEL-SAME: args(%arg0 : memref<?x1024xf32>, %arg6 : memref<2816x1024xf32>, %arg7 : memref<2816x1024xf32>,
// KERNEL-SAME: fmlp.min_tokens = 513
func.func @mlp_in_out(%x: tensor<?x1024xf32>, %wg: tensor<1024x2816xf32>,
                      %wu: tensor<1024x2816xf32>, %wd: tensor<2816x1024xf32>)
    -> tensor<?x1024xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      {gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>,
       down_layout = #fmlp.layout<in_out>, precision = #fmlp.precision<tf32>}
      : (tensor<?x1024xf32>, tensor<1024x2816xf32>, tensor<1024x2816xf32>,
         tensor<2816x1024xf32>) -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}
