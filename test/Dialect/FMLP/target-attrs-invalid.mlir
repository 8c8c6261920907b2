// RUN: fmlp-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{unknown chip 'sm_75': fmlp knows sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_120, sm_120a}}
module attributes {fmlp.target = #fmlp.target<"sm_75">} {}

// -----

// expected-error@+1 {{a wgmma tile is 128 x N x K with N a multiple of 8 up to 256 and K a 128-byte row (64 16-bit or 32 fp32 elements)}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = wgmma, tile = [128, 260, 64], stages = 4, cluster = [1, 1], shared_bytes = 0, max_registers = 168, reason = "">} {}

// -----

// expected-error@+1 {{a wgmma tile is 128 x N x K with N a multiple of 8 up to 256 and K a 128-byte row (64 16-bit or 32 fp32 elements)}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 16], stages = 4, cluster = [1, 1], shared_bytes = 0, max_registers = 168, reason = "">} {}

// -----

// expected-error@+1 {{a wgmma kernel needs at least two stages}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 1, cluster = [1, 1], shared_bytes = 0, max_registers = 168, reason = "">} {}

// -----

// expected-error@+1 {{a small_tokens kernel has tile 16 x 16 x 32, 16 x 32 x 32 or 32 x 16 x 32 and one stage}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = small_tokens, tile = [24, 16, 32], stages = 1, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, reason = "">} {}

// -----

// 32 columns only with 16 tokens (16 warps a block).
// expected-error@+1 {{a small_tokens kernel has tile 16 x 16 x 32, 16 x 32 x 32 or 32 x 16 x 32 and one stage}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = small_tokens, tile = [32, 32, 32], stages = 1, cluster = [1, 1], shared_bytes = 32768, max_registers = 128, reason = "", max_tokens = 32>} {}

// -----

// expected-error@+1 {{a small_tokens kernel serves T <= its tile M (max_tokens = tile M)}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = small_tokens, tile = [32, 16, 32], stages = 1, cluster = [1, 1], shared_bytes = 16384, max_registers = 128, reason = "", max_tokens = 16>} {}

// -----

// expected-error@+1 {{an mma_sync tile is 128 x N x K with N 256, 192, 128 or 64 (256, 192 or 128 columns over the accumulators), K 16, 32 or 64}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 32, 32], stages = 4, cluster = [1, 1], shared_bytes = 98304, max_registers = 255, reason = "">} {}

// -----

// expected-error@+1 {{an mma_sync kernel needs at least two stages}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 256, 32], stages = 1, cluster = [1, 1], shared_bytes = 24576, max_registers = 255, reason = "">} {}

// -----

// expected-error@+1 {{a simt kernel has one stage}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 2, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, reason = "">} {}

// -----

// expected-error@+1 {{tile must be three positive extents (M, N, K)}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = simt, tile = [64, 64], stages = 1, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, reason = "">} {}

// -----

// expected-error@+1 {{cluster must be two positive extents (M, N)}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [0, 1], shared_bytes = 8192, max_registers = 128, reason = "">} {}

// -----

// expected-error@+1 {{a cluster of 16 blocks is over the portable 8}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [4, 4], shared_bytes = 8192, max_registers = 128, reason = "">} {}

// -----

// expected-error@+1 {{max_registers must be in [0, 255] (0: no cap)}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 8192, max_registers = 256, reason = "">} {}

// -----

// expected-error@+1 {{shared_bytes must be non-negative}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = -1, max_registers = 128, reason = "">} {}

// -----

// expected-error@+1 {{stages must be at least 1}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 0, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, reason = "">} {}

// -----

// expected-error@+1 {{split_k must be at least 1 (1: K is not split)}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 0, max_registers = 168, split_k = 0, reason = "", max_tokens = 128>} {}

// -----

// expected-error@+1 {{split_k must be at least 1 (1: K is not split)}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 0, max_registers = 168, split_k = -2, reason = "">} {}

// -----

// expected-error@+1 {{split_k = 2: only a wgmma kernel splits K}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, split_k = 2, reason = "">} {}

// -----

// expected-error@+1 {{rounds_in_stages: only a wgmma kernel rounds its operands in its stages}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 128, 32], stages = 4, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, reason = "", max_tokens = 64, rounds_in_stages = true>} {}

// -----

// expected-error@+1 {{transposes_in_stages: only a wgmma kernel transposes its operands in its stages}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, transposes_in_stages = true, reason = "", max_tokens = 64>} {}

// -----

// expected-error@+1 {{stages_by_tma: only an mma_sync kernel chooses how it stages its operands}}
module attributes {fmlp.c = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, stages_by_tma = true, reason = "">} {}
