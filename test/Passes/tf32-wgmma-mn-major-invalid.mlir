// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --fmlp-tf32-wgmma-mn-major --verify-diagnostics --split-input-file

// A transposed operand's landing slots count in the block's shared memory:
// 4 stages of 48 KiB fit sm_90a alone (197,632 B) but not beside two slots
// of Wd's 32 KiB tiles.
func.func @landing_slots_count(%dy: memref<?x64xf32>, %wd: memref<64x256xf32>, %g: memref<?x256xf32>, %u: memref<?x256xf32>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: wgmma stages = 4 take 263168 B of shared memory, past sm_90a's 232448}}
  fmlp.down_grad silu ins(%dy, %wd, %g, %u : memref<?x64xf32>, memref<64x256xf32>, memref<?x256xf32>, memref<?x256xf32>) outs(%g, %u : memref<?x256xf32>, memref<?x256xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 32], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32>}
  return
}
