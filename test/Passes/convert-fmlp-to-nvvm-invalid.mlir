// RUN: fmlp-opt %s --fmlp-plan-pipeline="chunk-tokens=16" --fmlp-attach-target --fmlp-select-tiles --convert-fmlp-to-nvvm --verify-diagnostics --split-input-file

// A token-chunked plan has no GPU bundle yet: the first kernel in a chunk
// loop is refused where the block was written.
func.func @chunked(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
                   %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  // expected-error@+1 {{is inside a token-chunk loop: the GPU bundle does not support chunk-tokens yet (plan with chunk-tokens=0)}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
