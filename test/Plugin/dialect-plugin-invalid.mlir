// RUN: %mlir_opt %s --load-dialect-plugin=%fmlp_plugin --verify-diagnostics -o /dev/null

// The plugin's verifiers run inside mlir-opt too.
func.func @verifier_runs(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                         %wu: tensor<200x96xf32>, %wd: tensor<200x96xf32>) {
  // expected-error @+1 {{'fmlp.gated_mlp' op down weight of shape [200, 96] in layout out_in maps 96 -> 200 features, expected 200 -> 96}}
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
         tensor<200x96xf32>) -> tensor<?x96xf32>
  return
}
