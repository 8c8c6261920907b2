// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --split-input-file --fmlp-tf32x3-transpose=copy --fmlp-tf32x3-register-a=false --fmlp-tf32x3-group-k8s=1 | FileCheck %s
// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --split-input-file --fmlp-tf32x3-transpose=copy | FileCheck %s --check-prefixes=REGA,MN
// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --split-input-file --fmlp-tf32x3-transpose=copy --fmlp-mn-major-a-in-registers=none --fmlp-ping-pong=none | FileCheck %s --check-prefix=NOREG

// tf32x3 on WGMMA (codegen/WgmmaGemm.cpp, the splitting producer; MN-major
// operands copied by cp.async, --fmlp-tf32x3-transpose=copy: the default,
// landed by TMA and split as transposed, is tf32x3-transpose-landing.mlir's),
// first
// with A split by the producer like B (--fmlp-tf32x3-register-a=false) and
// each k8's sums added alone (--fmlp-tf32x3-group-k8s=1): each
// stage holds a high part (A's 128 rows and B's 128, 32 KiB) and a low part
// after it, so 3 stages of 64 KiB and the barriers' KiB. K3's Wd (MN-major)
// is copied into the high part by cp.async (128 of full[s]'s 129
// arrivals, dy's TMA load the last); each of the producer's 128 threads
// (56 registers; the consumers 216) then waits for the stage, splits its 16
// pieces of 16 bytes in place: hi = rna(x) stored back, lo = rna(x - hi)
// stored in the low part, fences the stores for the async proxy and
// arrives on ready[s] (128 arrivals). The consumers wait on ready[s] and,
// for each k8 of the k-tile, sum lo hi' + hi lo' + hi hi' from zero in
// one WGMMA group (the small products first), wait for it, and add the
// sums to the accumulators in fp32 (rounded to nearest); the first k8's
// wait also releases the previous k-step's stage (after fencing the
// WGMMAs' reads against the producer's generic-proxy writes).
// CHECK-LABEL: gpu.launch_func @fmlp_kernels::@k3_k0_down_grad
// CHECK-SAME: dynamic_shared_memory_size %c197632_i32
// CHECK-LABEL: llvm.func @k3_k0_down_grad(
// CHECK: nvvm.mbarrier.init %{{.+}}, %c129_i32
// CHECK: nvvm.mbarrier.init %{{.+}}, %c2_i32
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.+}}, %c128_i32
// CHECK: nvvm.setmaxregister  decrease 56
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg0,
// CHECK: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca : !llvm.ptr<3>, !llvm.ptr<1>
// CHECK: nvvm.cp.async.mbarrier.arrive %{{.+}} {noinc = true}
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[X:.+]] = llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK: %[[W:.+]] = llvm.extractelement %[[X]]
// CHECK-NEXT: %[[HI:.+]] = nvvm.convert.float.to.tf32 %[[W]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK-NEXT: %[[HIF:.+]] = llvm.bitcast %[[HI]] : i32 to f32
// CHECK-NEXT: %[[REST:.+]] = arith.subf %[[W]], %[[HIF]] : f32
// CHECK: nvvm.convert.float.to.tf32 %[[REST]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NEXT: arith.constant 32768 : i32
// CHECK-COUNT-31: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive %
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 0
// CHECK: nvvm.setmaxregister  increase 216
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 8>, D[<f32>, <zero>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-NEXT: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-NEXT: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive %
// CHECK-COUNT-64: arith.addf
// CHECK-COUNT-3: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: scf.yield
// With A split in registers (the default): the producer
// splits B's 128 rows alone (8 pieces a thread: 16 stores), and each
// consumer loads its A fragments of a group of 4 k8s (the default over a
// static K: 16 words, 32-bit loads), splits them, and passes both parts to
// register-sourced WGMMAs (inline PTX: A in "r" registers, B by
// descriptor), lo hi' first, from zero, 12 in one group; then 64 adds of
// the group's sums. Every
// consumer thread releases a stage (its loads before its arrival): 256
// arrivals. The two consumers issue their groups in turn (--fmlp-ping-
// pong): each waits on its turn's named barrier before its WGMMAs and
// arrives on the other's once they are committed.
// REGA-LABEL: llvm.func @k3_k0_down_grad(
// REGA: nvvm.mbarrier.init %{{.+}}, %c256_i32
// REGA: nvvm.setmaxregister  decrease 56
// REGA: nvvm.cp.async.mbarrier.arrive %{{.+}} {noinc = true}
// REGA-COUNT-16: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// REGA-NOT: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// REGA: nvvm.setmaxregister  increase 216
// REGA: scf.for
// REGA-COUNT-16: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// REGA-NOT: llvm.load
// REGA: nvvm.wgmma.fence.aligned
// REGA: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {$0, {{.*}}, $63}, {$128, $129, $130, $131}, $132, p, 1, 1;\0A}", "=f,{{.*}},63,r,r,r,r,l"
// REGA-NOT: nvvm.wgmma.commit.group.sync.aligned
// REGA-COUNT-11: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;
// REGA-NEXT: nvvm.wgmma.commit.group.sync.aligned
// REGA: nvvm.barrier.arrive id = %{{.+}} number_of_threads = %c256_i32
// REGA-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// REGA-COUNT-64: arith.addf
// REGA-NOT: nvvm.wgmma.mma_async
// REGA: scf.yield
func.func @k3(%dy: memref<?x64xf32>, %wd: memref<64x128xf32>, %g: memref<?x128xf32>, %u: memref<?x128xf32>) {
  fmlp.down_grad silu ins(%dy, %wd, %g, %u : memref<?x64xf32>, memref<64x128xf32>, memref<?x128xf32>, memref<?x128xf32>) outs(%g, %u : memref<?x128xf32>, memref<?x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 32], stages = 3, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32x3>}
  return
}

