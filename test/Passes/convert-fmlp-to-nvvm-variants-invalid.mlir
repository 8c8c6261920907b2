// RUN: fmlp-opt %s --fmlp-attach-target --convert-fmlp-to-nvvm --verify-diagnostics --split-input-file

// fmlp.token_variants is what fmlp-select-tiles writes: kernel configs
// ascending by max_tokens, beside a kernel_config that serves every larger
// T. Anything else is refused at the kernel op.

func.func @descending(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has token_variants that are not kernel configs ascending by max_tokens}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "base">,
    fmlp.token_variants = [
      #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, reason = "narrow", max_tokens = 256>,
      #fmlp.kernel_config<strategy = small_tokens, tile = [16, 16, 32], stages = 1, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, reason = "few", max_tokens = 16>]}
  return
}

// -----

func.func @not_configs(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has token_variants that are not kernel configs ascending by max_tokens}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "base">,
    fmlp.token_variants = [16]}
  return
}

// -----

func.func @bounded_base(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has a kernel_config with max_tokens: it serves every T past its token_variants}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "base", max_tokens = 256>}
  return
}

// -----

// The attribute's own verifier: small_tokens serves T <= its tile M, never as the
// kernel for every T.
func.func @small_tokens_for_every_t(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+2 {{small_tokens kernel serves T <= its tile M (max_tokens = tile M)}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = small_tokens, tile = [16, 16, 32], stages = 1, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, reason = "few">}
  return
}

// -----

// Split-K (kernel_config's split_k): every slice needs a k-tile of 64;
// K = 1024 has 16.
func.func @more_slices_than_k_tiles(%a: memref<?x1024xbf16>, %wd: memref<64x1024xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has split_k = 17, more slices than its K = 1024 has k-tiles of 64 (16)}}
  fmlp.down ins(%a, %wd : memref<?x1024xbf16>, memref<64x1024xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "base">,
    fmlp.token_variants = [
      #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, split_k = 17, reason = "split", max_tokens = 128>]}
  return
}

// -----

// Its workspace is sized for the largest T the kernel serves: a kernel for
// every T (M = T) does not split K.
func.func @split_for_every_t(%a: memref<?x1024xbf16>, %wd: memref<64x1024xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has split_k = 2 for every T: only a token variant (max_tokens > 0) splits K, its workspace sized for its largest T}}
  fmlp.down ins(%a, %wd : memref<?x1024xbf16>, memref<64x1024xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, split_k = 2, reason = "split">}
  return
}

// -----

// The weight gradients contract over T: no static K to split.
func.func @k_is_tokens(%dy: memref<?x64xbf16>, %a: memref<?x128xbf16>, %dwd: memref<64x128xbf16>) {
  // expected-error@+1 {{has split_k = 2, but its K or N is T: split-K takes static K and N}}
  fmlp.down_weight_grad ins(%dy, %a : memref<?x64xbf16>, memref<?x128xbf16>) outs(%dwd : memref<64x128xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, split_k = 2, reason = "split">}
  return
}

// -----

// An mma_sync config on fp32 operands contracted as ieee (mma.sync
// multiplies tf32), one whose k-tile's rows are not 64 or 128 bytes, and one
// whose tile does not match the op's accumulators (K2 has one: 256
// columns).
func.func @mma_sync_on_f32(%a: memref<?x128xf32>, %wd: memref<64x128xf32>, %y: memref<?x64xf32>) {
  // expected-error@+1 {{has an mma_sync config on fp32 operands contracted as ieee; mma_sync takes fp32 operands as tf32, tf32x3 or highest}}
  fmlp.down ins(%a, %wd : memref<?x128xf32>, memref<64x128xf32>) outs(%y : memref<?x64xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 256, 32], stages = 4, cluster = [1, 1], shared_bytes = 98304, max_registers = 255, reason = "asked">}
  return
}

// -----

