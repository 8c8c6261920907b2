// RUN: fmlp-opt %s --convert-fmlp-to-nvvm --verify-diagnostics

// The GPU lowering takes a kernel plan on memrefs, not the block itself.
func.func @unplanned(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
                     %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  // expected-error@+1 {{is not part of a kernel plan: run fmlp-expand-training and fmlp-fuse first (fmlp-plan-pipeline)}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
