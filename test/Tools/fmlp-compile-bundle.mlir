// REQUIRES: ptxas
// RUN: rm -rf %t.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir -o %t.bundle | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.bundle/manifest.json
// RUN: fmlp-bundle-info %t.bundle --tokens=37 | FileCheck %s --check-prefix=INFO
// RUN: env FMLP_LIBCUDA=libcuda-absent-for-fmlp-tests.so.1 not fmlp-bundle-info %t.bundle --load 2>&1 | FileCheck %s --check-prefix=NODRIVER
// fmlp-opt with the same pipeline produces the same kernels and launches
// (all but the time the NVPTX backend took).
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --emit=gpu-mlir --report=false | sed -e 's/LLVMIRToISATimeInMs = [0-9]*/T/' > %t.compile.mlir
// RUN: fmlp-opt %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --fmlp-gpu-pipeline | sed -e 's/LLVMIRToISATimeInMs = [0-9]*/T/' > %t.opt.mlir
// RUN: diff %t.compile.mlir %t.opt.mlir
// RUN: not fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --emit=bundle --report=false 2>&1 | FileCheck %s --check-prefix=NO-OUTPUT

// Every kernel assembled by ptxas -v (12: K1 and K2 twice in forward and
// forward_nograd): registers, no stack, no spills.
// REPORT-COUNT-12: {{^llama_mlp_[a-z_0-9]+ +[0-9]+ registers +[0-9]+ B static smem 0 B stack 0 B spill stores 0 B spill loads}}
// REPORT: wrote {{.+}}.bundle (chip sm_90a)

// MANIFEST: "chip": "sm_90a",
// MANIFEST-NEXT: "compiler": "fmlp {{[0-9]+\.[0-9]+\.[0-9]+}}",
// MANIFEST: "kind": "forward",
// K1 first as its small_tokens kernel (T <= 16: a fixed grid of H / 16
// blocks of 256 threads), then as its WGMMA kernel (17 <= T <= 128, and
// again from T = 257 on: the time model's 64-wide tiles serve T = 129..256,
// where 172 tiles of 128 x 256 would end in a third of a wave).
// MANIFEST: "launches": [
// MANIFEST: "block": [
// MANIFEST-NEXT: 256,
// MANIFEST: "grid_fixed": [
// MANIFEST-NEXT: 688,
// MANIFEST: "kernel": "llama_mlp_forward_k0_gate_up_small_tokens",
// MANIFEST-NEXT: "max_tokens": 16,
// MANIFEST: "block": [
// MANIFEST-NEXT: 384,
// MANIFEST: "dynamic_shared_bytes": 197632,
// MANIFEST: "grid_tokens_per_block": [
// MANIFEST-NEXT: 128,
// MANIFEST: "kernel": "llama_mlp_forward_k0_gate_up",
// MANIFEST-NEXT: "max_tokens": 128,
// MANIFEST-NEXT: "min_tokens": 17,
// x (rows T) in boxes of 32 rows, a box past T not loaded.
// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "argument": 0,
// MANIFEST-NEXT: "box_cols": 64,
// MANIFEST-NEXT: "box_rows": 32,
// MANIFEST-NEXT: "cols": 4096,
// MANIFEST-NEXT: "offset": 0,
// MANIFEST-NEXT: "row_stride": 4096,
// MANIFEST-NEXT: "rows": -1
// MANIFEST: "tokens": true
// MANIFEST: "kernel": "llama_mlp_forward_k0_gate_up_upto256",
// MANIFEST-NEXT: "max_tokens": 256,
// MANIFEST-NEXT: "min_tokens": 129,
// MANIFEST: "kernel": "llama_mlp_forward_k0_gate_up",
// MANIFEST-NEXT: "min_tokens": 257,
// What each launch writes (here K1: the saved activations, argument 5).
// MANIFEST: "writes": [
// MANIFEST-NEXT: 5
// MANIFEST-NEXT: ]
// MANIFEST: "kind": "backward",
// [dWg dWu] = X^T [dG dU] is one GEMM: it writes d_gate and d_up (6, 7).
// MANIFEST: "kernel": "llama_mlp_backward_k3_gate_up_weight_grad",
// MANIFEST: "writes": [
// MANIFEST-NEXT: 6,
// MANIFEST-NEXT: 7
// MANIFEST-NEXT: ]
// MANIFEST: "format": "fmlp-bundle",
// MANIFEST: "cubin": "kernels.cubin",
// MANIFEST: "ptx": "kernels.ptx"
// MANIFEST: "version": 3

