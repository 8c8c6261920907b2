// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --convert-fmlp-to-nvvm --verify-diagnostics

// The GPU lowering generates what fmlp-select-tiles decided and decides
// nothing itself: a GEMM kernel op without a configuration is an error.
func.func @unselected(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
                      %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  // expected-error@+1 {{has no #fmlp.kernel_config: run fmlp-select-tiles first}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
