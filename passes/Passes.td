//===- Passes.td - fmlp pass definitions ------------------*- tablegen -*-===//
//
// Every fmlp pass, its flag, summary, description (with a before/after IR
// example) and options. The C++ declarations and registration are generated.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PASSES_TD
#define FMLP_PASSES_TD

include "mlir/Pass/PassBase.td"

def RecognizePass : Pass<"fmlp-recognize"> {
  let summary = "Rewrite gated MLP blocks in linalg or TOSA IR into fmlp.gated_mlp";
  let description = [{
    Finds gated MLP blocks, `y = (act(x Wg) * (x Wu)) Wd`, in the IR that
    frontends emit and replaces each with one `fmlp.gated_mlp`, so that later
    passes can plan its forward and backward together.

    What is recognized (a `linalg.generic` is read by its indexing maps and
    payload wherever a named op would do: a copy with a permuted map is a
    transpose, a copy whose input map keeps an increasing subset of the
    loops is a broadcast, a payload of extf/truncf only is a cast, a
    two-input payload that evaluates to `a + b` is an add):
    - projections (`x W`, with either weight layout, optional 1-D bias):
      any linalg contraction of an `[..., K]` tensor with a 2-D `[K, N]` or
      `[N, K]` weight into `[..., N]` from a zero accumulator
      (`linalg.matmul`, with or without `indexing_maps`, or a
      `linalg.generic`), the weight read directly or through a transpose;
      a `linalg.batch_matmul` whose weight is one 2-D weight broadcast
      along the batch (torch-mlir and IREE for nn.Linear on 3-D x) or
      expanded with unit batch dimensions (`tosa.matmul` lowered to linalg,
      its result collapsed back); an accumulation in a wider type narrowed
      by a cast before or after the bias add (bf16 or f16 with an f32
      accumulator); bias adds whose bias is read through a broadcasting map
      or a broadcast (named, or StableHLO's own generic); and `tosa.matmul`
      between `tosa.reshape`s, the weight read directly or through
      `tosa.transpose`, with an optional `tosa.cast` and a `tosa.add` of a
      reshaped bias. Weights are used as stored (function arguments,
      constants or loaded globals): the layout becomes an attribute, no
      transpose or copy is inserted.
    - the activation product `act(G) * U`, read as a function of `G` and `U`
      whatever operations spell it: linalg elementwise ops (generic or
      named) and their payloads, arith and math on tensors (integer powers
      included: `math.fpowi`, `math.ipowi`, `math.powf` of an integral
      exponent, as torch-mlir writes GeGLU's cube), TOSA elementwise ops. The function is evaluated at fixed sample points and
      compared with `silu(m g) u`, `gelu_tanh(m g) u` and `relu(m g) u`,
      where the gate multiplier `m = f(1, 1) - f(-1, 1)` (each activation
      satisfies `act(z) - act(-z) = z`). Agreement is required to within the
      rounding of the IR's own constants (a quarter of their unit roundoff),
      and at least 5e-5 of `|u| (1 + |m g|)`: torch-mlir writes GELU-tanh's
      `sqrt(2/pi)` = 0.7978846 as 0.797724, which moves the function by
      2.3e-5 on that scale; fmlp then computes the exact `gelu_tanh`. Both
      are far below the distance to any other common activation (the exact,
      erf GELU is 1.3e-4 away from `gelu_tanh`; the sigmoid GELU
      `x sigmoid(1.702 x)` 1e-2). The exact GELU (`erf`) is not supported
      and never matched.
    - a fused gate_up projection (Phi3's `gate_up_proj`): one projection
      of 2H outputs, `[..., 2H]`, whose columns `[0, H)` and `[H, 2H)`
      (two `tensor.extract_slice`s with unit strides, all of every other
      dimension) are the two operands of the activation product; which
      half is the gate is read from the product. The gate and up weights
      (and biases, when the bias is added before the split) become
      `tensor.extract_slice` views of the stored weight, inserted before
      the `fmlp.gated_mlp`: the output-feature rows of an `out_in` `[2H, D]`
      weight, or columns of an `in_out` `[D, 2H]` one. Nothing is copied
      in the IR; the later passes treat the views as any weight operand:
      fmlp-expand-training makes `gate` and `up` two arguments of each
      entry point (of type `[H, D]` or `[D, H]`), so a caller passes the
      two halves of its one weight as two buffers (for `out_in`, the two
      contiguous row halves, i.e. pointers into the one weight; for
      `in_out`, the column halves are strided and must be copied by the
      caller). Slices that overlap, leave a gap, are not at `H`, come from
      different tensors, or whose whole `[..., 2H]` tensor has another user
      are not fused.
    - a down multiplier: elementwise operations after the down projection
      that compute `c * y` (including casts) are folded into
      `down_multiplier` up to the last value whose type is `x`'s.

    What is never fused: a block whose intermediate values (`G`, `U`, the
    activation, the down projection before its multiplier) have users
    outside it; gate and up projections of different tensors; an
    activation that is not one of the three; shapes or element types that
    `fmlp.gated_mlp` rejects. With `explain-misses`, every contraction left
    unfused gets a remark that says why.

    Before (torch-mlir style, nn.Linear weights):

    ```mlir
    %wgT = linalg.transpose ins(%wg : tensor<200x96xf32>) outs(%e0 : tensor<96x200xf32>) permutation = [1, 0]
    %g = linalg.matmul ins(%x, %wgT : ...) outs(%zero : tensor<?x200xf32>) -> tensor<?x200xf32>
    %u = linalg.matmul ins(%x, %wuT : ...) outs(%zero : tensor<?x200xf32>) -> tensor<?x200xf32>
    %a = linalg.generic ... ins(%g, %u) { g / (1 + exp(-g)) * u }
    %y = linalg.matmul ins(%a, %wdT : ...) outs(%zero2 : tensor<?x96xf32>) -> tensor<?x96xf32>
    ```

    After:

    ```mlir
    %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
        : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
           tensor<96x200xf32>) -> tensor<?x96xf32>
    ```
  }];
  let dependentDialects = ["::mlir::fmlp::FMLPDialect"];
  let options = [
    Option<"explainMisses", "explain-misses", "bool", /*default=*/"false",
           "Emit a remark at every contraction that is not fused, saying why">
  ];
}

def ExpandTrainingPass : Pass<"fmlp-expand-training", "::mlir::ModuleOp"> {
  let summary = "Give each gated MLP block its entry points: forward, backward, forward_nograd";
  let description = [{
    fmlp compiles blocks, not programs: each `fmlp.gated_mlp` becomes a set
    of entry-point functions that a runtime launches. With `mode=train`
    (the default) they are

    - `@<f>.forward(x, weights) -> y`, to be followed by a backward,
    - `@<f>.backward(x, weights, dy) -> (dx, dWg, dWu, dWd)`, which holds the
      block's vector-Jacobian product (`fmlp.gated_mlp_grad`),
    - `@<f>.forward_nograd(x, weights) -> y`, for when autograd will not
      need a backward;

    with `mode=infer`, only `forward_nograd`. `<f>` is the function that
    held the block (`<f>.mlp<i>` when it held several: one entry set per
    block, in order): the operation directly in the module that holds it,
    a `func.func` or another dialect's function, named by its symbol (e.g.
    IREE's `util.func @main$async`, read as an opaque operation when
    IREE's output is printed in generic form and parsed with
    `--allow-unregistered-dialect`). Each entry carries
    `fmlp.entry = "forward" | "backward" | "forward_nograd"` and the block's
    location (the source of its projections). The function that held the
    blocks is removed when it consists of nothing else (the form
    fmlp-recognize leaves); otherwise it stays with `keep-holders=true` (the
    default, for inspection; later stages reject the `fmlp.gated_mlp` left
    in it) and is removed with `keep-holders=false`, which
    fmlp-plan-pipeline and fmlp-compile use: fmlp compiles blocks, and the
    rest of a whole model (attention, norms, residuals) stays the caller's.

    Weights are always arguments of the entry points, whatever they were in
    the holder: function arguments, `arith.constant` tensors (dense or
    `dense_resource`, as iree-turbine inlines them) or values loaded from
    globals. The plan never embeds weights; the caller passes them as
    buffers, as the runtime's launch API takes them.

    What crosses from forward to backward (saved activations) is not decided
    here: the backward is written as if it recomputed everything, and
    fmlp-fuse decides what the forward saves.

    Before:

    ```mlir
    func.func @mlp(%x: tensor<?x96xf32>, %wg: ..., %wu: ..., %wd: ...) -> tensor<?x96xf32> {
      %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : ...
      return %y : tensor<?x96xf32>
    }
    ```

    After (`mode=train`):

    ```mlir
    func.func @mlp.forward(%x, %wg, %wu, %wd) -> tensor<?x96xf32> attributes {fmlp.entry = "forward"} {
      %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd : ...
      return %y
    }
    func.func @mlp.backward(%x, %wg, %wu, %wd, %dy) -> (...) attributes {fmlp.entry = "backward"} {
      %dx, %dwg, %dwu, %dwd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu, down %wd, dy %dy : ...
      return %dx, %dwg, %dwu, %dwd
    }
    func.func @mlp.forward_nograd(...) attributes {fmlp.entry = "forward_nograd"} { ... }
    ```
  }];
  let dependentDialects = ["::mlir::fmlp::FMLPDialect", "::mlir::func::FuncDialect"];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"train\"",
           "Which entry points to make: train (forward, backward, "
           "forward_nograd) or infer (forward_nograd)">,
    Option<"keepHolders", "keep-holders", "bool", /*default=*/"true",
           "Keep a function that held blocks and also does other work (a "
           "whole model); false removes it, leaving only entry points">
  ];
}

def FusePass : Pass<"fmlp-fuse", "::mlir::ModuleOp"> {
  let summary = "Turn each entry point's block math into the fused kernel plan K1..K6";
  let description = [{
    Rewrites the block operations of each entry point into one operation per
    kernel (ARCHITECTURE.md, "The fused plan"), and makes the activations
    saved between forward and backward explicit, as `save` says:

    | save | forward returns | backward |
    | --- | --- | --- |
    | `agu` (default) | y, A, G, U | K6(A), K3, K4, K5 |
    | `gu` | y, G, U | K3 also storing A = act(G) U (before it writes dG, dU over G, U), K6, K4, K5 |
    | `u` | y, U | `fmlp.gate` (G = x Wg again: half of K1), K3 storing A over U and dU into a buffer after G's, K6, K4, K5 |
    | `x` | y | K1 again (one more GEMM), K3, K6, K4, K5 |

    `forward_nograd` is K1 storing A only, then K2. In every backward K3's
    outs are G and U themselves: dG and dU are written in place (the
    destination-passing form that fmlp-plan-memory turns into aliasing
    buffers; save=u: dG over the recomputed G, dU beside it, A over the
    saved U), and K4 and K5 read `[dG dU]` as one operand. Saved values are
    marked `fmlp.saved = "a" | "g" | "u"` on the forward's results and the
    backward's arguments; each entry records `fmlp.save`.

    Biases are added in K1's and K2's epilogues; their gradients are
    `fmlp.bias_grad` sums over the tokens of dG, dU and (times md) dY,
    returned after the weight gradients.

    Before (backward entry):

    ```mlir
    %dx, %dwg, %dwu, %dwd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu, down %wd, dy %dy : ...
    ```

    After (`save=agu`):

    ```mlir
    func.func @mlp.backward(%x, %wg, %wu, %wd, %dy, %a {fmlp.saved = "a"}, %g {fmlp.saved = "g"}, %u {fmlp.saved = "u"})
    %dwd = fmlp.down_weight_grad silu ins(%dy, %a : ...) outs(%e0 : ...) -> ...
    %dg, %du = fmlp.down_grad silu ins(%dy, %wd, %g, %u : ...) outs(%g, %u : ...) -> ...
    %dx = fmlp.input_grad ins(%dg, %du, %wg, %wu : ...) outs(%e1 : ...) -> ...
    %dwg, %dwu = fmlp.gate_up_weight_grad ins(%x, %dg, %du : ...) outs(%e2, %e3 : ...) -> ...
    ```
  }];
  let dependentDialects = ["::mlir::fmlp::FMLPDialect", "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"save", "save", "std::string", /*default=*/"\"agu\"",
           "What the forward saves for the backward: agu, gu, u or x">,
    Option<"fp32Precision", "fp32-precision", "std::string",
           /*default=*/"\"ieee\"",
           "The contractions' operand format of fp32 blocks that state "
           "none: ieee (exact products), highest (fp32's accuracy: tf32x3 "
           "where its bound is within ieee's), tf32 or tf32x3">
  ];
}

def PlanMemoryPass : Pass<"fmlp-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Give every value of the kernel plan a buffer: caller-provided outputs, one saved buffer, one workspace, dG/dU over G/U";
  let description = [{
    Turns each entry point of the kernel plan from tensors into memrefs
    that the caller provides, in this order: the inputs, then the outputs
    (`y`; or `dx, dWg, dWu, dWd`), then the saved buffer, then the
    workspace. Nothing is allocated inside an entry point.

    - **Saved buffer** `[T, kH]`, row-major, each token's row holding
      `A | G | U` (`save=agu`, k = 3), `G | U` (`save=gu`, k = 2) or `U`
      (`save=u`, k = 1; K3 writes A over it for K6): the
      columns of G and U are adjacent, so after K3 writes dG and dU over
      them, columns `[H, 3H)` are `[dG dU]`, the one `[T, 2H]` operand of K4
      and K5. The backward's saved argument is marked `fmlp.consumed`: it
      overwrites G and U, so a second backward over the same buffer would
      read gradients as activations; whoever launches it must refuse that.
    - **Workspace**: A where it is not saved (`save=gu` and `save=x`'s
      forward, `forward_nograd`, and `save=gu`'s backward, where K3
      recomputes it: `[T, H]`), A and G in `save=u`'s forward, G
      recomputed and dU beside it (`[dG dU]` after K3) in `save=u`'s
      backward (`[T, 2H]`), A, G, U recomputed by `save=x`'s backward
      (`[T, 3H]`).
    - **Adapters** (docs/LoRA.md): their `[T, R]` values (Z, Zd saved
      beside the activations; dZ, dZd and save=x's recomputed Z, Zd in the
      workspace) are column blocks after the activations' `[T, H]` ones, so
      those keep the places above.
    - **chunk-tokens=N** (0: off) bounds the workspace to N tokens: the
      entry points that have a workspace loop over token chunks of N, and
      the backward's weight gradients accumulate over the chunks (zeroed
      first), which changes the order of their sums: the results differ
      from the unchunked ones by rounding, within the same error bound.
      Entries without a workspace are not chunked.

    Each entry records `fmlp.workspace_columns` and `fmlp.chunk_tokens`,
    from which the workspace size for a given T follows (the memory report
    computes the same numbers).

    Before (forward, `save=agu`):

    ```mlir
    func.func @mlp.forward(%x, %wg, %wu, %wd) -> (y, a, g, u)
      %a, %g, %u = fmlp.gate_up silu ins(%x, %wg, %wu : ...) outs(...) -> (...)
      %y = fmlp.down ins(%a, %wd : ...) outs(...) -> ...
    ```

    After:

    ```mlir
    func.func @mlp.forward(%x: memref<?x96xf32>, %wg, %wu, %wd, %y: memref<?x96xf32>, %saved: memref<?x600xf32> {fmlp.saved = "agu"})
      %a = memref.subview %saved[0, 0] [%t, 200] [1, 1]
      %g = memref.subview %saved[0, 200] [%t, 200] [1, 1]
      %u = memref.subview %saved[0, 400] [%t, 200] [1, 1]
      fmlp.gate_up silu ins(%x, %wg, %wu : ...) outs(%a, %g, %u : ...)
      fmlp.down ins(%a, %wd : ...) outs(%y : ...)
    ```
  }];
  let dependentDialects = ["::mlir::fmlp::FMLPDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
  let options = [
    Option<"chunkTokens", "chunk-tokens", "int64_t", /*default=*/"0",
           "Bound the workspace to this many tokens (0: no chunking)">
  ];
}

