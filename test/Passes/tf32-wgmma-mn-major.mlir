// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --fmlp-tf32-wgmma-mn-major --split-input-file | FileCheck %s
// RUN: not fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --fmlp-tf32-wgmma-mn-major --fmlp-tf32-landing-slots=3 --split-input-file 2>/dev/null | FileCheck %s --check-prefix=SLOTS3
// RUN: not fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --fmlp-tf32-wgmma-mn-major --fmlp-tf32-landing-slots=3 --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=SLOTS3-K6
// K6's hand-written config (2 stages of 256 columns) does not fit beside a
// third 48 KiB slot (tile selection would narrow its tiles).
// SLOTS3-K6: error: 'fmlp.down_weight_grad' op has a kernel config it cannot be built with: wgmma stages = 2 take 246784 B of shared memory, past sm_90a's 232448
// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --fmlp-tf32-wgmma-mn-major --fmlp-mn-major-a-in-registers=all --fmlp-ping-pong=all --split-input-file | FileCheck %s --check-prefix=ALL
// RUN: not fmlp-opt %s --fmlp-tf32-landing-slots=5 2>&1 | FileCheck %s --check-prefix=BAD-SLOTS
// BAD-SLOTS: for the --fmlp-tf32-landing-slots option: must be 2 to 4, not '5'

// fp32 operands stored MN-major (K3's Wd, its rows indexing k) on tf32
// WGMMA (--fmlp-tf32-wgmma-mn-major, codegen/WgmmaGemm.cpp): TMA loads
// Wd's k-step tile into a landing slot in boxes of 32 k rows x 32 columns;
// the producer warpgroup's 128 threads (88 registers each after
// setmaxnreg, the consumers 208) write it K-major into the stage, 16 bytes
// at a time, fence their writes for the async proxy and meet on named
// barrier 4, then one arrives on the stage's full barrier: two arrivals
// complete it, this one and the expect_tx of dy's tile (K-major, loaded
// into the stage directly in boxes of 32 rows, those past T skipped). The
// consumers' WGMMAs read both K-major (A row, B col).
// CHECK-LABEL: gpu.launch_func @fmlp_kernels::@k3_k0_down_grad
// CHECK-SAME: dynamic_shared_memory_size %c132096_i32
// CHECK-SAME: fmlp.tensor_map_box_cols = array<i64: 32, 32>, fmlp.tensor_map_box_rows = array<i64: 32, 32>
// CHECK-LABEL: llvm.func @k3_k0_down_grad(
// 3 stages of (128 + 128) rows of 128 bytes, 2 landing slots of 128 rows,
// the barriers: full (2 arrivals) and empty (2) of each stage, landing (1).
// CHECK-COUNT-6: nvvm.mbarrier.init %{{.+}}, %c2_i32
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.+}}, %c1_i32
// CHECK: nvvm.setmaxregister  decrease 88
// Step 0's landing boxes (4 of 32 columns), before the loop.
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg1,
// CHECK: scf.for
// The next step's landing boxes, the stage's release, dy's tile.
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg1,
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg0,
// The landing slot's wait, then 2 rounds of 4 loads and 4 stores, round
// 1's loads before round 0's stores.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-8: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK-COUNT-8: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %c4_i32{{.*}} number_of_threads = %c128_i32
// CHECK: nvvm.mbarrier.arrive %
// CHECK: nvvm.setmaxregister  increase 208
// CHECK: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 8>, D[<f32>, <zero>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// With three landing slots, three landing barriers, and steps 0 and 1
// filled before the loop (the second only if K has two k-steps).
// SLOTS3-LABEL: llvm.func @k3_k0_down_grad(
// SLOTS3-COUNT-6: nvvm.mbarrier.init %{{.+}}, %c2_i32
// SLOTS3-COUNT-3: nvvm.mbarrier.init %{{.+}}, %c1_i32
// SLOTS3: nvvm.setmaxregister  decrease 88
// SLOTS3-COUNT-2: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// SLOTS3: scf.for
func.func @k3(%dy: memref<?x64xf32>, %wd: memref<64x128xf32>, %g: memref<?x128xf32>, %u: memref<?x128xf32>) {
  fmlp.down_grad silu ins(%dy, %wd, %g, %u : memref<?x64xf32>, memref<64x128xf32>, memref<?x128xf32>, memref<?x128xf32>) outs(%g, %u : memref<?x128xf32>, memref<?x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 32], stages = 3, cluster = [1, 1], shared_bytes = 132096, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32>}
  return
}

