// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --split-input-file | FileCheck %s

// Split-K (codegen/WgmmaGemm.cpp): K2 at T <= 128 in 2 slices of its 16
// k-tiles. The entry point gains the split-K workspace (one counter, then 2
// slices x 128 x 64 fp32: 128 + 65536 bytes, as bf16), a workspace in the
// manifest. In the T <= 128 branch a fill kernel zeroes the counters, then
// the GEMM runs on a grid of ceil(T / 128) x 1 x 2 with the workspace as
// its last buffer; both say they write (fmlp.written) y alone, the
// workspace being scratch: the fill takes y too, untouched, so that the
// runtime runs or skips it with its GEMM. T > 128 takes the unsplit
// kernel.
// CHECK-LABEL: func.func @down(
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<32832xbf16> {fmlp.name = "split_k_workspace", fmlp.workspace})
// CHECK: %[[T:.+]] = memref.dim %arg0, %c0
// CHECK: %[[FEW:.+]] = arith.cmpi ule, %[[T]], %c128
// CHECK: scf.if %[[FEW]] {
// CHECK: gpu.launch_func @fmlp_kernels::@down_k0_down_upto128_splitk2_zero_counters blocks in (%c1{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c256{{.*}}) dynamic_shared_memory_size %c0_i32 args(%[[WS]] : memref<32832xbf16>, %arg2 : memref<?x64xbf16>, %[[T]] : index)
// CHECK-SAME: fmlp.max_tokens = 128
// CHECK-SAME: fmlp.written = array<i64: 1>
// CHECK: %[[GX:.+]] = arith.ceildivui %[[T]], %c128
// CHECK: gpu.launch_func @fmlp_kernels::@down_k0_down_upto128_splitk2 blocks in (%[[GX]], %c1{{.*}}, %c2) threads in (%c384, {{.*}}) dynamic_shared_memory_size %c148480_i32 args({{.*}}, %arg2 : memref<?x64xbf16>, %[[WS]] : memref<32832xbf16>, %[[T]] : index)
// CHECK-SAME: fmlp.grid_fixed = array<i64: 0, 1, 2>
// CHECK-SAME: fmlp.max_tokens = 128
// CHECK-SAME: fmlp.written = array<i64: 5>
// CHECK: } else {
// CHECK: gpu.launch_func @fmlp_kernels::@down_k0_down blocks in ({{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK-SAME: fmlp.min_tokens = 129

// The fill: one u32 counter (as f32 0.0: zero bits).
// CHECK-LABEL: llvm.func @down_k0_down_upto128_splitk2_zero_counters(
// CHECK: llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr<1>

// The split kernel: slice z = ctaid.z takes k-steps [z Kt / 2, (z + 1) Kt / 2)
// of Kt = ceil(K / 64); its tile is (m tile) x nctaid.y + (n tile).
// CHECK-LABEL: llvm.func @down_k0_down_upto128_splitk2(
// CHECK: %[[KT:.+]] = arith.maxui
// CHECK: %[[Z:.+]] = nvvm.read.ptx.sreg.ctaid.z
// CHECK: %[[ZK:.+]] = arith.muli %[[Z]], %[[KT]]
// CHECK: %[[FIRST:.+]] = arith.divui %[[ZK]], %c2
// CHECK: %[[NEXT:.+]] = arith.addi %[[Z]], %c1
// CHECK: %[[NK:.+]] = arith.muli %[[NEXT]], %[[KT]]
// CHECK: %[[END:.+]] = arith.divui %[[NK]], %c2
// CHECK: %[[STEPS:.+]] = arith.subi %[[END]], %[[FIRST]]
// CHECK: %[[NT:.+]] = nvvm.read.ptx.sreg.nctaid.y
// CHECK: %[[MNT:.+]] = arith.muli %{{.+}}, %[[NT]]
// CHECK: %[[TILE:.+]] = arith.addi %[[MNT]], %{{.+}}
// The producer's k coordinate: (first + step) x 64.
// CHECK: arith.addi %[[FIRST]], %{{.+}}
// After the main loop each consumer thread whose warpgroup's 64 rows hold
// some of M (m0 + 64 c < T) stores its partial (16-byte pieces); every
// thread fences, and the consumers meet (named barrier 1, 256 threads).
// CHECK: %[[HASROWS:.+]] = arith.cmpi slt, %{{.+}}, %[[T:arg[0-9]+]] : i64
// CHECK-NEXT: scf.if %[[HASROWS]] {
// CHECK: llvm.store %{{.+}}, %{{.+}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: llvm.fence syncscope("device") acq_rel
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-NEXT: %[[N256:.+]] = arith.constant 256 : i32
// CHECK-NEXT: nvvm.barrier id = %[[ONE]] number_of_threads = %[[N256]]
// Thread 128 counts the arrival: fence (release), relaxed add, fence
// (acquire); the last (it read S - 1 = 1) sets the counter back to 0 and
// tells the block through shared memory.
// CHECK: %[[WORD:.+]] = llvm.getelementptr %{{.+}}[%c1020_i32]
// CHECK: scf.if
// CHECK: %[[COUNTER:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK-NEXT: llvm.fence syncscope("device") acq_rel
// CHECK: %[[BEFORE:.+]] = llvm.atomicrmw add %[[COUNTER]], %{{.+}} syncscope("device") monotonic : !llvm.ptr<1>, i32
// CHECK-NEXT: llvm.fence syncscope("device") acq_rel
// CHECK: %[[WASLAST:.+]] = arith.cmpi eq, %[[BEFORE]], %c1
// CHECK: scf.if %[[WASLAST]] {
// CHECK: llvm.store %{{.+}}, %[[COUNTER]] {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK: }
// CHECK: llvm.store %{{.+}}, %[[WORD]] {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier id
// CHECK: %[[FLAG:.+]] = llvm.load %[[WORD]]
// CHECK: %[[LAST:.+]] = arith.cmpi eq, %[[FLAG]], %c1
// The last block alone sums slice 0 then slice 1 (its own from registers,
// arith.select on its slice) and runs the epilogue: Y's TMA store; a
// consumer whose rows lie past M runs the epilogue on its own sums (it
// writes none of them), summing nothing.
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: scf.if %[[HASROWS]] {
// CHECK-NEXT: llvm.fence syncscope("device") acq_rel
// CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[S0:.+]] = arith.select
// CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: %[[S1:.+]] = arith.select
// CHECK-NEXT: arith.addf %[[S0]], %[[S1]]
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK: } else {
// CHECK-NOT: llvm.load {{.+}} !llvm.ptr<1> -> vector<4xf32>
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-LABEL: llvm.func @down_k0_down(
// CHECK-NOT: atomicrmw
// CHECK-NOT: ctaid.z
// CHECK: llvm.return
func.func @down(%a: memref<?x1024xbf16>, %wd: memref<64x1024xbf16>, %y: memref<?x64xbf16>) {
  fmlp.down ins(%a, %wd : memref<?x1024xbf16>, memref<64x1024xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "base">,
    fmlp.token_variants = [
      #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, split_k = 2, reason = "split", max_tokens = 128>]}
  return
}
