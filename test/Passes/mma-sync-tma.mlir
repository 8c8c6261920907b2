// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles="strategy=mma_sync" --convert-fmlp-to-nvvm \
// RUN:   -fmlp-mma-sync-staged-epilogue=false | FileCheck %s
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target="chip=sm_100a" --fmlp-select-tiles --convert-fmlp-to-nvvm \
// RUN:   -fmlp-mma-sync-staged-epilogue=false | FileCheck %s --check-prefixes=CHECK,UNSTAGED
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles="strategy=mma_sync" --convert-fmlp-to-nvvm \
// RUN:   | FileCheck %s --check-prefix=STAGED
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target="chip=sm_100a" --fmlp-select-tiles --convert-fmlp-to-nvvm \
// RUN:   | FileCheck %s --check-prefix=STAGED
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles="strategy=mma_sync" --convert-fmlp-to-nvvm \
// RUN:   -fmlp-mma-sync-release-after-next-wait | FileCheck %s --check-prefix=RELEASE
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles="strategy=mma_sync" --convert-fmlp-to-nvvm \
// RUN:   -fmlp-mma-sync-tma=false | FileCheck %s --check-prefix=CP-ASYNC
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target="chip=sm_80" --fmlp-select-tiles --convert-fmlp-to-nvvm | FileCheck %s --check-prefix=CP-ASYNC
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target="chip=sm_120a" --fmlp-select-tiles --convert-fmlp-to-nvvm | FileCheck %s --check-prefix=SM120
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles="strategy=mma_sync" --convert-fmlp-to-nvvm \
// RUN:   -fmlp-ptx-version=87 | FileCheck %s --check-prefix=PTX87