// -----

// K6 (dWd = dy^T A): both operands' rows index k = T, both land (48 KiB a
// slot at 256 columns); only the producer's arrival completes a stage.
// CHECK-LABEL: llvm.func @k6_k0_down_weight_grad(
// CHECK: nvvm.mbarrier.init %{{.+}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c2_i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c2_i32
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.+}}, %c1_i32
// CHECK: nvvm.setmaxregister  decrease 88
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c49152_i32
// CHECK-COUNT-12: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c49152_i32
// CHECK-NOT: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.fence.proxy
func.func @k6(%dy: memref<?x64xf32>, %a: memref<?x256xf32>, %dwd: memref<64x256xf32>) {
  fmlp.down_weight_grad ins(%dy, %a : memref<?x64xf32>, memref<?x256xf32>) outs(%dwd : memref<64x256xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 32], stages = 2, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32>}
  return
}

// -----

// A/B settings of tf32's (the defaults take them for tf32x3 only): the
// weight gradient's dy (A, MN-major) read by the consumers as TMA stores it
// and rounded in registers (--fmlp-mn-major-a-in-registers=all), so the
// landing slots hold B's tile alone (16 KiB at 128 columns) and full[s]
// completes on the producer's arrival and the leader's expect_tx for A;
// with 3 stages A is loaded one step ahead of the transposition (step 0's
// before the loop), once its stage is free, and warp 0 meets again
// (bar.warp.sync) before the transposition's aligned barrier. The
// consumers issue their groups in turn (--fmlp-ping-pong=all).
// ALL-LABEL: llvm.func @k6b_k0_down_weight_grad(
// ALL-COUNT-3: nvvm.mbarrier.init %{{.+}}, %c2_i32
// ALL: nvvm.setmaxregister  decrease 88
// ALL: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// ALL-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg1,
// ALL: nvvm.mbarrier.try_wait.parity
// ALL: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// ALL-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg0,
// ALL: scf.for
// ALL: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// ALL-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg1,
// ALL: nvvm.mbarrier.try_wait.parity
// ALL: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// ALL-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg0,
// ALL: nvvm.bar.warp.sync
// ALL: nvvm.barrier id = %c4_i32{{.*}} number_of_threads = %c128_i32
// ALL: nvvm.setmaxregister  increase 208
// ALL: nvvm.barrier.arrive id = %{{.+}} number_of_threads = %c256_i32
// ALL: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// ALL: nvvm.convert.float.to.tf32 %{{.+}} {rnd = #nvvm.fp_rnd_mode<rna>}
// ALL: nvvm.barrier id = %{{.+}} number_of_threads = %c256_i32
// ALL-NEXT: nvvm.wgmma.fence.aligned
// ALL: wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32
// ALL: nvvm.wgmma.commit.group.sync.aligned
// ALL: nvvm.barrier.arrive id = %{{.+}} number_of_threads = %c256_i32
func.func @k6b(%dy: memref<?x64xf32>, %a: memref<?x128xf32>, %dwd: memref<64x128xf32>) {
  fmlp.down_weight_grad ins(%dy, %a : memref<?x64xf32>, memref<?x128xf32>) outs(%dwd : memref<64x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 32], stages = 3, cluster = [1, 1], shared_bytes = 164864, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32>, fmlp.tf32_rounded}
  return
}
