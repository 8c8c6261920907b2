// REQUIRES: ptxas
// RUN: rm -rf %t.bundle
// RUN: fmlp-compile %S/decoder-2layer.handmade.mlir --mode=infer -o %t.bundle | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.bundle/manifest.json

// The whole 2-layer decoder compiles to one bundle holding one entry point
// set per MLP block; the rest of the model is not compiled.
// CHECK: block 1 at {{.*}}decoder-2layer.handmade.mlir:{{[0-9]+}}:{{[0-9]+}} -> entry points @decoder.mlp0.*
// CHECK: block 2 at {{.*}}decoder-2layer.handmade.mlir:{{[0-9]+}}:{{[0-9]+}} -> entry points @decoder.mlp1.*
// CHECK: wrote {{.*}}.bundle (chip sm_90a)
// MANIFEST-DAG: "decoder.mlp0.forward_nograd"
// MANIFEST-DAG: "decoder.mlp1.forward_nograd"