// INFO: bundle {{.+}}.bundle: chip sm_90a, 3 entry points, compiled by fmlp {{[0-9]+\.[0-9]+\.[0-9]+}}
// INFO: entry llama_mlp.forward (forward): 10832640 B saved + workspace at T = 37
// INFO-NEXT: x          input     bf16 [T, 4096] align 16
// INFO-NEXT: gate       input     bf16 [11008, 4096] align 16
// INFO-NEXT: up         input     bf16 [11008, 4096] align 16
// INFO-NEXT: down       input     bf16 [4096, 11008] align 16
// INFO-NEXT: y          output    bf16 [T, 4096] align 16
// INFO-NEXT: saved      saved     bf16 [T, 33024] align 16
// The split-K variants' workspace, sized for the largest (T <= 256 in 2
// slices of tiles 128 wide): 64 counters, then 64 tiles x 2 slices x 128 x
// 128 fp32 partials (256 + 8388608 bytes, as bf16). The WGMMA K1 serves
// two ranges of T around the time model's 64-wide variant. K2 (and the
// backward's K4) chosen per count r of 128-row tiles from T = 513: 192
// wide where 22 r blocks take no more waves than the 256-wide 16 r (r = 5,
// 6: one; 9..12: two), the kernel_config's 256 where they would (r = 7, 8;
// 13 on): one 192-wide kernel, named by its width, launched for both of
// its ranges, as the kernel_config's is.
// INFO-NEXT: split_k_workspace workspace bf16 [4194432] align 16
// INFO-NEXT: kernel llama_mlp_forward_k0_gate_up_small_tokens: T in [1, 16], not run at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k0_gate_up: T in [17, 128], runs at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k0_gate_up_upto256: T in [129, 256], not run at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k0_gate_up: T in [257, inf], not run at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k1_down_small_tokens: T in [1, 16], not run at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k1_down_upto128_splitk4_zero_counters: T in [17, 128], runs at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k1_down_upto128_splitk4: T in [17, 128], runs at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k1_down_upto256_splitk2_zero_counters: T in [129, 256], not run at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k1_down_upto256_splitk2: T in [129, 256], not run at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k1_down_upto512: T in [257, 512], not run at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k1_down_n192: T in [513, 768], not run at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k1_down: T in [769, 1024], not run at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k1_down_n192: T in [1025, 1536], not run at T = 37
// INFO-NEXT: kernel llama_mlp_forward_k1_down: T in [1537, inf], not run at T = 37
// INFO: entry llama_mlp.backward (backward)
// INFO: saved      saved     bf16 [T, 33024] align 16 consumed
// INFO: kernel llama_mlp_backward_k0_down_grad_upto128: T in [1, 128], runs at T = 37
// INFO: kernel llama_mlp_backward_k2_input_grad_upto128_splitk4_zero_counters: T in [1, 128], runs at T = 37
// INFO-NEXT: kernel llama_mlp_backward_k2_input_grad_upto128_splitk4: T in [1, 128], runs at T = 37
// INFO-NEXT: kernel llama_mlp_backward_k2_input_grad_upto256_splitk2_zero_counters: T in [129, 256], not run at T = 37
// INFO-NEXT: kernel llama_mlp_backward_k2_input_grad_upto256_splitk2: T in [129, 256], not run at T = 37
// INFO-NEXT: kernel llama_mlp_backward_k2_input_grad_upto512: T in [257, 512], not run at T = 37
// INFO-NEXT: kernel llama_mlp_backward_k2_input_grad_n192: T in [513, 768], not run at T = 37
// INFO-NEXT: kernel llama_mlp_backward_k2_input_grad: T in [769, 1024], not run at T = 37
// INFO-NEXT: kernel llama_mlp_backward_k2_input_grad_n192: T in [1025, 1536], not run at T = 37
// INFO-NEXT: kernel llama_mlp_backward_k2_input_grad: T in [1537, inf], not run at T = 37
// INFO: entry llama_mlp.forward_nograd (forward_nograd): 9203456 B saved + workspace at T = 37

// NODRIVER: fmlp-bundle-info: FMLP_ERROR_NO_DRIVER: no CUDA driver: cannot load libcuda-absent-for-fmlp-tests.so.1