// -----

// K1 (x, [Wg Wu]): both K-major, loaded by TMA alone (full[s] completes on
// the leader's expect_tx), two accumulators of 64 columns: per k8 three
// WGMMAs on each, 32 + 32 adds. The producer's warp 0 loads, its warps 1..3
// split: ready[s] counts 96 arrivals.
// CHECK-LABEL: llvm.func @k1_k0_gate_up(
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.+}}, %c1_i32
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.+}}, %c96_i32
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.setmaxregister  increase 216
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-6: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 64, k = 8>
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
func.func @k1(%x: memref<?x64xf32>, %wg: memref<128x64xf32>, %wu: memref<128x64xf32>, %a: memref<?x128xf32>) {
  fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x64xf32>, memref<128x64xf32>, memref<128x64xf32>) outs(%a : memref<?x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 32], stages = 3, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32x3>}
  return
}

// -----

// K6 (dWd = dy^T A): both operands' rows index k = T. By default A (dy)
// comes by TMA into the stage as stored (MN-major: 4 boxes of 32 k rows x
// 32 columns, 16 KiB; --fmlp-mn-major-a-in-registers) and B (A's tile) is
// copied K-major by cp.async: full[s] completes on the 128 copies'
// arrivals and the leader's expect_tx. Each consumer loads its fragment of
// A from the MN-major boxes (4-byte loads), splits it in registers, and
// the consumers issue their k8 groups in turn: consumer 1 arrives on
// consumer 0's turn before the loop, consumer 0 waits on it once after.
// Over T as over a static K, the three products of 4 k8s are one group
// (tf32x3GroupK8s).
// MN-LABEL: llvm.func @k6_k0_down_weight_grad(
// MN: nvvm.mbarrier.init %{{.+}}, %c129_i32
// MN: nvvm.mbarrier.init %{{.+}}, %c256_i32
// MN: nvvm.setmaxregister  decrease 56
// MN: nvvm.mbarrier.arrive.expect_tx %{{.+}}, %c16384_i32
// MN-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.+}}, %arg0,
// MN-COUNT-32: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca : !llvm.ptr<3>, !llvm.ptr<1>{{$}}
// MN-NOT: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 4, cache =  ca : !llvm.ptr<3>, !llvm.ptr<1>{{$}}
// MN: nvvm.cp.async.mbarrier.arrive %{{.+}} {noinc = true}
// MN: nvvm.setmaxregister  increase 216
// MN: nvvm.barrier.arrive id = %{{.+}} number_of_threads = %c256_i32
// MN: scf.for
// The fragment's word: its piece (m mod 32) div 4 xor k mod 8 in the row k
// of box m div 32 (4 KiB apart).
// MN: %[[K8:.+]] = arith.remui %{{.+}}, %c8_i32{{[_0-9]*}} : i32
// MN: %[[CHUNK:.+]] = arith.divui %{{.+}}, %c4_i32{{[_0-9]*}} : i32
// MN-NEXT: arith.xori %[[CHUNK]], %[[K8]] : i32
// MN: arith.constant 4096 : i32
// MN-COUNT-4: llvm.load %{{.+}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// MN: nvvm.barrier id = %{{.+}} number_of_threads = %c256_i32
// MN-NEXT: nvvm.wgmma.fence.aligned
// MN: setp.ne.b32 p, 0, 0;
// MN-COUNT-11: setp.ne.b32 p, 1, 0;
// MN-NEXT: nvvm.wgmma.commit.group.sync.aligned
// MN: nvvm.barrier.arrive id = %{{.+}} number_of_threads = %c256_i32
// MN-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// MN: scf.yield
// MN: nvvm.barrier id = %{{.+}} number_of_threads = %c256_i32
// MN: nvvm.wgmma.wait.group.sync.aligned 0
// Without (=none, A/B runs): A copied K-major by cp.async like B (full[s]
// on the copies' 128 arrivals alone), no TMA, no turns.
// NOREG-LABEL: llvm.func @k6_k0_down_weight_grad(
// NOREG-NOT: nvvm.mbarrier.init %{{.+}}, %c129_i32
// NOREG: nvvm.mbarrier.init %{{.+}}, %c128_i32
// NOREG-NOT: nvvm.mbarrier.init %{{.+}}, %c129_i32
// NOREG: nvvm.setmaxregister  decrease 56
// NOREG-NOT: nvvm.cp.async.bulk.tensor
// NOREG-NOT: nvvm.barrier.arrive
// NOREG: nvvm.setmaxregister  increase 216
// NOREG-NOT: nvvm.barrier.arrive
// NOREG: llvm.return
func.func @k6(%dy: memref<?x64xf32>, %a: memref<?x128xf32>, %dwd: memref<64x128xf32>) {
  fmlp.down_weight_grad ins(%dy, %a : memref<?x64xf32>, memref<?x128xf32>) outs(%dwd : memref<64x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 32], stages = 3, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32x3>}
  return
}
