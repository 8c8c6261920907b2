// RUN: fmlp-opt %s --convert-fmlp-to-nvvm --verify-diagnostics --split-input-file

// Token-chunked plans the GPU bundle does not take: each is refused at the
// first operation the runtime could not run. The kernel ops are
// fmlp-plan-memory's chunk loop (chunk-tokens=16, mode=infer, f32: SIMT
// kernels) as fmlp-select-tiles leaves it, edited.

#simt = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 12288, max_registers = 128, reason = "fp32 operands take the IEEE fp32 SIMT path">

// A static T (64 rows of x): the runtime chunks the T of the caller's
// tensors, and a static-T block has no token rows to chunk.
module attributes {fmlp.target = #fmlp.target<"sm_90a">} {
  func.func @static_tokens(%x: memref<64x8xf32> {fmlp.name = "x"}, %wg: memref<16x8xf32> {fmlp.name = "gate"}, %wu: memref<16x8xf32> {fmlp.name = "up"}, %ws: memref<16x16xf32> {fmlp.name = "workspace"}) attributes {fmlp.chunk_tokens = 16 : i64, fmlp.entry = "forward_nograd"} {
    %c16 = arith.constant 16 : index
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c16 {
      %rows = memref.subview %x[%i, 0] [16, 8] [1, 1] : memref<64x8xf32> to memref<16x8xf32, strided<[8, 1], offset: ?>>
      // expected-error@+1 {{'fmlp.gate_up' op is inside a token-chunk loop over a static token count (T = 64): the GPU bundle chunks a dynamic T only (plan with chunk-tokens=0, or compile the block for a dynamic T)}}
      fmlp.gate_up silu ins(%rows, %wg, %wu : memref<16x8xf32, strided<[8, 1], offset: ?>>, memref<16x8xf32>, memref<16x8xf32>) outs(%ws : memref<16x16xf32>) {fmlp.kernel_config = #simt}
    }
    return
  }
}

// -----

#simt = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 12288, max_registers = 128, reason = "fp32 operands take the IEEE fp32 SIMT path">

// A static T of one chunk (16 rows, chunks of 16): canonicalization folds
// the loop away and leaves the chunk's views with dynamic rows over x's 16.
module attributes {fmlp.target = #fmlp.target<"sm_90a">} {
  func.func @folded_chunk(%x: memref<16x8xf32> {fmlp.name = "x"}, %wg: memref<16x8xf32> {fmlp.name = "gate"}, %wu: memref<16x8xf32> {fmlp.name = "up"}, %ws: memref<16x16xf32> {fmlp.name = "workspace"}) attributes {fmlp.chunk_tokens = 16 : i64, fmlp.entry = "forward_nograd"} {
    %rows = memref.cast %x : memref<16x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
    // expected-error@+1 {{'fmlp.gate_up' op is in a token-chunked entry point (fmlp.chunk_tokens = 16) but outside its chunk loop, which a static token count folds away: the GPU bundle chunks a dynamic T only (plan with chunk-tokens=0, or compile the block for a dynamic T)}}
    fmlp.gate_up silu ins(%rows, %wg, %wu : memref<?x8xf32, strided<[8, 1], offset: ?>>, memref<16x8xf32>, memref<16x8xf32>) outs(%ws : memref<16x16xf32>) {fmlp.kernel_config = #simt}
    return
  }
}

// -----

#simt = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 12288, max_registers = 128, reason = "fp32 operands take the IEEE fp32 SIMT path">

// A loop whose step is not the entry point's chunk_tokens: not the chunk
// loop the manifest describes.
module attributes {fmlp.target = #fmlp.target<"sm_90a">} {
  func.func @other_step(%x: memref<?x8xf32> {fmlp.name = "x"}, %wg: memref<16x8xf32> {fmlp.name = "gate"}, %wu: memref<16x8xf32> {fmlp.name = "up"}, %ws: memref<16x16xf32> {fmlp.name = "workspace"}) attributes {fmlp.chunk_tokens = 16 : i64, fmlp.entry = "forward_nograd"} {
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : index
    %dim = memref.dim %x, %c0 : memref<?x8xf32>
    scf.for %i = %c0 to %dim step %c8 {
      %left = arith.subi %dim, %i : index
      %size = arith.minui %left, %c8 : index
      %rows = memref.subview %x[%i, 0] [%size, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
      %work = memref.subview %ws[0, 0] [%size, 16] [1, 1] : memref<16x16xf32> to memref<?x16xf32, strided<[16, 1]>>
      // expected-error@+1 {{'fmlp.gate_up' op is inside a loop that is not fmlp-plan-memory's token-chunk loop (an scf.for in the entry point's body from 0 to T by its fmlp.chunk_tokens)}}
      fmlp.gate_up silu ins(%rows, %wg, %wu : memref<?x8xf32, strided<[8, 1], offset: ?>>, memref<16x8xf32>, memref<16x8xf32>) outs(%work : memref<?x16xf32, strided<[16, 1]>>) {fmlp.kernel_config = #simt}
    }
    return
  }
}

// -----

#simt = #fmlp.kernel_config<strategy = simt, tile = [64, 64, 16], stages = 1, cluster = [1, 1], shared_bytes = 12288, max_registers = 128, reason = "fp32 operands take the IEEE fp32 SIMT path">

// A fill of a view that is not a whole dense buffer: the fill kernel
// writes a flat run of elements.
module attributes {fmlp.target = #fmlp.target<"sm_90a">} {
  func.func @strided_fill(%x: memref<?x8xf32> {fmlp.name = "x"}, %wg: memref<16x8xf32> {fmlp.name = "gate"}, %wu: memref<16x8xf32> {fmlp.name = "up"}, %a: memref<?x16xf32> {fmlp.name = "workspace"}, %dw: memref<16x8xf32> {fmlp.name = "d_gate"}) attributes {fmlp.chunk_tokens = 0 : i64, fmlp.entry = "backward"} {
    %zero = arith.constant 0.0 : f32
    %half = memref.subview %dw[0, 0] [16, 4] [1, 1] : memref<16x8xf32> to memref<16x4xf32, strided<[8, 1]>>
    // expected-error@+1 {{'linalg.fill' op fills 'memref<16x4xf32, strided<[8, 1]>>': the GPU path fills a dense, statically shaped memref with a float constant}}
    linalg.fill ins(%zero : f32) outs(%half : memref<16x4xf32, strided<[8, 1]>>)
    fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x8xf32>, memref<16x8xf32>, memref<16x8xf32>) outs(%a : memref<?x16xf32>) {fmlp.kernel_config = #simt}
    return
  }
}

// -----

// A weight copy of a dynamically shaped memref: the GPU kernel's grid and
// bounds are the input's static extents (fmlp-transpose-weights and
// fmlp-round-tf32-weights copy weights only).
module attributes {fmlp.target = #fmlp.target<"sm_90a">} {
  func.func @dynamic_transpose(%w: memref<?x8xf32> {fmlp.name = "x"}, %wt: memref<8x?xf32> {fmlp.name = "workspace"}) attributes {fmlp.chunk_tokens = 0 : i64, fmlp.entry = "forward_nograd"} {
    // expected-error@+1 {{'fmlp.transpose' op copies 'memref<?x8xf32>': the GPU kernel copies a statically shaped memref}}
    fmlp.transpose ins(%w : memref<?x8xf32>) outs(%wt : memref<8x?xf32>)
    return
  }
}

// -----

module attributes {fmlp.target = #fmlp.target<"sm_90a">} {
  func.func @dynamic_round(%w: memref<?x8xf32> {fmlp.name = "x"}, %wr: memref<?x8xf32> {fmlp.name = "workspace"}) attributes {fmlp.chunk_tokens = 0 : i64, fmlp.entry = "forward_nograd"} {
    // expected-error@+1 {{'fmlp.round_to_tf32' op copies 'memref<?x8xf32>': the GPU kernel copies a statically shaped memref}}
    fmlp.round_to_tf32 ins(%w : memref<?x8xf32>) outs(%wr : memref<?x8xf32>)
    return
  }
}
