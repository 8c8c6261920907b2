// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --fmlp-tf32-wgmma-mn-major=false --verify-diagnostics

// With the producer's transposition off (an A/B knob), tf32 WGMMA reads
// K-major operands only: K3 reads Wd with its rows indexing k.
func.func @wgmma_tf32_mn_major(%dy: memref<?x64xf32>, %wd: memref<64x128xf32>, %g: memref<?x128xf32>, %u: memref<?x128xf32>) {
  // expected-error@+1 {{is configured for WGMMA, but tf32 WGMMA reads K-major operands only, and down is MN-major (its rows index k), which --fmlp-tf32-wgmma-mn-major=false leaves untransposed}}
  fmlp.down_grad silu ins(%dy, %wd, %g, %u : memref<?x64xf32>, memref<64x128xf32>, memref<?x128xf32>, memref<?x128xf32>) outs(%g, %u : memref<?x128xf32>, memref<?x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 32], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32>}
  return
}
