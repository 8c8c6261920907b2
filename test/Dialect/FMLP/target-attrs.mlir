// RUN: fmlp-opt %s | fmlp-opt | FileCheck %s

// The target and the kernel configuration print as they parse.
// CHECK: module attributes {fmlp.target = #fmlp.target<"sm_100a">}
// CHECK: fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 160768, max_registers = 168, reason = "16-bit operands in TMA-addressable views on sm_90a">
// CHECK: fmlp.kernel_config = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, reason = "sm_100a has no WGMMA">
// CHECK: fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, split_k = 2, reason = "split", max_tokens = 128>
// CHECK: fmlp.kernel_config = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 163904, max_registers = 255, stages_by_tma = true, reason = "grid tiles">
module attributes {fmlp.target = #fmlp.target<"sm_100a">} {
  func.func @f() attributes {fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 160768, max_registers = 168, reason = "16-bit operands in TMA-addressable views on sm_90a">} {
    return
  }
  func.func @g() attributes {fmlp.kernel_config = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, reason = "sm_100a has no WGMMA">} {
    return
  }
  func.func @h() attributes {fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, split_k = 2, reason = "split", max_tokens = 128>} {
    return
  }
  func.func @i() attributes {fmlp.kernel_config = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 192, 64], stages = 4, cluster = [1, 1], shared_bytes = 163904, max_registers = 255, stages_by_tma = true, reason = "grid tiles">} {
    return
  }
}
