//===- FMLPOps.td - fmlp operations -----------------------*- tablegen -*-===//
//
// The gated MLP block as one operation, forward and backward. Both operations
// take the same operands and attributes (the backward one adds dy), so that
// `fmlp.gated_mlp_grad` is by construction the vector-Jacobian product of the
// `fmlp.gated_mlp` with the same signature.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_OPS_TD
#define FMLP_OPS_TD

include "FMLPAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def FMLP_FloatTensor : RankedTensorOf<[BF16, F16, F32]>;

// Operands and attributes shared by the forward and backward operations.
defvar FMLP_BlockInputs = (ins
  FMLP_FloatTensor:$x,
  FMLP_FloatTensor:$gate,
  FMLP_FloatTensor:$up,
  FMLP_FloatTensor:$down);

defvar FMLP_BlockBiasesAndAttributes = (ins
  Optional<FMLP_FloatTensor>:$gate_bias,
  Optional<FMLP_FloatTensor>:$up_bias,
  Optional<FMLP_FloatTensor>:$down_bias,
  Optional<FMLP_FloatTensor>:$lora_a,
  Optional<FMLP_FloatTensor>:$gate_lora_b,
  Optional<FMLP_FloatTensor>:$up_lora_b,
  Optional<FMLP_FloatTensor>:$down_lora_a,
  Optional<FMLP_FloatTensor>:$down_lora_b,
  FMLP_ActivationAttr:$activation,
  DefaultValuedAttr<FMLP_WeightLayoutAttr,
                    "::mlir::fmlp::WeightLayout::out_in">:$gate_layout,
  DefaultValuedAttr<FMLP_WeightLayoutAttr,
                    "::mlir::fmlp::WeightLayout::out_in">:$up_layout,
  DefaultValuedAttr<FMLP_WeightLayoutAttr,
                    "::mlir::fmlp::WeightLayout::out_in">:$down_layout,
  OptionalAttr<F64Attr>:$gate_multiplier,
  OptionalAttr<F64Attr>:$down_multiplier,
  OptionalAttr<FMLP_PrecisionAttr>:$precision);

defvar FMLP_BlockBiasSyntax = [{
  (`gate_bias` $gate_bias^)?
  (`up_bias` $up_bias^)?
  (`down_bias` $down_bias^)?
  (`lora` `(` $lora_a^ `,` $gate_lora_b `,` $up_lora_b `)`)?
  (`down_lora` `(` $down_lora_a^ `,` $down_lora_b `)`)?
}];

defvar FMLP_BlockSharedDescription = [{
    Shapes: `x` is `[..., T, D]` (leading dimensions and `T` may be dynamic,
    `D` is static). Each weight is 2-D and static, stored as its layout
    attribute says: `in_out` is `[in, out]` (the projection is `x W`),
    `out_in` is torch.nn.Linear's `[out, in]` (the projection is `x W^T`,
    with `W` read in place, never transposed or copied). The gate and up
    weights map `D -> H`, the down weight `H -> D`. Layouts default to
    `out_in`, the Hugging Face layout. The optional biases are 1-D: `[H]` for
    gate and up, `[D]` for down.

    Element types are bf16, f16 or f32. Without a `precision` attribute
    every operand has one element type, and each contraction rounds its
    operands to it and accumulates in fp32. A `precision` attribute names the
    operand format of the contractions explicitly (`bf16`, `f16`, `tf32`,
    `tf32x3`, `ieee`, or `highest`: IEEE fp32's accuracy, by tf32x3 on
    tensor cores where its bound is within IEEE's), which also admits
    operands of mixed element types; the fp32 formats (`tf32`, `tf32x3`,
    `ieee`, `highest`) need f32 operands.

    The optional multipliers follow Falcon-H1's `mlp_multipliers`:
    `gate_multiplier` scales `x Wg` before the activation, `down_multiplier`
    scales the output.

    Low-rank adapters (LoRA, docs/LoRA.md), in nn.Linear's `[out, in]`
    layout whatever the weights' layouts: `lora(A_cat, Bg, Bu)` adds
    `Z Bg^T` to the gate projection and `Z Bu^T` to the up projection, with
    `Z = x A_cat^T` (`A_cat` is `[R, D]`, `Bg` and `Bu` are `[H, R]`: the
    gate's and up's adapters stacked along R, zero where an adapter belongs
    to the other projection); `down_lora(Ad, Bd)` adds `Zd Bd^T` to the
    down projection, with `Zd = A Ad^T` (`Ad` is `[Rd, H]`, `Bd` is
    `[D, Rd]`). The caller folds each adapter's scale (alpha / r) into its
    matrices. `Z` and `Zd` are rounded to the element type once, as a
    kernel stores them.
}];

