// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --fmlp-tf32-transpose=cp-async --split-input-file | FileCheck %s
// RUN: not fmlp-opt %s --fmlp-tf32-transpose=tma 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: for the --fmlp-tf32-transpose option: Cannot find option named 'tma'!

// fp32 operands stored MN-major (K3's Wd, its rows indexing k) copied into
// the stages by cp.async (--fmlp-tf32-transpose=cp-async, codegen/
// WgmmaGemm.cpp): no landing slots (3 stages of (128 + 128) rows of 128
// bytes and the barriers' KiB); each of the producer warpgroup's 128
// threads (40 registers after setmaxnreg, the consumers 232) copies 32
// elements of Wd's 128 x 32 tile a k-step, 4 bytes each, and has the
// stage's full barrier count their completion (noinc: 128 of its 129
// arrivals, the last the expect_tx of dy's tile, which TMA loads as
// before). Each copy's source is the first one's plus a constant: 8 n
// (rows of 8 elements) or 16 k rows of 128 elements (2048); an edge tile
// copies nothing from outside (src-size 0). The consumers fence the stage
// for the async proxy once it is full, then read both operands K-major.
// CHECK-LABEL: gpu.launch_func @fmlp_kernels::@k3_k0_down_grad
// CHECK-SAME: dynamic_shared_memory_size %c99328_i32
// CHECK-LABEL: llvm.func @k3_k0_down_grad(
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.+}}, %c129_i32
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg0,
// CHECK: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: %[[NEXT_K:.+]] = llvm.getelementptr %{{.+}}[%c2048_i64]
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.addi
// CHECK-NEXT: %[[TO:.+]] = llvm.getelementptr
// CHECK-NEXT: nvvm.cp.async.shared.global %[[TO]], %[[NEXT_K]], 4, cache =  ca : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-COUNT-30: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: } else {
// CHECK-COUNT-32: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca, %{{.+}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.mbarrier.arrive %{{.+}} {noinc = true}
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK: nvvm.setmaxregister  increase 232
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 8>, D[<f32>, <zero>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// Before a consumer releases a stage, its WGMMAs' reads (async proxy)
// are fenced against the producer's next copies into it (generic proxy).
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NOT: nvvm.wgmma
// CHECK: nvvm.mbarrier.arrive %
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NEXT: nvvm.fence.proxy
func.func @k3(%dy: memref<?x64xf32>, %wd: memref<64x128xf32>, %g: memref<?x128xf32>, %u: memref<?x128xf32>) {
  fmlp.down_grad silu ins(%dy, %wd, %g, %u : memref<?x64xf32>, memref<64x128xf32>, memref<?x128xf32>, memref<?x128xf32>) outs(%g, %u : memref<?x128xf32>, memref<?x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 32], stages = 3, cluster = [1, 1], shared_bytes = 99328, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32>}
  return
}

// -----

// K6 (dWd = dy^T A): both operands' rows index k = T, both copied (A's 128
// x 32 tile, 32 copies a thread, then B's 256 x 32, 64, each in a branch
// for whole tiles and one for edge tiles); no TMA load into the stages, so
// the producer's 128 arrivals alone complete a full barrier.
// CHECK-LABEL: llvm.func @k6_k0_down_weight_grad(
// CHECK: nvvm.mbarrier.init %{{.+}}, %c128_i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c2_i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c128_i32
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: scf.for
// CHECK-NOT: nvvm.mbarrier.arrive.expect_tx
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK-COUNT-32: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: } else {
// CHECK-COUNT-32: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca, %{{.+}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-COUNT-64: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: } else {
// CHECK-COUNT-64: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca, %{{.+}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.mbarrier.arrive %{{.+}} {noinc = true}
func.func @k6(%dy: memref<?x64xf32>, %a: memref<?x256xf32>, %dwd: memref<64x256xf32>) {
  fmlp.down_weight_grad ins(%dy, %a : memref<?x64xf32>, memref<?x256xf32>) outs(%dwd : memref<64x256xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 32], stages = 2, cluster = [1, 1], shared_bytes = 99328, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32>}
  return
}
