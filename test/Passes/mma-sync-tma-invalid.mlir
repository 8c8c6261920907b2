// RUN: fmlp-opt %s --fmlp-attach-target="chip=sm_80" --convert-fmlp-to-nvvm --verify-diagnostics

// stages_by_tma asks an mma_sync kernel to load its operands by TMA: sm_80
// has none (cp.async.bulk.tensor comes with sm_90).
func.func @tma_without_tma(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: stages_by_tma on sm_80, which has no TMA}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 256, 64], stages = 3, cluster = [1, 1], shared_bytes = 147480, max_registers = 255, stages_by_tma = true, reason = "tma">}
  return
}
