// REQUIRES: ptxas
// A static contraction shorter than the SIMT k-tile (D = 12 < 16: rows of 24
// bytes, which TMA cannot address): its one-trip k-loop is removed and the
// whole contraction's loads scheduled together, so its kernels take up to
// 255 registers, recorded in the config; under 128 K1 spilled 400 B and
// fmlp-compile refused the block. Every kernel assembles without a spill.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fmlp-opt %s --fmlp-plan-pipeline --fmlp-attach-target --fmlp-select-tiles | FileCheck %s --check-prefix=CONFIG
// RUN: fmlp-compile %s --report=false -o %t/short.bundle
// RUN: FileCheck %s --check-prefix=NOSPILL < %t/short.bundle/ptxas.log

// K1 and K3 contract over D = 12: 255; K4 over 2 H = 80, K5 and K6 over T:
// 128 (K2, over H into rows of 40 elements, is WGMMA's).
// CONFIG: fmlp.gate_up {{.*}}strategy = simt, {{.*}}max_registers = 255
// CONFIG-LABEL: func.func @mlp.backward
// CONFIG: fmlp.down_grad {{.*}}strategy = simt, {{.*}}max_registers = 255
// CONFIG: fmlp.down_weight_grad {{.*}}strategy = simt, {{.*}}max_registers = 128
// CONFIG: fmlp.input_grad {{.*}}strategy = simt, {{.*}}max_registers = 128

// NOSPILL-NOT: {{[1-9][0-9]* bytes spill}}
// NOSPILL-NOT: {{[1-9][0-9]* bytes stack frame}}
// NOSPILL: Compiling entry function 'mlp_forward_k0_gate_up'
// NOSPILL-NOT: {{[1-9][0-9]* bytes spill}}
// NOSPILL-NOT: {{[1-9][0-9]* bytes stack frame}}
func.func @mlp(%x: tensor<?x12xbf16>, %wg: tensor<40x12xbf16>, %wu: tensor<40x12xbf16>, %wd: tensor<12x40xbf16>) -> tensor<?x12xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : (tensor<?x12xbf16>, tensor<40x12xbf16>, tensor<40x12xbf16>, tensor<12x40xbf16>) -> tensor<?x12xbf16>
  return %y : tensor<?x12xbf16>
}