// NO-OUTPUT: fmlp-compile: error: a bundle is a directory: give -o

// A failed step leaves no bundle behind (nor its temporary directory), and
// prints no IR; a bundle written again replaces the old one.
// RUN: rm -rf %t.nocuda.bundle %t.nocuda.bundle.tmp-*
// RUN: not fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --cuda-path=/nonexistent -o %t.nocuda.bundle > %t.nocuda.log 2>&1
// RUN: FileCheck %s --check-prefix=NO-CUDA < %t.nocuda.log
// RUN: not ls -d %t.nocuda.bundle %t.nocuda.bundle.tmp-{{.*}}
// RUN: fmlp-compile %S/Inputs/batched-block.mlir --report=false -o %t.again.bundle
// RUN: fmlp-compile %S/Inputs/batched-block.mlir --report=false -o %t.again.bundle
// RUN: fmlp-bundle-info %t.again.bundle | FileCheck %s --check-prefix=AGAIN
// RUN: not fmlp-compile %S/Inputs/batched-block.mlir --report=false --emit=bundle -o %t.nocuda.log 2>&1 | FileCheck %s --check-prefix=NOT-A-BUNDLE
// RUN: FileCheck %s --check-prefix=NO-CUDA < %t.nocuda.log
// NO-CUDA: error:
// NO-CUDA-NOT: gpu.module
// NO-CUDA-NOT: llvm.func
// AGAIN: bundle {{.*}}again.bundle: chip sm_90a, 3 entry points
// NOT-A-BUNDLE: fmlp-compile: error: {{.*}}nocuda.log exists and is not a bundle (no manifest.json): not replaced

// fmlp-bundle-info: llvm::cl's command line.
// RUN: fmlp-bundle-info --help | FileCheck %s --check-prefix=INFO-HELP
// RUN: fmlp-bundle-info --version | FileCheck %s --check-prefix=INFO-VERSION
// RUN: not fmlp-bundle-info %t.again.bundle --tokens=-3 2>&1 | FileCheck %s --check-prefix=INFO-TOKENS
// RUN: not fmlp-bundle-info 2>&1 | FileCheck %s --check-prefix=INFO-NO-BUNDLE
// INFO-HELP: USAGE: fmlp-bundle-info [options] <bundle directory>
// INFO-HELP: --load
// INFO-HELP: --tokens=
// INFO-VERSION: fmlp-bundle-info (fmlp) {{[0-9]+\.[0-9]+\.[0-9]+}}
// INFO-TOKENS: fmlp-bundle-info: for the --tokens option: must be at least 0, got -3
// INFO-NO-BUNDLE: fmlp-bundle-info: Not enough positional command line arguments specified!

// A batched block: its [8, S, 96] activations are [T, 96] to the runtime.
// RUN: rm -rf %t.batched.bundle
// RUN: fmlp-compile %S/Inputs/batched-block.mlir --report=false -o %t.batched.bundle
// RUN: fmlp-bundle-info %t.batched.bundle --tokens=16 | FileCheck %s --check-prefix=BATCHED
// BATCHED: entry geglu_in_out_batched.forward (forward): 19200 B saved + workspace at T = 16
// BATCHED-NEXT: x          input     bf16 [T, 96] align 16
// BATCHED: y          output    bf16 [T, 96] align 16

