// The plan pipeline over its own output: an error that says the module is
// planned already (it once failed on a memref.dim "not part of a kernel
// plan"); planning once is fine.
// RUN: fmlp-opt %s --fmlp-plan-pipeline -o %t.planned.mlir
// RUN: not fmlp-opt %t.planned.mlir --fmlp-plan-pipeline 2>&1 | FileCheck %s
// CHECK: error: fmlp-plan-memory: entry point @mlp.forward takes buffers already: the module is planned (run the plan pipeline once)
func.func @mlp(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>,
               %wd: tensor<64x128xbf16>) -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>)
      -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
