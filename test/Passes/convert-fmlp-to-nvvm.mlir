// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles --convert-fmlp-to-nvvm --split-input-file | FileCheck %s

// bf16: each kernel op becomes a launch of a WGMMA kernel. Tensor maps come
// first (the operands TMA reads: x, Wg, Wu for K1; then the outputs, in
// 64 x 64 boxes, through which the epilogue moves its staged blocks: A, G,
// U), then every buffer, then T; the grid is ceil(T / 128) x (n tiles), 384
// threads, the shared memory of 4 stages.
// K1 and K2 also have a small_tokens kernel: an scf.if on T <= 16 picks
// the launch, each marked with its range of T (the manifest's); the small
// one has a fixed grid of N / 16 blocks of 256 threads, no tensor maps,
// and asks 16-byte aligned arguments (fmlp.vector_access).
// CHECK-LABEL: func.func @mlp.forward(
// CHECK: %[[T:.+]] = memref.dim %arg0, %c0
// CHECK: %[[FEW:.+]] = arith.cmpi ule, %[[T]], %c16
// CHECK: scf.if %[[FEW]] {
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_forward_k0_gate_up_small_tokens blocks in (%c8, %c1{{.*}}, %c1{{.*}}) threads in (%c256, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c0_i32 args(%arg0 : memref<?x64xbf16>, %arg1 : memref<128x64xbf16>, %arg2 : memref<128x64xbf16>, %{{.+}}, %{{.+}}, %{{.+}}, %[[T]] : index)
// CHECK-SAME: fmlp.max_tokens = 16
// CHECK-SAME: fmlp.vector_access
// CHECK: } else {
// CHECK: %[[GX:.+]] = arith.ceildivui %[[T]], %c128
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_forward_k0_gate_up blocks in (%[[GX]], %c1{{.*}}, %c1{{.*}}) threads in (%c384, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c197632_i32 args(%arg0 : memref<?x64xbf16>, %arg1 : memref<128x64xbf16>, %arg2 : memref<128x64xbf16>, %[[A:.+]] : memref<?x128xbf16, strided<[384, 1]>>, %[[G:.+]] : memref<?x128xbf16, strided<[384, 1], offset: 128>>, %[[U:.+]] : memref<?x128xbf16, strided<[384, 1], offset: 256>>, %arg0 : memref<?x64xbf16>, %arg1 : memref<128x64xbf16>, %arg2 : memref<128x64xbf16>, %[[A]] : {{.+}}, %[[G]] : {{.+}}, %[[U]] : {{.+}}, %[[T]] : index)
// CHECK-SAME: fmlp.min_tokens = 17
// x, whose rows are T, arrives in boxes of 32 rows (none loaded past T);
// the weights in boxes of the tile's 128 columns, the outputs of 64.
// CHECK-SAME: fmlp.tensor_map_box_rows = array<i64: 32, 128, 128, 64, 64, 64>
// CHECK-SAME: fmlp.written = array<i64: 9, 10, 11>
// K2 (N = 64: a tile of one 64-column box, 6 stages) has one variant
// (token_variants): small_tokens for T <= 16; an scf.if picks the launch.
// (convert-fmlp-to-nvvm-split-k.mlir has a chain of WGMMA variants.)
// CHECK: %[[TA:.+]] = memref.dim %{{.+}}, %c0
// CHECK: %[[FEWA:.+]] = arith.cmpi ule, %[[TA]], %c16
// CHECK: scf.if %[[FEWA]] {
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_forward_k1_down_small_tokens
// CHECK-SAME: fmlp.max_tokens = 16
// CHECK: } else {
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_forward_k1_down blocks in (%{{.+}}, %c1{{.*}}, %c1{{.*}}) threads in (%c384, {{.*}}) dynamic_shared_memory_size %c148480_i32
// CHECK-SAME: fmlp.min_tokens = 17
// CHECK-LABEL: func.func @mlp.backward(
// K4 reads [dG dU] as one view of 2H = 256 columns, and [Wg; Wu] split
// along K, MN-major (64-row boxes); dx is its output map. [dG dU]'s rows
// are T: boxes of 32.
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k2_input_grad
// CHECK-SAME: fmlp.tensor_map_box_rows = array<i64: 32, 64, 64, 64>
// CHECK-SAME: fmlp.tensor_map_cols = array<i64: 256, 64, 64, 64>
// K5's output, [dWg; dWu], is two buffers under one view: no map of its
// own, so its staged blocks move out by threads in 16-byte pieces.
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k3_gate_up_weight_grad
// CHECK-SAME: fmlp.tensor_map_box_rows = array<i64: 64, 64>,
// CHECK: gpu.module @fmlp_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">]
// CHECK: llvm.mlir.global external @fmlp_dynamic_shared() {addr_space = 3 : i32, alignment = 1024 : i64}
// CHECK: llvm.func @mlp_forward_k0_gate_up(%{{.+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK-SAME: %{{.+}}: !llvm.ptr<1> {llvm.noalias}
// CHECK-SAME: %{{.+}}: i64)
// CHECK-SAME: nvvm.kernel, nvvm.maxnreg = 168 : i32, nvvm.reqntid = array<i32: 384, 1, 1>
// The block's tile in grouped order: groups of 16 m tiles (the last one
// smaller) walked m first, then n.
// CHECK: %[[GX:.+]] = nvvm.read.ptx.sreg.nctaid.x
// CHECK: nvvm.read.ptx.sreg.nctaid.y
// CHECK: %[[LEFT:.+]] = arith.subi %[[GX]], %{{.+}}
// CHECK: %[[ROWS:.+]] = arith.minui %[[LEFT]], %c16_i32
// CHECK: %[[IN:.+]] = arith.remui
// CHECK: arith.remui %[[IN]], %[[ROWS]]
// CHECK: arith.divui %[[IN]], %[[ROWS]]
// Thread 0 fences its mbarrier inits for the async proxy (TMA completes
// its bytes on them) before the barrier that publishes them.
// CHECK: nvvm.mbarrier.init
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// The epilogue's sigmoid, 1 / (1 + e^-g), as two MUFU instructions:
// e^-g = 2^(-g log2 e) by ex2.approx.ftz, not libdevice's expf, and an
// approximate reciprocal (bench/NOTES.md items 7 and 32), not the IEEE
// division.
// CHECK: %[[P:.+]] = arith.mulf %{{.+}}, %cst{{.*}} : f32
// CHECK-NEXT: %[[E:.+]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[P]])
// CHECK: %[[D:.+]] = arith.addf %cst{{.*}}, %[[E]] : f32
// CHECK-NEXT: nvvm.rcp.approx.ftz.f %[[D]] : f32
// CHECK: llvm.func @mlp_forward_k1_down(
// CHECK: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 64, k = 16>
// K3 reads Wd [D, H] with rows indexing its K (d): MN-major B. Its
// epilogue reads G and U, each through a tensor map: the producer loads
// them after the main loop's stages, into the ring's stages as the
// consumers free them (stage 0's six 16-KiB boxes, stage 1's six, stage
// 2's four), counted on each consumer's mbarrier (2 x 2 x 16 KiB). Then
// the producer warpgroup (120 registers) takes each consumer's last box:
// it waits for the consumer's hand-off (256 threads: its 128 and the
// consumer's), computes the box from the accumulators left in shared
// memory, and stores it.
// CHECK: llvm.func @mlp_backward_k0_down_grad(
// Each stage's bytes: 48 KiB less the boxes of dY's 32 rows past T (of 4).
// CHECK: nvvm.setmaxregister decrease 120
// CHECK: %[[BOXES:.+]] = arith.minui %c4_i32{{.*}}, %{{.+}} : i32
// CHECK: %[[SKIPPED:.+]] = arith.subi %c4_i32{{.*}}, %[[BOXES]]
// CHECK: %[[SKIPPED_BYTES:.+]] = arith.muli %[[SKIPPED]], %c4096_i32
// CHECK: %[[BYTES:.+]] = arith.subi %c49152_i32, %[[SKIPPED_BYTES]]
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %[[BYTES]]
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c65536_i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c65536_i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-6: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-6: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: nvvm.bar.warp.sync
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %c256
// CHECK: "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.barrier id = %{{.+}} number_of_threads = %c256
// CHECK: "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: nvvm.setmaxregister increase 192
// K-step 0 starts the sums (scale-out zero), and each step's group stays
// in flight while the next is issued.
// CHECK: nvvm.wgmma.mma_async {{.*}}D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.wgmma.mma_async {{.*}}D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// The consumer leaves its last box's 32 registers (8 pieces of 4) and
// arrives on the hand-off barrier; it issues no load and waits on no other
// consumer: it waits for its mbarrier, then writes dG and dU over G and U
// in its first three boxes, 64 columns at a time, and stores each box by
// TMA (one group) once its writes are fenced for the async proxy, before
// the next box's elements; at the end it waits until the stores have read
// its blocks.
// CHECK-COUNT-8: llvm.store {{.*}} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier.arrive id = %{{.+}} number_of_threads = %c256
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: number_of_threads = %c256
// CHECK: nvvm.mbarrier.try_wait.parity
// Each column pair's G (and U) is one 32-bit load of its staged block, and
// the slope, s + silu (1 - s), ends in a multiply-add that may fuse.
// CHECK: llvm.load {{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<2xbf16>
// CHECK: "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: arith.addf {{.*}} fastmath<contract> : f32
// CHECK: nvvm.fence.proxy
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: nvvm.fence.proxy
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK: "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: nvvm.fence.proxy
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NOT: "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// K5: both operands MN-major.
// CHECK: llvm.func @mlp_backward_k3_gate_up_weight_grad(
// CHECK: nvvm.wgmma.mma_async {{.*}}A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: llvm.func @mlp_forward_nograd_k0_gate_up(
func.func @mlp(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
               %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}

// -----

// f32: SIMT kernels, 256 threads, 64 x 64 tiles, no tensor maps; the
// parameters are the distinct buffers and T.
// CHECK-LABEL: func.func @f32.forward(
// CHECK: %[[T:.+]] = memref.dim %arg0, %c0
// CHECK: %[[GX:.+]] = arith.ceildivui %[[T]], %c64
// CHECK: gpu.launch_func @fmlp_kernels::@f32_forward_k0_gate_up blocks in (%[[GX]], %c2{{.*}}, %c1{{.*}}) threads in (%c256, %c1{{.*}}, %c1{{.*}}) dynamic_shared_memory_size %c0_i32 args(%arg0 : memref<?x64xf32>, %arg1 : memref<128x64xf32>, %arg2 : memref<128x64xf32>, %{{.+}}, %{{.+}}, %{{.+}}, %[[T]] : index)
// CHECK-SAME: fmlp.tensor_map_box_rows = array<i64>
// CHECK: llvm.mlir.global internal @f32_forward_k0_gate_up_a() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1024 x f32>
// CHECK: llvm.func @f32_forward_k0_gate_up(%{{.+}}: !llvm.ptr<1> {llvm.noalias}
// CHECK-SAME: nvvm.maxnreg = 128 : i32, nvvm.reqntid = array<i32: 256, 1, 1>
// CHECK: math.fma
// CHECK: nvvm.barrier0
// The float32 kernels' sigmoid keeps libdevice's expf and a correctly
// rounded division (the 16-bit kernels' single instructions are above).
// CHECK-NOT: llvm.func
// CHECK: math.exp %{{.+}} : f32
// CHECK-NOT: llvm.func
// CHECK: arith.divf %cst{{.*}}, %{{.+}} : f32
// CHECK-NOT: "llvm.nvvm.ex2.approx.ftz.f32"
// CHECK-NOT: nvvm.rcp.approx.ftz.f
func.func @f32(%x: tensor<?x64xf32>, %wg: tensor<128x64xf32>, %wu: tensor<128x64xf32>,
               %wd: tensor<64x128xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// f32 at precision tf32: K1 and K2 (both operands K-major) on WGMMA, k8
// on tf32 from the fp32 bits TMA stores (k-steps of 32 fp32 elements: the
// tensor maps' boxes are 32 columns, one 128-byte row); no output maps (the
// epilogue stores fp32 directly: x, Wg, Wu only). The backward's kernels
// read MN-major operands, which land in slots past the ring and are
// transposed there (K3 at 256 columns: 3 stages and 2 slots, 214,016 B).
// CHECK-LABEL: func.func @tf32.forward(
// CHECK: gpu.launch_func @fmlp_kernels::@tf32_forward_k0_gate_up_upto2048 {{.*}}threads in (%c384{{.*}}dynamic_shared_memory_size %c197632_i32
// CHECK: gpu.launch_func @fmlp_kernels::@tf32_forward_k0_gate_up blocks
// CHECK-SAME: fmlp.tensor_map_box_cols = array<i64: 32, 32, 32>
// CHECK-SAME: fmlp.tensor_map_box_rows = array<i64: 32, 128, 128>
// CHECK: gpu.launch_func @fmlp_kernels::@tf32_forward_k1_down blocks
// CHECK-SAME: fmlp.tensor_map_box_cols = array<i64: 32, 32>
// CHECK-LABEL: func.func @tf32.backward(
// CHECK: gpu.launch_func @fmlp_kernels::@tf32_backward_k0_down_grad_upto2048
// CHECK: gpu.launch_func @fmlp_kernels::@tf32_backward_k0_down_grad blocks {{.*}}threads in (%c384{{.*}}dynamic_shared_memory_size %c214016_i32
// CHECK: gpu.launch_func @fmlp_kernels::@tf32_backward_k1_down_weight_grad blocks
// CHECK: gpu.launch_func @fmlp_kernels::@tf32_backward_k2_input_grad blocks
// CHECK: gpu.launch_func @fmlp_kernels::@tf32_backward_k3_gate_up_weight_grad blocks
// CHECK: llvm.func @tf32_forward_k0_gate_up(
// CHECK: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 8>, D[<f32>, <zero>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-NOT: llvm.func
// CHECK: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK: llvm.func @tf32_forward_k1_down(
// CHECK: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 64, k = 8>, D[<f32>, <zero>], A[<tf32>
// CHECK: llvm.func @tf32_backward_k0_down_grad(
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 8>, D[<f32>, <zero>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
func.func @tf32(%x: tensor<?x64xf32>, %wg: tensor<128x64xf32>, %wu: tensor<128x64xf32>,
                %wd: tensor<64x128xf32>) -> tensor<?x64xf32> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd {precision = #fmlp.precision<tf32>}
      : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// -----

// Bias gradients: a column sum over T per bias, 256 threads on 32 columns
// per block (H = 128: 4 blocks; D = 64: 2). Each warp sums its tokens (w,
// w + 8, ...) 16 at a time, all 16 loads before the adds, then the 8 warp
// totals meet in shared memory after a barrier.
// CHECK-LABEL: func.func @biased.backward(
// CHECK: gpu.launch_func @fmlp_kernels::@biased_backward_k4_bias_grad blocks in (%c4{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c256{{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK: gpu.launch_func @fmlp_kernels::@biased_backward_k6_bias_grad blocks in (%c2{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c256{{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK: llvm.mlir.global internal @biased_backward_k4_bias_grad_totals() {{.*}} : !llvm.array<256 x f32>
// CHECK: llvm.func @biased_backward_k4_bias_grad(
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c128
// CHECK-COUNT-16: llvm.load %{{.+}} : !llvm.ptr<1> -> bf16
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load %{{.+}} : !llvm.ptr<3> -> f32
func.func @biased(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
                  %wd: tensor<64x128xbf16>, %bg: tensor<128xbf16>, %bu: tensor<128xbf16>,
                  %bd: tensor<64xbf16>) -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd gate_bias %bg up_bias %bu down_bias %bd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>,
         tensor<128xbf16>, tensor<128xbf16>, tensor<64xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