// PyTorch's fp32 matmul precision names map to precisions (highest stays
// highest: IEEE fp32's accuracy; high and medium: tf32), which the
// manifest's entry points record; the formats' own names are taken too.
// highest at Llama-7B's widths: every contraction over D or H on tensor
// cores (tf32x3), the weight gradients' over T too from T = 84, a SIMT
// kernel below.
// RUN: rm -rf %t.precision.bundle %t.tf32x3.bundle %t.highest.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --precision=medium --report=false -o %t.precision.bundle
// RUN: FileCheck %s --check-prefix=PRECISION < %t.precision.bundle/manifest.json
// tf32 on sm_90a: every kernel on WGMMA (tensor maps of f32 in boxes of
// 32 columns, a 128-byte row), its operands rounded to nearest: the
// forward's K1 and K2 read copies of the weights rounded to tf32 (a copy
// kernel each, first in the entry point, writing a workspace of the
// weight's shape), the backward's down_grad and input_grad K-major copies
// (a transpose kernel each, writing a workspace of the weight's shape
// swapped), K5's and K6's MN-major operands are transposed in shared
// memory.
// PRECISION: "name": "gate_tf32",
// PRECISION-NEXT: "role": "workspace",
// PRECISION-NEXT: "shape": [
// PRECISION-NEXT: 11008,
// PRECISION-NEXT: 4096
// PRECISION: "kernel": "{{.*}}forward_k0_round_to_tf32"
// PRECISION: "kernel": "{{.*}}forward_k3_gate_up"
// PRECISION: "box_cols": 32,
// PRECISION: "precision": "tf32",
// PRECISION: "name": "down_transposed",
// PRECISION-NEXT: "role": "workspace",
// PRECISION-NEXT: "shape": [
// PRECISION-NEXT: 11008,
// PRECISION-NEXT: 4096
// PRECISION: "kernel": "{{.*}}backward_k0_transpose"
// PRECISION: "kernel": "{{.*}}backward_k3_down_grad{{.*}}"
// PRECISION-NOT: mma_sync
// PRECISION-NOT: "precision": "ieee"
// The copies are used only from the T at which the kernels reading them
// take over from the token variants that round in their stages (769, past
// the rounding bound): below it the runtime asks no buffer for them
// (fmlp_argument_min_tokens) and counts none among the bytes used
// (fmlp_workspace_bytes_used: T H floats of the no-grad workspace and
// split-K's 8,388,864 B at T = 768; 3 D H floats more at 769;
// fmlp_workspace_bytes counts every argument: the three copies' 3 D H
// floats at every T); the compiler's memory report counts those used.
// RUN: fmlp-bundle-info %t.precision.bundle --tokens=768 | FileCheck %s --check-prefix=FIRST-USE
// RUN: fmlp-bundle-info %t.precision.bundle --tokens=769 | FileCheck %s --check-prefix=FIRST-USE-769
// FIRST-USE: entry llama_mlp.forward_nograd (forward_nograd): 583270656 B saved + workspace at T = 768, 42205440 B of it used there
// FIRST-USE: gate_tf32 workspace f32 [11008, 4096] align 16, used from T = 769
// FIRST-USE: up_tf32 workspace f32 [11008, 4096] align 16, used from T = 769
// FIRST-USE: down_tf32 workspace f32 [4096, 11008] align 16, used from T = 769
// FIRST-USE: split_k_workspace workspace f32 [2097216] align 16{{$}}
// FIRST-USE-769: entry llama_mlp.forward_nograd (forward_nograd): 583314688 B saved + workspace at T = 769, 583314688 B of it used there
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --precision=tf32 --tokens=768 --report-format=json --emit=gpu-mlir -o %t.report.mlir | FileCheck %s --check-prefix=REPORT-768
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --precision=tf32 --tokens=769 --report-format=json --emit=gpu-mlir -o %t.report.mlir | FileCheck %s --check-prefix=REPORT-769
// REPORT-768: "nograd_workspace_bytes":42205440
// REPORT-769: "nograd_workspace_bytes":583314688
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --precision=tf32x3 --report=false -o %t.tf32x3.bundle
// RUN: FileCheck %s --check-prefix=TF32X3 < %t.tf32x3.bundle/manifest.json
// TF32X3: "precision": "tf32x3",
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false -o %t.highest.bundle
// RUN: FileCheck %s --check-prefix=HIGHEST < %t.highest.bundle/manifest.json
// HIGHEST: "kernel": "llama_mlp_forward_k0_gate_up"
// HIGHEST: "precision": "highest",
// HIGHEST: "kernel": "llama_mlp_backward_k4_down_weight_grad_upto83"
// HIGHEST: "max_tokens": 83
// HIGHEST: "kernel": "llama_mlp_backward_k4_down_weight_grad"
// HIGHEST: "min_tokens": 84
// RUN: rm -rf %t.ieee.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --precision=ieee --report=false -o %t.ieee.bundle
// RUN: FileCheck %s --check-prefix=IEEE < %t.ieee.bundle/manifest.json
// IEEE-NOT: mma_sync
// IEEE: "precision": "ieee",
// RUN: not fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --precision=3xtf32 --report=false -o %t.bad.bundle 2>&1 | FileCheck %s --check-prefix=BAD-PRECISION
// BAD-PRECISION: precision must be one of highest, high, medium, ieee, tf32x3, tf32, got '3xtf32'
