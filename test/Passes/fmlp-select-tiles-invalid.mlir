// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-select-tiles --verify-diagnostics

// Tile selection fits the module's target (fmlp-attach-target), which
// must be there.
// expected-error@+1 {{the module has no fmlp.target: run fmlp-attach-target first}}
module {
  func.func @mlp(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
                 %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
    %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
        : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>) -> tensor<?x64xbf16>
    return %y : tensor<?x64xbf16>
  }
}
