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

// The attribute's own verifier: small_tokens serves T <= 16, never as the
// kernel for every T.
func.func @small_tokens_for_every_t(%a: memref<?x128xbf16>, %wd: memref<64x128xbf16>, %y: memref<?x64xbf16>) {
  // expected-error@+2 {{small_tokens kernel serves T <= its tile M (max_tokens = 16)}}
  fmlp.down ins(%a, %wd : memref<?x128xbf16>, memref<64x128xbf16>) outs(%y : memref<?x64xbf16>) {
    fmlp.kernel_config = #fmlp.kernel_config<strategy = small_tokens, tile = [16, 16, 32], stages = 1, cluster = [1, 1], shared_bytes = 8192, max_registers = 128, reason = "few">}
  return
}
