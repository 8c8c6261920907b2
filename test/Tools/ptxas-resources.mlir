// REQUIRES: ptxas
// Every generated kernel is assembled with ptxas -v; fmlp-compile fails
// (--check-resources, on by default) on a spill, a stack frame, shared
// memory over the chip's limit or a WGMMA pipeline ptxas had to change. The variants cover both weight layouts,
// biases, multipliers, every activation and element type, widths TMA cannot
// take, every memory policy, inference, and every other chip of the table
// (include/fmlp/Target.h: the mma_sync strategy for 16-bit blocks), each
// within its own shared memory per block (sm_86, sm_89, sm_120: 101376 B).
// RUN: rm -rf %t && mkdir -p %t %t/knobs
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false -o %t/a.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --save=gu -o %t/gu.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --save=u -o %t/u.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --save=x -o %t/x.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --mode=infer -o %t/infer.bundle
// Split-K with 8 slices where a kernel has 8 k-tiles (reglu_biases' K4,
// K = 2H = 512), as many as it has elsewhere, on tiles 64 wide, and 4
// slices of tiles 128 wide (the most the rule takes: codegen/
// TileSelection.cpp): the slice-order sum of the partials within the
// registers too (NOSPILL below).
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --fmlp-token-tiles=input_grad:256:64:8,input_grad:512:128:4 -o %t/splitk.bundle
// RUN: grep -q "input_grad_upto256_splitk8'" %t/splitk.bundle/ptxas.log
// RUN: grep -q "input_grad_upto512_splitk4'" %t/splitk.bundle/ptxas.log
// The small_tokens kernels for T <= 32 (an A/B knob), on the H200 and on
// an sm_80: within 128 registers, no spill.
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --fmlp-small-tokens-max=32 -o %t/small32.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --fmlp-small-tokens-max=32 --chip=sm_80 -o %t/small32-sm80.bundle
// RUN: grep -q "small_tokens_upto32' for 'sm_80'" %t/small32-sm80.bundle/ptxas.log
// And for T <= 64 (the A/B knob's other count): within 168 registers.
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --fmlp-small-tokens-max=64 -o %t/small64.bundle
// RUN: grep -q "small_tokens_upto64' for 'sm_90a'" %t/small64.bundle/ptxas.log
// The mma_sync kernels as the H200 runs them (the other chips below get
// them by the rule).
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --strategy=mma_sync -o %t/mma.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_80 -o %t/sm80.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_120 -o %t/sm120.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_86 -o %t/sm86.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_89 -o %t/sm89.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_90 -o %t/sm90.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_100 -o %t/sm100.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_100a -o %t/sm100a.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_103 -o %t/sm103.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_103a -o %t/sm103a.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --chip=sm_120a -o %t/sm120a.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.tosa.f32.mlir --report=false -o %t/tosa-f32.bundle
// Blocks with LoRA adapters (Inputs/lora-variants.mlir: bf16 with both
// adapter groups, f16 whose adapters start off a k-step, f32) on the
// H200's chip, sm_80, sm_89, sm_100, sm_103a and sm_120. (On sm_100 and
// sm_103 the f32 block's input gradient, tf32x3 with operands of three
// parts, spilled 4 B until its copies were spread over the k-tile's
// steps: MmaSyncGemm.cpp.)
// RUN: fmlp-compile %S/Inputs/lora-variants.mlir --report=false -o %t/lora.bundle
// RUN: fmlp-compile %S/Inputs/lora-variants.mlir --report=false --chip=sm_80 -o %t/lora-sm80.bundle
// RUN: fmlp-compile %S/Inputs/lora-variants.mlir --report=false --chip=sm_89 -o %t/lora-sm89.bundle
// RUN: fmlp-compile %S/Inputs/lora-variants.mlir --report=false --chip=sm_100 -o %t/lora-sm100.bundle
// RUN: fmlp-compile %S/Inputs/lora-variants.mlir --report=false --chip=sm_103a -o %t/lora-sm103a.bundle
// RUN: fmlp-compile %S/Inputs/lora-variants.mlir --report=false --chip=sm_120 -o %t/lora-sm120.bundle
// The mma_sync kernels take 192-column weight-gradient tiles over static
// grids where they cut the waves (every weight gradient of these small
// blocks), with the epilogue staged in the ring, each element under its
// bounds guard: the bf16 and f16 blocks' four weight gradients at 4
// stages of 40 KiB and their barriers (tf32x3's fp32 one keeps 128).
// RUN: grep -o '"dynamic_shared_bytes": *163904' %t/mma.bundle/manifest.json | wc -l | FileCheck %s --check-prefix=WEIGHT-GRADS-192
// WEIGHT-GRADS-192: 4
// The same kernels as the H200 runs them for tf32 and LoRA blocks, and
// the A/B path without the staged epilogue and the 192-column tiles.
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --precision=tf32 --strategy=mma_sync -o %t/knobs/tf32.bundle
// RUN: fmlp-compile %S/Inputs/lora-variants.mlir --report=false --strategy=mma_sync -o %t/knobs/lora.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --strategy=mma_sync --fmlp-mma-sync-grid-tiles=false --fmlp-mma-sync-staged-epilogue=false -o %t/knobs/unstaged.bundle
// RUN: cat %t/knobs/*.bundle/ptxas.log | FileCheck %s --check-prefix=NOSPILL
// fp32 on tf32 and tf32x3 (mma_sync's m16n8k8) at Llama-7B's widths, on the
// H200's chip, sm_80 and sm_120 (the least shared memory).
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --precision=tf32 -o %t/tf32-sm90a.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --precision=tf32x3 -o %t/tf32x3-sm90a.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --precision=tf32 --chip=sm_80 -o %t/tf32-sm80.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --precision=tf32x3 --chip=sm_80 -o %t/tf32x3-sm80.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --precision=tf32 --chip=sm_120 -o %t/tf32-sm120.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --precision=tf32x3 --chip=sm_120 -o %t/tf32x3-sm120.bundle
// RUN: grep -c "mma_sync'" %t/tf32x3-sm120.bundle/ptxas.log | FileCheck %s --check-prefix=TF32-MMA
// TF32-MMA: 8
// tf32 on the H200's chip: every kernel on WGMMA, k8 on tf32 (K1 and K2
// and their token variants, split-K among them; K3 and K4 on K-major
// copies of the weights, 3 transpose kernels; K5's and K6's MN-major fp32
// operands transposed in shared memory by the producer), and the
// variants' fp32 block (biases, widths not multiples of a tile: D = 96,
// H = 200) at precision tf32, whose kernels take WGMMA too where TMA can
// read their operands (the fp32 block's [Wg Wu] split at k = 200 cannot).
// K1's variants of T <= 128 and T <= 768 round in their stages with one
// tile: one kernel (_n128_round_in_stages) in each forward entry.
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --precision=tf32 -o %t/tf32-variants.bundle
// RUN: cat %t/tf32-sm90a.bundle/kernels.ptx %t/tf32-variants.bundle/kernels.ptx | FileCheck %s --check-prefix=TF32-WGMMA
// TF32-WGMMA: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k8.f32.tf32.tf32
// RUN: grep -c "wgmma.mma_async.sync.aligned.m64n[0-9]*k8.f32.tf32.tf32" %t/tf32-variants.bundle/kernels.ptx | FileCheck %s --check-prefix=TF32-VARIANTS
// TF32-VARIANTS: {{[1-9][0-9]*}}
// RUN: grep -c "Compiling entry" %t/tf32-sm90a.bundle/ptxas.log | FileCheck %s --check-prefix=TF32-KERNELS
// RUN: not grep "mma_sync'" %t/tf32-sm90a.bundle/ptxas.log
// RUN: grep -c "mma_sync'" %t/tf32-variants.bundle/ptxas.log | FileCheck %s --check-prefix=TF32-VARIANTS-MMA
// TF32-KERNELS: 41
// TF32-VARIANTS-MMA: 2
// The kernels that write their stages through the generic proxy and fence
// those writes for WGMMA (a fence after shared stores; every TMA kernel
// also fences its mbarrier inits), truncated (below; rounded, every
// consumer fences its own loads of A too): K5 and K6, and K3's and K4's
// variants of T <= 512, which read the weights as stored and transpose
// them in their stages (the others read the copies K-major).
// TF32-TRANSPOSING: 8
// With the transposition off (--fmlp-tf32-wgmma-mn-major=false, an A/B
// knob) K5 and K6 take mma_sync; K3 and K4 stay on WGMMA by the copies.
// RUN: mkdir -p %t/untransposed
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --precision=tf32 --fmlp-tf32-wgmma-mn-major=false -o %t/untransposed/tf32-sm90a.bundle
// RUN: FileCheck %s --check-prefix=NOSPILL < %t/untransposed/tf32-sm90a.bundle/ptxas.log
// RUN: grep -c "mma_sync'" %t/untransposed/tf32-sm90a.bundle/ptxas.log | FileCheck %s --check-prefix=UNTRANSPOSED-MMA
// UNTRANSPOSED-MMA: 2
// tf32's operands rounded to nearest (fmlp-round-tf32-weights, the
// default; --fmlp-tf32-round-operands=false for A/B runs): the Llama block,
// the variants' fp32 block and a LoRA block, their WGMMA kernels taking A
// from registers (cvt.rna, register-sourced WGMMA), 6 + 6 + 16 copy
// kernels (the forward's and the no-grad forward's rounded weights, the
// adapters' among them): 41 + 70 + 50 kernels, no spill, and no WGMMA
// pipeline ptxas had to change (fmlp-compile checks both; NOSPILL again).
// The Llama block's WGMMA token variants of K1 and K2 (T <= 768) read the
// weights as stored and round them in their stages (KernelConfig::
// roundsInStages): 16 kernels (their split-K counter fills among them),
// two more per entry than truncated: K1's variants for T <= 128 and for
// T in (256, 768] take the kernel_config's tiles, one kernel of their own
// (_n128_round_in_stages, launched for both ranges), and K2's of T <= 768
// beside the copy readers. The
// backward's K3 and K4 variants of T <= 512 transpose their weights in
// their stages (KernelConfig::transposesInStages): 8 kernels in the Llama
// block (split-K fills among them; one more than the copy readers they
// replace: K3's of T <= 512, the stored layout's kernel_config tiles, a
// kernel of its own), one more in the variants' block (K3's, a kernel of
// its own) and two in the LoRA block (the adapters' input_grad, reading Bg
// and Bu, and their down projection of the backward, reading Bd's
// transposed copy).
// Truncated (=false): the Llama block's 31 kernels, no copy.
// RUN: mkdir -p %t/rounded %t/truncated
// RUN: fmlp-compile %S/Inputs/lora-block.mlir --report=false --precision=tf32 -o %t/rounded/tf32-lora.bundle
// RUN: cat %t/tf32-sm90a.bundle/ptxas.log %t/tf32-variants.bundle/ptxas.log %t/rounded/tf32-lora.bundle/ptxas.log | FileCheck %s --check-prefix=NOSPILL
// RUN: cat %t/tf32-sm90a.bundle/ptxas.log %t/tf32-variants.bundle/ptxas.log %t/rounded/tf32-lora.bundle/ptxas.log | grep -c "Compiling entry" | FileCheck %s --check-prefix=ROUNDED-KERNELS
// RUN: grep -c "round_to_tf32'" %t/tf32-sm90a.bundle/ptxas.log | FileCheck %s --check-prefix=ROUNDED-COPIES
// RUN: grep -c "round_in_stages[_a-z0-9]*'" %t/tf32-sm90a.bundle/ptxas.log | FileCheck %s --check-prefix=ROUND-IN-STAGES
// RUN: grep -c "transpose_in_stages[_a-z0-9]*'" %t/tf32-sm90a.bundle/ptxas.log | FileCheck %s --check-prefix=TRANSPOSE-IN-STAGES
// Every K3 and K4 transposing in its stages (--fmlp-transpose-in-stages-
// max-tokens=-1, an A/B setting: the kernel_configs too) for the Llama and
// the variants' fp32 blocks: no spill either.
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --precision=tf32 --fmlp-transpose-in-stages-max-tokens=-1 -o %t/rounded/tf32-transposing.bundle
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --precision=tf32 --fmlp-transpose-in-stages-max-tokens=-1 -o %t/rounded/tf32-variants-transposing.bundle
// RUN: cat %t/rounded/tf32-transposing.bundle/ptxas.log %t/rounded/tf32-variants-transposing.bundle/ptxas.log | FileCheck %s --check-prefix=NOSPILL
// Every kernel rounding in its stages (--fmlp-tf32-round-in-stages-max-
// tokens=-1, an A/B setting: the kernel_configs too, 256-column tiles among
// them) for the variants' fp32 block and the LoRA block: no spill either.
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --report=false --precision=tf32 --fmlp-tf32-round-in-stages-max-tokens=-1 -o %t/rounded/tf32-variants-stages.bundle
// RUN: fmlp-compile %S/Inputs/lora-block.mlir --report=false --precision=tf32 --fmlp-tf32-round-in-stages-max-tokens=-1 -o %t/rounded/tf32-lora-stages.bundle
// RUN: cat %t/rounded/tf32-variants-stages.bundle/ptxas.log %t/rounded/tf32-lora-stages.bundle/ptxas.log | FileCheck %s --check-prefix=NOSPILL
// RUN: cat %t/rounded/tf32-variants-stages.bundle/ptxas.log %t/rounded/tf32-lora-stages.bundle/ptxas.log | grep -c "round_in_stages[_a-z0-9]*'" | FileCheck %s --check-prefix=ROUND-IN-STAGES-ALL
// RUN: FileCheck %s --check-prefix=ROUNDED-PTX < %t/tf32-sm90a.bundle/kernels.ptx
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.f32.mlir --report=false --precision=tf32 --fmlp-tf32-round-operands=false -o %t/truncated/tf32-sm90a.bundle
// RUN: grep -c "Compiling entry" %t/truncated/tf32-sm90a.bundle/ptxas.log | FileCheck %s --check-prefix=TRUNCATED-KERNELS
// RUN: not grep -q "cvt.rna" %t/truncated/tf32-sm90a.bundle/kernels.ptx
// RUN: grep -B1 "fence.proxy.async.shared::cta" %t/truncated/tf32-sm90a.bundle/kernels.ptx | grep -c "st.shared" | FileCheck %s --check-prefix=TF32-TRANSPOSING
// TRUNCATED-KERNELS: 31
// ROUNDED-KERNELS: 161
// ROUNDED-COPIES: 6
// ROUND-IN-STAGES: 16
// ROUND-IN-STAGES-ALL: 18
// TRANSPOSE-IN-STAGES: 8
// ROUNDED-PTX: cvt.rna.tf32.f32
// ROUNDED-PTX: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k8.f32.tf32.tf32 {{{[^}]*}}}, {{{[^}]*}}}
// RUN: cat %t/*.bundle/ptxas.log | FileCheck %s
// RUN: cat %t/*.bundle/ptxas.log | FileCheck %s --check-prefix=NOSPILL
// RUN: cat %t/a.bundle/kernels.ptx %t/sm80.bundle/kernels.ptx %t/sm100a.bundle/kernels.ptx %t/sm103a.bundle/kernels.ptx %t/sm120a.bundle/kernels.ptx | FileCheck %s --check-prefix=PTX

