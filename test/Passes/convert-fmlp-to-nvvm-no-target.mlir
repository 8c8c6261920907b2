// RUN: not fmlp-opt %s --convert-fmlp-to-nvvm 2>&1 | FileCheck %s
// A planned module without fmlp.target: the error, before anything reads
// the chip (the kernel configs' checks did, and crashed).
// CHECK: error: the module has no fmlp.target: run fmlp-attach-target first
func.func @no_target(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "base">}
  return
}