func.func @mma_sync_f32_k_tile(%a: memref<?x128xf32>, %wd: memref<64x128xf32>, %y: memref<?x64xf32>) {
  // expected-error@+1 {{has an mma_sync k-tile of 64 elements of 32 bits; its rows take 64 or 128 bytes}}
  fmlp.down ins(%a, %wd : memref<?x128xf32>, memref<64x128xf32>) outs(%y : memref<?x64xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 256, 64], stages = 2, cluster = [1, 1], shared_bytes = 208896, max_registers = 255, reason = "asked">, precision = #fmlp.precision<tf32>}
  return
}

// -----

// tf32x3's step sums beside its accumulators: 8 warps of 32 columns, 128
// in all (a 192-column tile would leave a third of each warp's columns
// unmultiplied by multiplyTf32's halves).
func.func @mma_sync_tf32x3_columns(%a: memref<?x128xf32>, %wd: memref<64x128xf32>, %y: memref<?x64xf32>) {
  // expected-error@+1 {{has a tf32x3 mma_sync tile of 192 columns; tf32x3 takes 128}}
  fmlp.down ins(%a, %wd : memref<?x128xf32>, memref<64x128xf32>) outs(%y : memref<?x64xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 192, 16], stages = 2, cluster = [1, 1], shared_bytes = 71680, max_registers = 255, reason = "asked">, precision = #fmlp.precision<tf32x3>}
  return
}

// -----

func.func @mma_sync_tile_for_two(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has an mma_sync tile of 64 columns per accumulator; its one accumulator takes 256, 192 or 128}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 64, 32], stages = 4, cluster = [1, 1], shared_bytes = 98304, max_registers = 255, reason = "asked">}
  return
}

// -----

// Precision highest takes tf32x3 only in contractions of at least 84 terms:
// not K2 over H = 64, nor K6 over every T (its SIMT variant for T < 84 is
// missing).
func.func @highest_short_k(%a: memref<?x64xf32>, %wd: memref<128x64xf32>, %y: memref<?x128xf32>) {
  // expected-error@+1 {{has an mma_sync config for precision highest on contractions of 64 terms; tf32x3 is within IEEE fp32's bound from 84 terms on (fewer take a SIMT kernel)}}
  fmlp.down ins(%a, %wd : memref<?x64xf32>, memref<128x64xf32>) outs(%y : memref<?x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 128, 16], stages = 4, cluster = [1, 1], shared_bytes = 71680, max_registers = 255, reason = "asked">, precision = #fmlp.precision<highest>}
  return
}

// -----

func.func @highest_every_t(%dy: memref<?x64xf32>, %a: memref<?x128xf32>, %dwd: memref<64x128xf32>) {
  // expected-error@+1 {{has an mma_sync config for precision highest on contractions of T terms from T = 0; tf32x3 is within IEEE fp32's bound from 84 terms on (fewer take a SIMT variant)}}
  fmlp.down_weight_grad ins(%dy, %a : memref<?x64xf32>, memref<?x128xf32>) outs(%dwd : memref<64x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 128, 16], stages = 4, cluster = [1, 1], shared_bytes = 71680, max_registers = 255, reason = "asked">, precision = #fmlp.precision<highest>}
  return
}

// -----

// The same rule on WGMMA, whose tf32x3 is highest's there (sm_90a).
func.func @highest_short_k_wgmma(%a: memref<?x64xf32>, %wd: memref<128x64xf32>, %y: memref<?x128xf32>) {
  // expected-error@+1 {{has a wgmma config for precision highest on contractions of 64 terms; tf32x3 is within IEEE fp32's bound from 84 terms on (fewer take a SIMT kernel)}}
  fmlp.down ins(%a, %wd : memref<?x64xf32>, memref<128x64xf32>) outs(%y : memref<?x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 32], stages = 3, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "asked">, precision = #fmlp.precision<highest>}
  return
}

// -----