def FMLP_GatedMlpOp : FMLP_Op<"gated_mlp",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "forward of a gated MLP block (SwiGLU, GeGLU, ReGLU)";
  let description = !strconcat([{
    Computes one gated MLP block on tensors:

    ```
    G = gate_multiplier * (x Wg + Z Bg^T + bg)      Z  = x A_cat^T
    U = x Wu + Z Bu^T + bu
    A = act(G) * U
    y = down_multiplier * (A Wd + Zd Bd^T + bd)     Zd = A Ad^T
    ```

    with `act` one of `silu` (SwiGLU), `gelu_tanh` (GeGLU) or `relu` (ReGLU).
    Multipliers default to 1, biases and adapter terms to 0. The result `y` has the type of `x`.
  }], FMLP_BlockSharedDescription, [{

    Example (Llama-7B, bf16, weights in nn.Linear layout):

    ```mlir
    %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
        : (tensor<?x4096xbf16>, tensor<11008x4096xbf16>,
           tensor<11008x4096xbf16>, tensor<4096x11008xbf16>)
        -> tensor<?x4096xbf16>
    ```
  }]);

  let arguments = !con(FMLP_BlockInputs, FMLP_BlockBiasesAndAttributes);
  let results = (outs FMLP_FloatTensor:$y);

  let assemblyFormat = !strconcat([{
    custom<ActivationKeyword>($activation) $x `,` `gate` $gate `,` `up` $up `,` `down` $down
  }], FMLP_BlockBiasSyntax, [{
    attr-dict `:` functional-type(operands, results)
  }]);

  let extraClassDeclaration = [{
    /// The block's dimensions, valid once the operation verifies.
    ::mlir::fmlp::BlockShape getBlockShape();
  }];

  let hasVerifier = 1;
}

def FMLP_GatedMlpGradOp : FMLP_Op<"gated_mlp_grad",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "backward (vector-Jacobian product) of a gated MLP block";
  let description = !strconcat([{
    Given the operands of an `fmlp.gated_mlp` and the gradient `dy` of a loss
    with respect to its result, returns the gradients with respect to `x`
    and each weight, and then one gradient per optional operand present, in
    operand order: the biases (gate, up, down), then the adapters (A_cat,
    Bg, Bu, Ad, Bd). With `G`, `U`, `A`, `Z`, `Zd` as in `fmlp.gated_mlp` and the
    multipliers `mg` (gate) and `md` (down):

    ```
    dZd = dy Bd                     dA  = md * (dy Wd^T + dZd Ad)
    dG  = mg * dA * U * act'(G)     dU  = dA * act(G)
    dZ  = dG Bg + dU Bu             dx  = dG Wg^T + dU Wu^T + dZ A_cat
    dWd = md * A^T dy               dWg = x^T dG          dWu = x^T dU
    dbd = md * sum(dy)              dbg = sum(dG)         dbu = sum(dU)
    dA_cat = dZ^T x                 dBg = dG^T Z          dBu = dU^T Z
    dAd = md * dZd^T A              dBd = md * dy^T Zd
    ```

    (written for the `in_out` layout of the weights; an `out_in` weight
    receives the transpose, so every gradient has the type of the operand
    it belongs to; the adapters are `[out, in]` and so are their
    gradients). `dZd` and `dZ` are rounded to the element type once. The
    down bias takes no part in the math of the other gradients; it is an
    operand so that its presence asks for its gradient.
  }], FMLP_BlockSharedDescription, [{

    Example:

    ```mlir
    %dx, %dwg, %dwu, %dwd = fmlp.gated_mlp_grad silu %x, gate %wg, up %wu,
        down %wd, dy %dy
        : (tensor<?x4096xbf16>, tensor<11008x4096xbf16>,
           tensor<11008x4096xbf16>, tensor<4096x11008xbf16>,
           tensor<?x4096xbf16>)
        -> (tensor<?x4096xbf16>, tensor<11008x4096xbf16>,
            tensor<11008x4096xbf16>, tensor<4096x11008xbf16>)
    ```
  }]);

  let arguments = !con(FMLP_BlockInputs, (ins FMLP_FloatTensor:$dy),
                       FMLP_BlockBiasesAndAttributes);
  let results = (outs
    FMLP_FloatTensor:$dx,
    FMLP_FloatTensor:$d_gate,
    FMLP_FloatTensor:$d_up,
    FMLP_FloatTensor:$d_down,
    Variadic<FMLP_FloatTensor>:$optional_grads);

  let assemblyFormat = !strconcat([{
    custom<ActivationKeyword>($activation) $x `,` `gate` $gate `,` `up` $up `,` `down` $down `,` `dy` $dy
  }], FMLP_BlockBiasSyntax, [{
    attr-dict `:` functional-type(operands, results)
  }]);

  let extraClassDeclaration = [{
    /// The block's dimensions, valid once the operation verifies.
    ::mlir::fmlp::BlockShape getBlockShape();
  }];

  let hasVerifier = 1;
}

include "FMLPKernelOps.td"

#endif // FMLP_OPS_TD
