// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm | FileCheck %s --implicit-check-not=nvvm.cp.async.shared.global
// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --fmlp-mn-major-a-in-registers=none | FileCheck %s --check-prefix=NOREG --implicit-check-not=nvvm.cp.async.shared.global
// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --fmlp-tf32x3-transpose=copy | FileCheck %s --check-prefix=COPY

// tf32x3's MN-major B landed by TMA and split as it is transposed (the
// default, --fmlp-tf32x3-transpose=landing, codegen/WgmmaGemm.cpp): K6's B (A's
// tile, its rows T) lands in a landing slot in 4 boxes of 32 k rows x 32
// columns (16 KiB), no 4-byte cp.async copies; dy (A) comes by TMA into the
// stage as stored, split in registers by the consumers. The producer's 128
// threads (72 registers each; the consumers 216) write each element's hi =
// rna(x) at its K-major place in the high part and lo = rna(x - hi) 16 KiB
// further (lowPartOffset: B's low part right after the high parts, A's
// none), fence their writes for the async proxy and meet on named barrier
// 4; thread 0 then arrives on full[s], which completes on that arrival and
// dy's expect_tx (2); no splitting producer, no ready[s]: the consumers wait
// on full[s]. 3 stages of 48 KiB, 2 landing slots of 16 KiB, the barriers'
// KiB: 181248 bytes.
// CHECK-LABEL: gpu.launch_func @fmlp_kernels::@k6_k0_down_weight_grad
// CHECK-SAME: dynamic_shared_memory_size %c181248_i32
// CHECK-LABEL: llvm.func @k6_k0_down_weight_grad(
// full[s] (2 arrivals) and empty[s] (every consumer thread's: 256) of each
// stage, then landing[l] (1: TMA's bytes) of each slot.
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.+}}, %c2_i32{{[_0-9]*}} : !llvm.ptr<3>, i32{{$}}
// CHECK-NOT: nvvm.mbarrier.init %{{.+}}, %c128_i32
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.+}}, %c1_i32{{[_0-9]*}} : !llvm.ptr<3>, i32{{$}}
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.setmaxregister  decrease 72
// Step 0's landing boxes of B, then its direct load of dy (one step ahead).
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg1,
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg0,
// CHECK: scf.for
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg1,
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg0,
// The stage's release, then the slot's landing (landing[l] at 64 + 8 l).
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[L8:.+]] = arith.muli %{{.+}}, %c8_i32{{[_0-9]*}} : i32
// CHECK-NEXT: %[[LOFF:.+]] = arith.addi %[[L8]], %c64_i32 : i32
// CHECK-NEXT: %[[LANDING:.+]] = llvm.getelementptr %{{.+}}[%[[LOFF]]]
// CHECK-NEXT: arith.constant 10000000
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[LANDING]]
// Each element split: hi = rna(x), lo = rna(x - hi).
// CHECK: %[[X:.+]] = llvm.extractelement
// CHECK-NEXT: %[[HI:.+]] = nvvm.convert.float.to.tf32 %[[X]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-NEXT: %[[HIF:.+]] = llvm.bitcast %[[HI]] : i32 to f32
// CHECK-NEXT: %[[REST:.+]] = arith.subf %[[X]], %[[HIF]] : f32
// CHECK-NEXT: nvvm.convert.float.to.tf32 %[[REST]] {rnd = #nvvm.fp_rnd_mode<rna>}
// 2 rounds of 4 pieces, each hi at its K-major place, lo 16 KiB further.
// CHECK: %[[HIPTR:.+]] = llvm.getelementptr %{{.+}}[[[HIOFF:%[0-9]+]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.store %{{.+}}, %[[HIPTR]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT: %[[LOW:.+]] = arith.constant 16384 : i32
// CHECK-NEXT: %[[LOOFF:.+]] = arith.addi [[HIOFF]], %[[LOW]] : i32
// CHECK-NEXT: %[[LOPTR:.+]] = llvm.getelementptr %{{.+}}[%[[LOOFF]]]
// CHECK-NEXT: llvm.store %{{.+}}, %[[LOPTR]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-COUNT-14: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %c4_i32{{[_0-9]*}} number_of_threads = %c128_i32
// CHECK-NEXT: scf.if
// CHECK-NEXT: %c8_i32{{[_0-9]*}} = arith.constant 8 : i32
// CHECK-NEXT: %[[S8:.+]] = arith.muli %{{.+}}, %c8_i32
// CHECK-NEXT: %[[FULL:.+]] = llvm.getelementptr %{{.+}}[%[[S8]]]
// CHECK-NEXT: nvvm.mbarrier.arrive %[[FULL]] : !llvm.ptr<3>
// The consumers wait on full[s] (at 8 s), no fence of their own there.
// CHECK: nvvm.setmaxregister  increase 216
// CHECK: scf.for
// CHECK: %[[C8:.+]] = arith.muli %{{.+}}, %c8_i32 : i32
// CHECK-NEXT: %[[CFULL:.+]] = llvm.getelementptr %{{.+}}[%[[C8]]]
// CHECK-NEXT: arith.constant 10000000
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[CFULL]]
// CHECK-NOT: nvvm.fence.proxy
// CHECK: nvvm.wgmma.fence.aligned
// With A transposed too (--fmlp-mn-major-a-in-registers=none) but still
// split in registers by the consumers: A and B land (a 32 KiB slot), full[s]
// completes on the producer's arrival alone (1), and A's tile is moved raw
// (8 stores, nothing converted: its words are split from the raw x in
// registers, and compact stages keep no low part of A), B's split (16).
// NOREG-LABEL: llvm.func @k6_k0_down_weight_grad(
// NOREG: nvvm.mbarrier.init %{{.+}}, %c1_i32 : !llvm.ptr<3>, i32
// NOREG-NOT: nvvm.mbarrier.init
// NOREG: nvvm.mbarrier.init %{{.+}}, %c256_i32 : !llvm.ptr<3>, i32
// NOREG: nvvm.setmaxregister  decrease 72
// NOREG: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c32768_i32
// NOREG: scf.for
// NOREG: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c32768_i32
// NOREG-NOT: nvvm.convert.float.to.tf32
// NOREG-COUNT-8: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// NOREG-NOT: llvm.store
// NOREG: nvvm.convert.float.to.tf32
// NOREG-COUNT-16: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// NOREG-NOT: llvm.store
// NOREG: nvvm.fence.proxy
// The A/B alternative (copy): B copied by cp.async (128 of full[s]'s 129
// arrivals), split in place by the splitting producer (ready[s]).
// COPY-LABEL: gpu.launch_func @fmlp_kernels::@k6_k0_down_weight_grad
// COPY-SAME: dynamic_shared_memory_size %c148480_i32
// COPY: nvvm.mbarrier.init %{{.+}}, %c129_i32
// COPY: nvvm.setmaxregister  decrease 56
// COPY: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca
func.func @k6(%dy: memref<?x64xf32>, %a: memref<?x128xf32>, %dwd: memref<64x128xf32>) {
  fmlp.down_weight_grad ins(%dy, %a : memref<?x64xf32>, memref<?x128xf32>) outs(%dwd : memref<64x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 32], stages = 3, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32x3>}
  return
}