func.func @highest_every_t_wgmma(%dy: memref<?x64xf32>, %a: memref<?x128xf32>, %dwd: memref<64x128xf32>) {
  // expected-error@+1 {{has a wgmma config for precision highest on contractions of T terms from T = 0; tf32x3 is within IEEE fp32's bound from 84 terms on (fewer take a SIMT variant)}}
  fmlp.down_weight_grad ins(%dy, %a : memref<?x64xf32>, memref<?x128xf32>) outs(%dwd : memref<64x128xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 32], stages = 3, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "asked">, precision = #fmlp.precision<highest>}
  return
}

// -----

// A kernel config written by hand is checked against its op and chip as
// fmlp-select-tiles' choices are (it once built a 4.9 MB shared-memory
// kernel, a K1 tile of 2 x 256 columns that spilled, and tiles of 8
// columns the epilogue stored none of).
func.func @wgmma_two_accumulators_too_wide(%x: memref<?x64xbf16>, %wg: memref<128x64xbf16>, %wu: memref<128x64xbf16>, %a: memref<?x128xbf16>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: a wgmma tile of 2 accumulators x 256 columns: at most 256 columns in all}}
  fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x64xbf16>, memref<128x64xbf16>, memref<128x64xbf16>) outs(%a : memref<?x128xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "by hand">}
  return
}

// -----

func.func @wgmma_too_many_stages(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: wgmma stages = 100 take 4916224 B of shared memory, past sm_90a's 232448}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 100, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "by hand">}
  return
}

// -----

func.func @wgmma_narrower_than_a_box(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: a wgmma tile 24 columns wide: the epilogue stores boxes of 64 columns}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 24, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "by hand">}
  return
}

// -----

func.func @simt_other_tiles(%a: memref<?x128xf32>, %wd: memref<64x128xf32>, %y: memref<?x64xf32>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: simt tiles are 64 x 64 x 16, not 7 x 3 x 5}}
  fmlp.down ins(%a, %wd : memref<?x128xf32>, memref<64x128xf32>) outs(%y : memref<?x64xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = simt, tile = [7, 3, 5], stages = 1, cluster = [1, 1], shared_bytes = 8192, max_registers = 0, reason = "by hand">}
  return
}

// -----

// WGMMA on fp32 operands multiplies them as tf32 (one product each, or
// tf32x3's three): not as IEEE fp32 ...
func.func @wgmma_on_ieee(%a: memref<?x128xf32>, %wd: memref<64x128xf32>, %y: memref<?x64xf32>) {
  // expected-error@+1 {{has a wgmma config on fp32 operands contracted as ieee; wgmma takes fp32 operands as tf32, tf32x3 or highest}}
  fmlp.down ins(%a, %wd : memref<?x128xf32>, memref<64x128xf32>) outs(%y : memref<?x64xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 32], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "by hand">}
  return
}

// -----

// ... tf32x3's tiles are at most 128 columns wide (its two sets of step
// sums beside the accumulators) ...
func.func @wgmma_tf32x3_wide(%a: memref<?x128xf32>, %wd: memref<64x128xf32>, %y: memref<?x64xf32>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: a wgmma tile of 1 accumulators x 256 columns for tf32x3: at most 128 columns in all (its step sums take registers)}}
  fmlp.down ins(%a, %wd : memref<?x128xf32>, memref<64x128xf32>) outs(%y : memref<?x64xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 32], stages = 3, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32x3>}
  return
}

// -----

// ... whose stages hold a high part and B's low part (1.5x tf32's bytes: 5
// stages of 48 KiB are past sm_90a's shared memory) ...
func.func @wgmma_tf32x3_stages(%a: memref<?x128xf32>, %wd: memref<64x128xf32>, %y: memref<?x64xf32>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: wgmma stages = 5 take 246784 B of shared memory, past sm_90a's 232448}}
  fmlp.down ins(%a, %wd : memref<?x128xf32>, memref<64x128xf32>) outs(%y : memref<?x64xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 32], stages = 5, cluster = [1, 1], shared_bytes = 246784, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32x3>}
  return
}

// -----