// 55 (save=agu) + 55 (gu) + 59 (u) + 62 (x) + 58 (split-K fixed to 8
// and 4 slices) + 14 (infer) + 10 (tosa f32) kernels (the WGMMA token
// variants of codegen/TileSelection.h among them), 44 for mma_sync on
// sm_90a and for each of 10 more chips, 5 x 8 on tf32 and tf32x3 and 27
// on tf32 for sm_90a (every kernel on WGMMA, with their token variants and
// split-K counter fills; 2 more where K1's first variant rounds its
// weights in its stages, 4 more for K1's and K2's variants of T <= 768,
// which round in their stages where the copy readers serve larger T, and 1
// more for K3's variant of T <= 512 transposing in its stages), and
// 63 for the variants at precision tf32 (K3's variant of T <= 512
// transposing Wd in its stages; 4 for T <= 768 as in the Llama block). The
// f32 blocks are precision highest (the default): their weight gradients
// add a SIMT variant for T < 84 beside the tf32x3 kernel. Then 55 + 44
// with the small_tokens kernels for T <= 32, and 56 with them for T <= 64
// on sm_90a. Then the LoRA blocks: 112 on sm_90a, 69 on each of sm_80,
// sm_89, sm_100, sm_103a and sm_120 (small_tokens K1 and K2 among them). And 19 transpose kernels
// (fmlp-transpose-weights: the weights that fp32 WGMMA kernels would read
// MN-major): 3 in each sm_90a Llama
// fp32 bundle (tf32, tf32x3, tosa), 1 in each of the 7 sm_90a variants
// bundles (its fp32 block's input_grad; not in infer), 3 in LoRA's (the
// adapters' B matrices). And 12 copies of the weights rounded to tf32
// (fmlp-round-tf32-weights): 6 in each sm_90a bundle at precision tf32
// (the forward's and the no-grad forward's Wg, Wu, Wd).
// A kernel the rule takes for two ranges of T apart is built once and
// launched for both (convert-fmlp-to-nvvm): the tf32 sm_90a Llama bundle's
// K1 variants of T <= 128 and T <= 768, both rounding in their stages with
// one tile, are one kernel in each forward entry (2 fewer than the counts
// above add up to); the LoRA bf16 block's K3, chosen per count of 128-row
// tiles, runs one 192-wide kernel for T in (768, 1024] and (1536, 2048].
// CHECK-COUNT-1575: Compiling entry function
// CHECK-NOT: Compiling entry function
// Each chip's PTX in its table row's ISA version (fmlp/Target.h): 8.0 up to
// sm_90a, then the first version that knows the chip.
// PTX: .version 8.0
// PTX-NEXT: .target sm_90a
// PTX: .version 8.0
// PTX-NEXT: .target sm_80
// PTX: .version 8.6
// PTX-NEXT: .target sm_100a
// PTX: .version 8.8
// PTX-NEXT: .target sm_103a
// PTX: .version 8.7
// PTX-NEXT: .target sm_120a
// NOSPILL-NOT: {{[1-9][0-9]* bytes (stack frame|spill)|C75[0-9]+}}
