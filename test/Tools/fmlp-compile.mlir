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
// RUN: not fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --strategy=wmma 2>&1 | FileCheck %s --check-prefix=BAD-STRATEGY
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --tokens=65536 --save=gu --report-format=json | FileCheck %s --check-prefix=MEMORY-JSON
// RUN: not fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report-format=json --emit=mlir 2>&1 | FileCheck %s --check-prefix=JSON-AND-IR
// RUN: not fmlp-compile %s 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not fmlp-compile %S/Inputs/no-block.mlir 2>&1 | FileCheck %s --check-prefix=MISSED
// RUN: not fmlp-compile %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING

// The TOSA example fixes T = 2048: the report is at that T, and another
// --tokens is an error.
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.tosa.f32.mlir --mode=infer | FileCheck %s --check-prefix=STATIC-T
// RUN: not fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.tosa.f32.mlir --tokens=8 2>&1 | FileCheck %s --check-prefix=STATIC-T-MISMATCH
// A plan no GPU bundle is made of (a static T in chunks): the plan's
// buffers, and why the kernels' own are not there; not an error.
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.tosa.f32.mlir --save=x --chunk-tokens=512 2>&1 | FileCheck %s --check-prefix=NOT-LAUNCHED
// NOT-LAUNCHED-NOT: error:
// NOT-LAUNCHED: workspace backward   67,633,152 B (64.5 MiB)
// NOT-LAUNCHED: (the plan's buffers alone: no GPU bundle can be made of it: 'fmlp.gate_up' op is inside a token-chunk loop over a static token count (T = 2048)

// Sizes: --tokens at least 1 (checked where it is parsed); every size in
// the report is checked for overflow; a chunk longer than T still sizes the
// workspace by the chunk, as the plan declares it (512 x 11008 x 2 B, and
// the split-K kernels' 8,388,864 B).
// RUN: not fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --tokens=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --tokens=9223372036854775807 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not fmlp-compile %S/Inputs/huge-width.mlir 2>&1 | FileCheck %s --check-prefix=HUGE-WIDTH
// A grid past CUDA's limits: no bundle (the runtime would refuse it).
// RUN: not fmlp-compile %S/Inputs/grid-past-limits.mlir -o %t.grid.bundle 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --tokens=37 --chunk-tokens=512 | FileCheck %s --check-prefix=LONG-CHUNK

// What goes to -o is decided before any work: a name that is not a
// .bundle needs --emit.
// RUN: rm -rf %t.name
// RUN: not fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir -o %t.name 2>&1 | FileCheck %s --check-prefix=NO-EMIT
// RUN: not ls %t.name
// RUN: not fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --emit=none -o %t.name 2>&1 | FileCheck %s --check-prefix=EMIT-NONE

// The tool's flags, the MLIR debugging flags, its version; no LLVM backend
// flags in --help.
// RUN: fmlp-compile --version | FileCheck %s --check-prefix=VERSION
// RUN: fmlp-compile --help | FileCheck %s --check-prefix=HELP
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --mlir-timing 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --mlir-print-ir-after=fmlp-recognize 2>&1 | FileCheck %s --check-prefix=PRINT-IR

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

// save=gu at T = 65536: 2 T H x 2 B saved; T H x 2 B of the plan's workspace
// in each pass and the split-K kernels' partials (8,388,864 B, whatever T).
// MEMORY-GU: saved for backward   2,885,681,152 B (2752.0 MiB)
// MEMORY-GU-NEXT: workspace forward    1,451,229,440 B (1384.0 MiB)
// MEMORY-GU: (the workspaces count the GPU kernels' own: split_k_workspace)

// BAD-STRATEGY: fmlp-compile: error: strategy must be one of auto, mma_sync, simt, got 'wmma'
// BAD-OPTION: fmlp-compile: error: save must be one of agu, gu, u, x, got 'all