// ... and its k-tile is a stage's 128-byte row, 32 fp32 elements.
func.func @wgmma_tf32_k_tile(%a: memref<?x128xf32>, %wd: memref<64x128xf32>, %y: memref<?x64xf32>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: a wgmma k-tile of 64 elements: a stage's rows hold 32 of f32}}
  fmlp.down ins(%a, %wd : memref<?x128xf32>, memref<64x128xf32>) outs(%y : memref<?x64xf32>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "by hand">, precision = #fmlp.precision<tf32>}
  return
}

// -----

// A small_tokens block of 32 columns covers N in whole blocks only (N = 48
// would have its second block read and write past N).
func.func @small_tokens_columns_past_n(%a: memref<?x128xbf16>, %wd: memref<48x128xbf16>, %y: memref<?x48xbf16>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: a small_tokens block of 32 columns: N must be a static multiple of it}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<48x128xbf16>) outs(%y : memref<?x48xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 4, cluster = [1, 1], shared_bytes = 98816, max_registers = 168, reason = "base">,
    fmlp.token_variants = [
      #fmlp.kernel_config<strategy = small_tokens, tile = [16, 32, 32], stages = 1, cluster = [1, 1], shared_bytes = 32768, max_registers = 128, reason = "few", max_tokens = 16>]}
  return
}

// -----

// 16 warps at 255 registers each: past the multiprocessor's register file.
func.func @small_tokens_registers(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: a small_tokens block of 512 threads at 255 registers each: past sm_90a's 65536 a multiprocessor}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 4, cluster = [1, 1], shared_bytes = 98816, max_registers = 168, reason = "base">,
    fmlp.token_variants = [
      #fmlp.kernel_config<strategy = small_tokens, tile = [16, 32, 32], stages = 1, cluster = [1, 1], shared_bytes = 32768, max_registers = 255, reason = "few", max_tokens = 16>]}
  return
}

// -----

// rounds_in_stages asks a kernel to read the weights as stored where its
// op names rounded tf32 copies (fmlp-round-tf32-weights): a bf16 down (or
// any op without such copies) cannot take it.
func.func @rounds_without_copies(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: rounds_in_stages on a kernel whose B is not every part a rounded tf32 copy of a weight (fmlp-round-tf32-weights) with A K-major}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "base">,
    fmlp.token_variants = [
      #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, reason = "narrow", max_tokens = 256, rounds_in_stages = true>]}
  return
}

// -----

// transposes_in_stages asks a kernel to read the weights as stored where
// its op names K-major copies that fmlp-transpose-weights transposed: a
// bf16 down (or any op without such copies) cannot take it.
func.func @transposes_without_copies(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: transposes_in_stages on a kernel whose B is not every part a transposed copy of a weight (fmlp-transpose-weights) with A K-major}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma, tile = [128, 256, 64], stages = 4, cluster = [1, 1], shared_bytes = 197632, max_registers = 168, reason = "base">,
    fmlp.token_variants = [
      #fmlp.kernel_config<strategy = wgmma, tile = [128, 64, 64], stages = 6, cluster = [1, 1], shared_bytes = 148480, max_registers = 168, transposes_in_stages = true, reason = "narrow", max_tokens = 256>]}
  return
}

// -----

// stages_by_tma asks an mma_sync kernel to load its operands by TMA, whose
// 128-byte swizzle is the ring's layout for k-tiles of 128-byte rows: k-tiles
// of 32 bf16 elements cannot take it (a chip without TMA cannot either:
// mma-sync-tma-invalid.mlir).
func.func @tma_rows_of_64_bytes(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+1 {{has a kernel config it cannot be built with: stages_by_tma on k-tiles of 32 bf16: TMA stages 16-bit k-tiles of 128-byte rows}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = mma_sync, tile = [128, 256, 32], stages = 4, cluster = [1, 1], shared_bytes = 98336, max_registers = 255, stages_by_tma = true, reason = "tma">}
  return
}
