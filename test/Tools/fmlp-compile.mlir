// fmlp-compile on the bundled examples: it finds the one block in each and
// reports it and its memory plan; --emit=mlir writes the planned IR, which
// is what fmlp-opt --fmlp-plan-pipeline writes with the same options.
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir | FileCheck %s --check-prefix=REPORT
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.tosa.f32.mlir | FileCheck %s --check-prefix=REPORT-F32
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --emit=mlir -o %t.compile.mlir
// RUN: fmlp-opt %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --fmlp-plan-pipeline -o %t.opt.mlir
// RUN: diff %t.compile.mlir %t.opt.mlir
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --save=x --chunk-tokens=512 --report=false --emit=mlir -o %t.compile-x.mlir
// RUN: fmlp-opt %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --fmlp-plan-pipeline="save=x chunk-tokens=512" -o %t.opt-x.mlir
// RUN: diff %t.compile-x.mlir %t.opt-x.mlir
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --tokens=65536 --save=gu | FileCheck %s --check-prefix=MEMORY-GU
// RUN: not fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --save=all 2>&1 | FileCheck %s --check-prefix=BAD-OPTION
// RUN: fmlp-compile %s | FileCheck %s --check-prefix=NONE
// RUN: not fmlp-compile %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// REPORT: block 1 at {{.*}}llama-7b-mlp.linalg.bf16.mlir:61:10
// REPORT-NEXT: activation     silu
// REPORT-NEXT: widths         D = 4096, H = 11008, x of type tensor<?x4096xbf16>
// REPORT-NEXT: weights        gate [11008, 4096] out_in, up [11008, 4096] out_in, down [4096, 11008] out_in
// REPORT-NEXT: biases         none
// REPORT-NEXT: parameters     135,266,304 (258.0 MiB as bf16)
// REPORT-NEXT: flop per token 270,532,608 forward, 811,597,824 training step
// REPORT-NEXT: memory plan (mode=train, save=agu, chunk-tokens=0) at T = 4096, beyond inputs, weights and outputs:
// REPORT-NEXT: saved for backward   270,532,608 B (258.0 MiB)
// REPORT-NOT: block 2

// MEMORY-GU: saved for backward   2,885,681,152 B (2752.0 MiB)
// MEMORY-GU-NEXT: workspace forward    1,442,840,576 B (1376.0 MiB)

// BAD-OPTION: fmlp-compile: save must be one of agu, gu, x, got 'all

// REPORT-F32: block 1 at
// REPORT-F32: widths         D = 4096, H = 11008, x of type tensor<2048x4096xf32>
// REPORT-F32: parameters     135,266,304 (516.0 MiB as f32)

// NONE: no gated MLP block found in

// MISSING: fmlp-compile: cannot open input file
func.func @nothing_to_find(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