// The mma_sync kernels on a chip with TMA (sm_90a asked for them, sm_100a
// has no other tensor-core path yet): thread 0 loads each k-tile's boxes by
// TMA, counted on the stage's mbarrier (4 stages, two mbarriers of 8 B
// each past the 4 x 48 KiB ring); the threads wait on it and multiply from
// ldmatrix fragments, then release the slot on its second mbarrier (256
// arrivals, each after a proxy fence: the TMA load that overwrites the
// slot is the async proxy's), which thread 0 waits for before it loads
// the slot again: no block barrier in the main loop. K2 (down) reads A = [T, H] in boxes of
// 32 token rows x 64 k (its 128 rows in 4, those wholly past T not loaded)
// and the down weight [D, H] K-major in one box of 256 rows: 5 boxes a
// tile, 3 tiles ahead and one in the loop. K3 (down_grad) reads the down
// weight MN-major (rows k = D): 4 boxes of 64 k x 64 n for its 256
// columns, fragments by ldmatrix.trans. No cp.async piece is left.
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_forward_k1_down_mma_sync {{.*}}dynamic_shared_memory_size %c196672_i32 {{.*}}fmlp.tensor_map_box_cols = array<i64: 64, 64>, fmlp.tensor_map_box_rows = array<i64: 32, 256>
// CHECK: gpu.launch_func @fmlp_kernels::@mlp_backward_k0_down_grad_mma_sync {{.*}}fmlp.tensor_map_box_cols = array<i64: 64, 64>, fmlp.tensor_map_box_rows = array<i64: 32, 64>
// CHECK-LABEL: llvm.func @mlp_forward_k1_down_mma_sync(%arg0: !llvm.ptr {{{.*}}nvvm.grid_constant}, %arg1: !llvm.ptr {{{.*}}nvvm.grid_constant}, %arg2: !llvm.ptr<1>
// CHECK-NOT: nvvm.cp.async.shared.global
// CHECK: nvvm.mbarrier.init {{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init {{.*}}, %c256_i32
// CHECK: nvvm.mbarrier.init {{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init {{.*}}, %c256_i32
// CHECK: nvvm.mbarrier.init {{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init {{.*}}, %c256_i32
// CHECK: nvvm.mbarrier.init {{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init {{.*}}, %c256_i32
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.barrier
// CHECK-COUNT-3: nvvm.mbarrier.arrive.expect_tx
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK-COUNT-5: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.barrier
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive %
// CHECK-NOT: nvvm.cp.async
// CHECK-LABEL: llvm.func @mlp_backward_k0_down_grad_mma_sync(
// CHECK-COUNT-3: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK-COUNT-8: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK: nvvm.mbarrier.arrive %
// The staged epilogue (the default; the checks above are of the unstaged
// one, --fmlp-mma-sync-staged-epilogue=false, an A/B knob):
// K3's G and U (which dG and dU overwrite) have tensor maps of 64-row
// boxes. Each part's blocks of them are prefetched by TMA into the ring as
// the main loop frees it: after the k-tiles (here one: K = D = 64), thread
// 0 loads virtual tiles, each the boxes that lie in its slot's stage (6,
// 6 and 4 boxes of 8 KiB in stages 0, 1 and 2; none in 3), counted on the
// slot's full mbarrier; in the prologue and the loop where a k-tile would
// be, the last after the loop once the last k-tile's slot is released.
// Each part waits for its stages' phases (part 0's blocks lie in 2, part
// 1's in 3), reads and writes its elements there, and its first thread
// stores the 4 boxes of each view by TMA once the part's writes are fenced
// for the async proxy. No 16-byte piece moves by threads.
// STAGED: gpu.launch_func @fmlp_kernels::@mlp_backward_k0_down_grad_mma_sync {{.*}}fmlp.tensor_map_box_cols = array<i64: 64, 64, 64, 64>, fmlp.tensor_map_box_rows = array<i64: 32, 64, 64, 64>
// STAGED-LABEL: llvm.func @mlp_backward_k0_down_grad_mma_sync(
// STAGED: nvvm.mbarrier.arrive.expect_tx
// STAGED: } else {
// STAGED: nvvm.mbarrier.arrive.expect_tx {{.*}}, %c49152_i32
// STAGED-COUNT-6: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg2,
// STAGED: nvvm.mbarrier.arrive.expect_tx {{.*}}, %c49152_i32
// STAGED-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg2,
// STAGED-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg3,
// STAGED: nvvm.mbarrier.arrive.expect_tx {{.*}}, %c32768_i32
// STAGED-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}, %arg3,
// STAGED: scf.for
// STAGED: nvvm.mbarrier.try_wait.parity
// STAGED: } else {
// STAGED: nvvm.mbarrier.arrive.expect_tx {{.*}}, %c49152_i32
// STAGED: nvvm.mbarrier.arrive %
// STAGED: nvvm.mbarrier.try_wait.parity
// STAGED-COUNT-5: nvvm.mbarrier.try_wait.parity
// STAGED-NOT: nvvm.barrier0
// STAGED: llvm.load {{.*}} : !llvm.ptr<3> -> vector<2xbf16>
// STAGED: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// STAGED-NEXT: nvvm.barrier0
// STAGED-COUNT-8: nvvm.cp.async.bulk.tensor.global.shared.cta
// STAGED-NEXT: nvvm.cp.async.bulk.commit.group
// STAGED: nvvm.cp.async.bulk.wait_group 0 {read}
// STAGED-NOT: vector<4xi32>, !llvm.ptr<1>
// STAGED-LABEL: llvm.func @mlp_backward_k1_down_weight_grad_mma_sync(
// With --fmlp-mma-sync-release-after-next-wait (an A/B knob) each thread
// releases k-tile t - 1's slot at the top of iteration t, right after the
// wait for tile t's bytes and before any ldmatrix of it, and nothing at
// the end of an iteration; the last k-tile's slot after the loop, before
// thread 0 waits for it to load the last virtual tile there.
// RELEASE-LABEL: llvm.func @mlp_backward_k0_down_grad_mma_sync(
// RELEASE: scf.for
// RELEASE: nvvm.mbarrier.try_wait.parity
// RELEASE-NOT: nvvm.ldmatrix
// RELEASE: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// RELEASE-NOT: nvvm.ldmatrix
// RELEASE: nvvm.mbarrier.arrive %
// RELEASE: nvvm.ldmatrix
// RELEASE-NOT: nvvm.mbarrier.arrive %
// RELEASE: scf.yield
// RELEASE-NEXT: }
// RELEASE: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// RELEASE: nvvm.mbarrier.arrive %
// RELEASE: nvvm.mbarrier.try_wait.parity
// RELEASE: nvvm.mbarrier.arrive.expect_tx
// RELEASE-LABEL: llvm.func @mlp_backward_k1_down_weight_grad_mma_sync(
// Unstaged, each element's column pair is read and written in global
// memory.
// UNSTAGED-NOT: !llvm.ptr<3> -> vector<2xbf16>
// UNSTAGED: llvm.load {{.*}} : !llvm.ptr<1> -> bf16
// UNSTAGED-NOT: !llvm.ptr<3> -> vector<2xbf16>
// CHECK-NOT: nvvm.cp.async
// CHECK-LABEL: llvm.func @mlp_backward_k1_down_weight_grad_mma_sync(