def ConvertFMLPToLinalgPass : Pass<"convert-fmlp-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower the kernel plan on memrefs to linalg, for the CPU";
  let description = [{
    The CPU path of the plan: each kernel operation on memrefs becomes
    linalg operations on memrefs that compute exactly what the kernel
    promises, in the same order and into the same buffers (so aliasing,
    in-place dG/dU and chunking are exercised as planned). Contractions
    accumulate in f32 in a temporary accumulator, whatever the element type,
    and the epilogue rounds once to the element type, as the GPU kernels do.
    Upstream passes take it from there to LLVM (see fmlp-cpu-pipeline).
    Each entry point is marked `llvm.emit_c_interface`, so that a host can
    call it with memref descriptors.

    Before:

    ```mlir
    fmlp.down ins(%a, %wd : memref<?x200xf32>, memref<96x200xf32>) outs(%y : memref<?x96xf32>)
    ```

    After:

    ```mlir
    %acc = memref.alloc(%t) : memref<?x96xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<?x96xf32>)
    linalg.generic {...} ins(%a, %wd : ...) outs(%acc : ...) { mulf, addf }
    linalg.generic {...} ins(%acc : ...) outs(%y : ...) { y = md * acc }
    memref.dealloc %acc : memref<?x96xf32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"];
}

def AttachTargetPass : Pass<"fmlp-attach-target", "::mlir::ModuleOp"> {
  let summary = "Put the GPU the kernels are generated for on the module";
  let description = [{
    Looks `chip` up in fmlp's chip table (include/fmlp/Target.h) and
    records it on the module as `fmlp.target`; an unknown chip is an error
    that lists the known ones. Every later stage (fmlp-select-tiles,
    convert-fmlp-to-nvvm, the bundle writer) reads the chip's row from this
    attribute: its shared memory, MMA families, PTX ISA version and ptxas
    architecture. No later stage takes a chip name.

    ```mlir
    module {...}
    // fmlp-attach-target{chip=sm_120a}:
    module attributes {fmlp.target = #fmlp.target<"sm_120a">} {...}
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "The target GPU, a row of the chip table (sm_80 ... sm_120a)">,
  ];
  let dependentDialects = ["::mlir::fmlp::FMLPDialect"];
}

def TransposeWeightsPass : Pass<"fmlp-transpose-weights", "::mlir::ModuleOp"> {
  let summary = "Give WGMMA kernels with fp32 operands K-major copies of the weights they read MN-major";
  let description = [{
    tf32 WGMMA reads K-major operands only; the backward's down_grad (K3)
    and input_grad (K4) read nn.Linear's weights MN-major, which their
    WGMMA kernels would otherwise transpose in shared memory at every
    k-step of every block. For each GEMM kernel op with fp32 operands in an
    entry point (`fmlp.entry`) of a planned module (on memrefs), each weight
    (`gate`, `up`, `down`: an argument of the entry point, statically
    shaped and dense) that it reads MN-major is copied by an
    `fmlp.transpose` into a new workspace argument of the entry point,
    `<name>_transposed` (`fmlp.workspace`: scratch of one call, D x H
    elements), and the op reads the copy, its layout attribute
    (`down_layout` ...) flipped, where fmlp-select-tiles' rule then gives
    it a WGMMA kernel; elsewhere it keeps its weights (LoRA's K3 and K4,
    whose adapter matrices sit MN-major beside the weights in one operand).
    One copy per weight and entry point, at the entry's start (before the
    token-chunk loop and the kernels of both lanes). The copy is exact: the
    kernel computes the same sums. An op that has a kernel config already
    is refused.

    Reads the module's `fmlp.target` (fmlp-attach-target); `strategy`
    means what it means to fmlp-select-tiles, which runs after it.
    fmlp-gpu-pipeline runs it under `--fmlp-k-major-weights`.

    ```mlir
    fmlp.transpose ins(%down : memref<1024x2816xf32>)
        outs(%down_t : memref<2816x1024xf32>)
    fmlp.down_grad silu ins(%dy, %down_t, %g, %u : ...) outs(...)
        {down_layout = #fmlp.layout<in_out>}
    ```
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"auto\"",
           "auto (the rule), or mma_sync or simt: as fmlp-select-tiles' "
           "option (no WGMMA kernel, no copy)">,
  ];
  let dependentDialects = ["::mlir::fmlp::FMLPDialect"];
}

def RoundTf32WeightsPass : Pass<"fmlp-round-tf32-weights", "::mlir::ModuleOp"> {
  let summary = "Round the operands of tf32 WGMMA kernels to nearest, as PyTorch's TF32 does";
  let description = [{
    A tensor core that multiplies fp32 operands as tf32 truncates each
    operand's mantissa toward zero (the bits TMA stored, as they are); the
    bias sums coherently over a contraction (4.2-4.6x the error of
    PyTorch's TF32 on the H100, docs/precision.md). For each GEMM kernel op
    of an entry point (`fmlp.entry`) whose contractions take tf32 products
    (fp32 operands, precision `tf32`) on a WGMMA kernel (fmlp-select-tiles'
    rule), this pass:
      - marks the op `fmlp.tf32_rounded`: its WGMMA kernel rounds the
        operands it stages itself (A in registers, the MN-major tiles its
        producer transposes), with cvt.rna;
      - copies each weight it reads as a B operand K-major as stored (an
        argument of the entry point, static and dense: Wg, Wu, Wd, a LoRA
        adapter's Bg, Bu, Bd, and its A matrices where the adapter's own
        GEMMs read them as weights) into a new workspace argument
        `<name>_tf32`
        (`fmlp.workspace`, the weight's shape), rounded to tf32 by an
        `fmlp.round_to_tf32` at the entry's start (once per weight and
        entry point, before the token-chunk loop), and gives the op the
        copy;
      - sets `round_to_tf32` on the `fmlp.transpose` (fmlp-transpose-
        weights) whose copy the op reads, where every op that reads that
        copy rounds.
    fmlp-select-tiles then lets the token variants of few T read the
    weights as stored and round them in their stages instead
    (`rounds_in_stages`, codegen/TileSelection.h), and convert-fmlp-to-nvvm
    launches each copy only for the T some kernel reads it at (under
    `scf.if T >= F`, its launch's `fmlp.min_tokens` F): at T = 1 a copy
    would read and write the weights once more than the GEMMs read them.
    An op marked already (a second run) is left as it is. Refused
    for an op that has a kernel config already, and under
    `--fmlp-tf32-transpose=cp-async` for an op that reads an operand
    MN-major (those copies cannot round).

    Reads the module's `fmlp.target` (fmlp-attach-target); `strategy`
    means what it means to fmlp-select-tiles, which runs after it.
    fmlp-gpu-pipeline runs it, after fmlp-transpose-weights, under
    `--fmlp-tf32-round-operands`.

    ```mlir
    fmlp.round_to_tf32 ins(%gate : memref<2816x1024xf32>)
        outs(%gate_tf32 : memref<2816x1024xf32>)
    fmlp.gate_up silu ins(%x, %gate_tf32, %up_tf32 : ...) outs(...)
        {fmlp.tf32_rounded, precision = #fmlp.precision<tf32>}
    ```
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"auto\"",
           "auto (the rule), or mma_sync or simt: as fmlp-select-tiles' "
           "option (no WGMMA kernel, nothing to round)">,
  ];
  let dependentDialects = ["::mlir::fmlp::FMLPDialect"];
}

def SelectTilesPass : Pass<"fmlp-select-tiles", "::mlir::ModuleOp"> {
  let summary = "Choose each GEMM kernel's strategy, tiles and pipeline depth for the module's target";
  let description = [{
    Records on every GEMM kernel op (K1..K6) of a planned module (on
    memrefs) a `#fmlp.kernel_config` as `fmlp.kernel_config`: the
    `strategy` (`wgmma`, `mma_sync` or `simt`), the `tile` (M x N x K), the pipeline
    `stages`, the `cluster` shape, the shared memory per block, the register
    cap, and the `reason` for the strategy. The choice reads the module's
    `fmlp.target` (fmlp-attach-target) and fits that chip's shared memory
    per block (sm_90a 232448 B, sm_80 166912 B, sm_120 101376 B) and its
    registers:

    - `wgmma` on a target with WGMMA (sm_90a) for 16-bit operands, or fp32
      ones at precision tf32 (both K-major: K1, K2 and gate), that TMA can
      read (16-byte aligned): tiles 128 x (256 / accumulators) x one
      128-byte row of k (64 16-bit elements, 32 fp32) and as many stages as
      fit (at most 6); where M and N are static
      (the weight gradients, K = T) a width of 192 or 128 when it cuts
      waves x width on the target's multiprocessors (132) by 10 %
      (D = 1024: K5 and K6 take 192);
    - `mma_sync` on the other chips (sm_80 onwards), or on sm_90a where
      TMA cannot read an operand, for 16-bit operands with a unit stride
      along one index and 16-byte aligned rows (cp.async): tiles 128 x
      (256 / accumulators) x 64 where three stages fit (sm_80, sm_90,
      sm_100), else x 32 (sm_86, sm_89, sm_120), as many stages as fit (at
      most 4);
    - `simt` otherwise (fp32 operands as IEEE fp32, other strides): 64 x 64
      x 16.

    `strategy=mma_sync` (or `simt`) takes that strategy where the operands
    allow it instead of a faster one: the H200 then runs the kernels that
    the chips without WGMMA get.

    convert-fmlp-to-nvvm generates what the record says, and requires it.

    ```mlir
    fmlp.gate_up silu ins(...) outs(...) {fmlp.kernel_config =
        #fmlp.kernel_config<strategy = wgmma, tile = [128, 128, 64],
        stages = 4, cluster = [1, 1], shared_bytes = 197632,
        max_registers = 168, reason = "...">}
    ```
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"auto\"",
           "auto (the rule), or mma_sync or simt in place of faster "
           "strategies">,
  ];
  let dependentDialects = ["::mlir::fmlp::FMLPDialect"];
}

def ConvertFMLPToNVVMPass : Pass<"convert-fmlp-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Generate a GPU kernel for every kernel op of the plan and launch it";
  let description = [{
    The GPU path of the plan. Every kernel operation on memrefs (K1..K6 and
    bias_grad) becomes a kernel, an `llvm.func` with NVVM intrinsics in the
    `gpu.module @fmlp_kernels` (`#nvvm.target` of the module's
    `fmlp.target`: its chip and PTX ISA version), and is
    replaced by a `gpu.launch_func` of it. Kernel parameters are one global
    pointer per distinct buffer, the caller having moved each to the first
    element of its view, and the token count T (i64); strides are static and
    folded into the code. The launch geometry, as functions of T, is also
    recorded on each kernel (`fmlp.grid_tokens_per_block`,
    `fmlp.grid_fixed`, `fmlp.block`, `fmlp.dynamic_shared_bytes`) for the
    bundle's manifest.

    Every kernel is one GEMM skeleton (codegen/KernelBuilder.h) with its
    operands and epilogue plugged in; the epilogues compute what
    convert-fmlp-to-linalg computes, rounding the same values. Each kernel
    op takes the strategy its `fmlp.kernel_config` names (see
    fmlp-select-tiles; a GEMM kernel op without one is an error):

    - `wgmma` (sm_90a, 16-bit, or fp32 multiplied as tf32 by k8
      instructions from the fp32 bits TMA stored, K-major only): the
      operands are read through tensor maps
      (CUtensorMap parameters, passed by value as grid constants, ahead of
      the buffers) by a producer warpgroup on an mbarrier ring, and
      multiplied by two consumer warpgroups with WGMMA (K-major or MN-major
      shared-memory layouts), tiles taken in groups of 16 along T (L2
      reuse); the epilogue runs on the accumulators in registers on blocks
      staged in shared memory (16-bit views; fp32 ones it stores
      directly), which outputs with a tensor map of their
      own (64 x 64 boxes, after the operands' maps) move in and out by TMA:
      in by the producer under the main loop's last steps where every
      staged view is read (K3's G and U), out box by box as the elements
      finish each; there, once its loads are issued, the producer also
      computes each consumer's last box of elements from accumulators the
      consumer leaves in shared memory past the ring (setmaxnreg 120 for
      it, 192 for the consumers); with `split_k` = S > 1 (a token variant
      with static K and N) the grid's z takes slice s of K's tiles, each
      block stores its fp32 partial tile in the entry point's
      `split_k_workspace` (a new argument, `fmlp.workspace`, sized for the
      entry's largest split-K kernel at its largest T) and counts its
      arrival (atom.add between gpu-scope fences); the last block of a tile
      sums the partials in slice order, zeroes the counter and runs the
      epilogue, the others exit. A launch of a fill kernel that zeroes the
      counters precedes each such launch, in the same T range;
    - `simt`: fp32 FMA on shared-memory tiles, correct for every valid input
      (any strides, T from 1 up, f32 as true IEEE fp32, any chip).

    A token-chunked plan (fmlp-plan-memory's chunk-tokens > 0) keeps its
    scf.for over the chunks: the kernel ops in it become launches in it, on
    the chunk's views, with T the chunk's token count; the `linalg.fill`s
    before it, which zero the weight and bias gradients the chunks
    accumulate into (each kernel's `accumulate`: load, add, store in the
    storage type), become launches of a fill kernel. The bundle writer turns
    the loop into the manifest's per-chunk launches (docs/Bundle.md). A
    kernel op in any other loop, in a chunk loop over a static T, or outside
    the chunk loop of a chunked entry point (a static T of one chunk, whose
    loop canonicalization folded away) is refused: the runtime chunks the
    T of the caller's tensors.

    Before:

    ```mlir
    fmlp.down ins(%a, %wd : memref<?x200xf32>, memref<96x200xf32>) outs(%y : memref<?x96xf32>)
    ```

    After:

    ```mlir
    gpu.launch_func @fmlp_kernels::@f_k1_down blocks in (%gx, %c2, %c1) threads in (%c256, %c1, %c1)
        args(%a : memref<?x200xf32>, %wd : memref<96x200xf32>, %y : memref<?x96xf32>, %t : index)
    gpu.module @fmlp_kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">] {
      llvm.func @f_k1_down(%a: !llvm.ptr<1>, %wd: !llvm.ptr<1>, %y: !llvm.ptr<1>, %t: i64)
          attributes {nvvm.kernel, fmlp.grid_tokens_per_block = array<i64: 64, 0, 0>, ...}
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // FMLP_PASSES_TD