// REPORT-F32: block 1 at
// REPORT-F32: widths         D = 4096, H = 11008, x of type tensor<2048x4096xf32>
// REPORT-F32: parameters     135,266,304 (516.0 MiB as f32)
// fp32 (highest) on sm_90a: the backward's K-major copies of the weights
// (fmlp-transpose-weights, 3 D H x 4 B) are its workspace.
// REPORT-F32: workspace backward   541,065,216 B (516.0 MiB)
// REPORT-F32: (the workspaces count the GPU kernels' own: down_transposed, gate_transposed, up_transposed)

// NONE: fmlp-compile: error: no gated MLP block found in {{.*}}fmlp-compile.mlir: it has no contraction (matmul) to fuse

// MISSED: no-block.mlir:9:8: remark: not fused into fmlp.gated_mlp:
// MISSED: fmlp-compile: error: no gated MLP block found in {{.*}}no-block.mlir: the remarks above say why each contraction was not fused

// MISSING: fmlp-compile: error: cannot open input file

// STATIC-T: memory plan (mode=infer, save=agu, chunk-tokens=0) at T = 2048,
// STATIC-T: workspace no-grad    90,177,536 B (86.0 MiB)
// STATIC-T-MISMATCH: fmlp-compile: error: the block's x has a static T = 2048 tokens; it cannot run T = 8 (give --tokens=2048, or a dynamic T in the IR)

// NEGATIVE: fmlp-compile: for the --tokens option: must be at least 1, got -1
// OVERFLOW: fmlp-compile: error: llama_mlp.forward: the saved buffer for T = 9223372036854775807 is over 2^63 bytes
// GRID: fmlp-compile: error: kernel mlp_forward_k0_gate_up of mlp.forward needs a grid of 65537 blocks along y, past CUDA's 65535
// HUGE-WIDTH: fmlp-compile: error: block 1 at {{.*}}huge-width.mlir:5:8: D = 4611686018427387904, H = 8: its parameter bytes or flop per token (18 D H) overflow int64
// LONG-CHUNK: memory plan (mode=train, save=agu, chunk-tokens=512) at T = 37,
// LONG-CHUNK: workspace no-grad    19,661,056 B (18.8 MiB)

// NO-EMIT: fmlp-compile: error: -o {{.*}}.name: say what to write there with --emit=bundle, --emit=mlir or --emit=gpu-mlir (a name ending in .bundle means --emit=bundle)
// EMIT-NONE: fmlp-compile: error: -o {{.*}}.name with --emit=none: nothing would be written there

// VERSION: fmlp-compile (fmlp) {{[0-9]+\.[0-9]+\.[0-9]+}}
// VERSION-NEXT: built with LLVM and MLIR 22.
// HELP-NOT: --x86
// HELP: MLIR debugging options (as fmlp-opt takes them):
// HELP: --mlir-print-ir-after-all
// HELP: --mlir-timing
// HELP: fmlp options:
// HELP: --chunk-tokens=
// HELP: --emit=
// HELP: --tokens=
// HELP-NOT: --x86
// HELP-NOT: --amdgpu
// HELP-NOT: --nvptx
// TIMING: Execution time report
// TIMING: PlanMemoryPass
// PRINT-IR: IR Dump After RecognizePass (fmlp-recognize)
// PRINT-IR: fmlp.gated_mlp silu
func.func @nothing_to_find(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// The memory plan as one JSON object, alone on stdout (what the Python
// package's fmlp.memory_report reads): save=gu at T = 65536 keeps
// 2 T H x 2 B and needs T H x 2 B of workspace in each pass, and the
// split-K kernels' 8,388,864 B.
// MEMORY-JSON-NOT: block
// MEMORY-JSON: {"backward_workspace_bytes":1451229440,"chunk_tokens":0,"forward_workspace_bytes":1451229440,"inference_peak_bytes":1451229440,"mode":"train","nograd_workspace_bytes":1451229440,"save":"gu","saved_bytes":2885681152,"tokens":65536,"training_peak_bytes":4336910592}
// MEMORY-JSON-NOT: {{.}}
// JSON-AND-IR: fmlp-compile: error: --report-format=json and the IR would both go to stdout: give -o a file (or --report=false)