// sm_120's 101,376 B take two stages of 128-byte rows by TMA (not four of
// 64-byte rows by cp.async): one tile ahead, one in the loop. Its PTX
// (8.7) has shared::cta TMA loads, which its ptxas assembles without the
// stack frame it gives shared::cluster ones; sm_90a's (8.0) does not.
// The staged epilogue stores y by TMA too: a third map, of 64 x 64 boxes.
// SM120: gpu.launch_func @fmlp_kernels::@mlp_forward_k1_down_mma_sync {{.*}}dynamic_shared_memory_size %c98336_i32 {{.*}}fmlp.tensor_map_box_cols = array<i64: 64, 64, 64>, fmlp.tensor_map_box_rows = array<i64: 32, 256, 64>
// SM120-LABEL: llvm.func @mlp_forward_k1_down_mma_sync(
// SM120-COUNT-4: nvvm.mbarrier.init
// SM120-NOT: nvvm.mbarrier.init
// SM120: nvvm.mbarrier.arrive.expect_tx
// SM120: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {isCTAOnly = true} : !llvm.ptr<3>
// SM120: scf.for
// SM120: nvvm.mbarrier.arrive.expect_tx
// SM120-NOT: nvvm.cp.async.shared.global
// SM120: nvvm.mma.sync
// SM120-LABEL: llvm.func @mlp_backward_k0_down_grad_mma_sync(

// --fmlp-ptx-version (GPU runs of a newer chip's kernels on the H100): the
// same kernels in PTX 8.7, their TMA loads into shared::cta as sm_120's.
// PTX87: gpu.module @fmlp_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx87">]
// PTX87-LABEL: llvm.func @mlp_forward_k1_down_mma_sync(
// PTX87: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {isCTAOnly = true} : !llvm.ptr<3>

// Without TMA (sm_80), or with it turned off (the A/B knob), every thread
// copies its 16-byte pieces by cp.async and no tensor map is passed.
// CP-ASYNC: gpu.launch_func @fmlp_kernels::@mlp_forward_k1_down_mma_sync {{.*}}dynamic_shared_memory_size %c{{196608|147456}}_i32 {{.*}}fmlp.tensor_map_box_cols = array<i64>
// CP-ASYNC-LABEL: llvm.func @mlp_forward_k1_down_mma_sync(%arg0: !llvm.ptr<1>
// CP-ASYNC-NOT: nvvm.mbarrier
// CP-ASYNC: nvvm.cp.async.shared.global
// CP-ASYNC-NOT: nvvm.cp.async.bulk.tensor
// CP-ASYNC: nvvm.mma.sync
// CP-ASYNC-LABEL: llvm.func @mlp_backward_k0_down_grad_mma_sync(
func.func @mlp(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
               %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
