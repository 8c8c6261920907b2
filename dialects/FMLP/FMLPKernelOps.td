//===- FMLPKernelOps.td - the fused kernel plan -----------*- tablegen -*-===//
//
// One operation per kernel of the fused plan (ARCHITECTURE.md, "The fused
// plan"): K1 gate_up, K2 down, K3 down_grad, K4 input_grad,
// K5 gate_up_weight_grad, K6 down_weight_grad, bias_grad for the bias
// gradients, and gate (K1's G alone, which save=u's backward recomputes).
// They are destination-passing like linalg: on tensors they return their
// results; on memrefs (after fmlp-plan-memory) they write their `outs` and
// may read and write the same buffer where the op says so (K3 writes dG,
// dU over G, U).
//
// The GEMM kernels (K1..K6, gate) carry the block's `precision` where it has one
// (fmlp-fuse copies it): the operand format their contractions round to,
// which fmlp-select-tiles reads.
//
// Notation: G is the gate activation's input, mg (x Wg); U = x Wu;
// A = act(G) * U; y = md (A Wd). Weights are read in their layout.
//
// Low-rank adapters (docs/LoRA.md) extend a kernel's contraction by R more
// terms: its optional `lora` operands are a token-major [T, R] operand and
// the adapter matrices, in [out, in] layout, that it multiplies (K1: G +=
// Z Bg^T, U += Z Bu^T; K2: y += md Zd Bd^T; K3: dA += md dZd Ad; K4: dx +=
// dZ A). One fp32 sum over K + R, one rounding: the adapter term is part
// of the same contraction, not added afterwards.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_KERNEL_OPS_TD
#define FMLP_KERNEL_OPS_TD

include "FMLPAttrs.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class FMLP_KernelOp<string mnemonic, list<Trait> traits = []>
    : FMLP_Op<mnemonic, !listconcat(traits, [
        DestinationStyleOpInterface,
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>])> {
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getInitsMutable();
    }
  }];
}

defvar FMLP_KernelResults = [{
  `outs` `(` $inits `:` type($inits) `)` attr-dict (`->` type($results)^)?
}];

def FMLP_GateUpOp : FMLP_KernelOp<"gate_up", [AttrSizedOperandSegments]> {
  let summary = "K1: G and U from one pass over x, A in the epilogue";
  let description = [{
    Computes `G = mg (x Wg + bg)` and `U = x Wu + bu` with two accumulators
    that share each tile of `x` (the biases, when given, added in the
    epilogue), and in the epilogue `A = act(G) * U`. With one init it
    stores `A` only (the no-grad forward); with three it stores `A`, `G`,
    `U` (training), which fmlp-plan-memory places side by side in one
    buffer.

    ```mlir
    %a, %g, %u = fmlp.gate_up silu ins(%x, %wg, %wu : ...) outs(%ea, %eg, %eu : ...) -> (...)
    ```
  }];
  let arguments = (ins
    AnyShaped:$x, AnyShaped:$gate, AnyShaped:$up,
    Optional<AnyShaped>:$gate_bias, Optional<AnyShaped>:$up_bias,
    Optional<AnyShaped>:$lora_z, Optional<AnyShaped>:$gate_lora_b,
    Optional<AnyShaped>:$up_lora_b,
    Variadic<AnyShaped>:$inits,
    FMLP_ActivationAttr:$activation,
    DefaultValuedAttr<FMLP_WeightLayoutAttr,
                      "::mlir::fmlp::WeightLayout::out_in">:$gate_layout,
    DefaultValuedAttr<FMLP_WeightLayoutAttr,
                      "::mlir::fmlp::WeightLayout::out_in">:$up_layout,
    OptionalAttr<F64Attr>:$gate_multiplier,
    OptionalAttr<FMLP_PrecisionAttr>:$precision);
  let assemblyFormat = !strconcat([{
    custom<ActivationKeyword>($activation) `ins` `(` $x `,` $gate `,` $up `:`
    type($x) `,` type($gate) `,` type($up) `)`
    (`gate_bias` `(` $gate_bias^ `:` type($gate_bias) `)`)?
    (`up_bias` `(` $up_bias^ `:` type($up_bias) `)`)?
    (`lora` `(` $lora_z^ `,` $gate_lora_b `,` $up_lora_b `:` type($lora_z) `,`
     type($gate_lora_b) `,` type($up_lora_b) `)`)?
  }], FMLP_KernelResults);
}

def FMLP_DownOp : FMLP_KernelOp<"down", [AttrSizedOperandSegments]> {
  let summary = "K2: y = md (A Wd + bd); any plain projection";
  let description = [{
    K2, and every other projection of a token-major operand the plan needs
    (an adapter's `Z = x A^T`, `Zd = A Ad^T`, `dZd = dY Bd`): one
    contraction, the bias and multiplier (when given) in the epilogue.
  }];
  let arguments = (ins
    AnyShaped:$a, AnyShaped:$down, Optional<AnyShaped>:$down_bias,
    Optional<AnyShaped>:$lora_z, Optional<AnyShaped>:$lora_b,
    Variadic<AnyShaped>:$inits,
    DefaultValuedAttr<FMLP_WeightLayoutAttr,
                      "::mlir::fmlp::WeightLayout::out_in">:$down_layout,
    OptionalAttr<F64Attr>:$down_multiplier,
    OptionalAttr<FMLP_PrecisionAttr>:$precision);
  let assemblyFormat = !strconcat([{
    `ins` `(` $a `,` $down `:` type($a) `,` type($down) `)`
    (`down_bias` `(` $down_bias^ `:` type($down_bias) `)`)?
    (`lora` `(` $lora_z^ `,` $lora_b `:` type($lora_z) `,` type($lora_b) `)`)?
  }], FMLP_KernelResults);
}

def FMLP_GateOp : FMLP_KernelOp<"gate", [AttrSizedOperandSegments]> {
  let summary = "G = mg (x Wg + bg): K1's gate projection alone";
  let description = [{
    The backward of save=u, which keeps U but not G, recomputes G with it
    before K3 (2 T D H of K1's 4 T D H). Its error is that of K1's G (an
    fp32 contraction over D, rounded to storage), not necessarily the same
    bits: another kernel may sum in another order.
  }];
  let arguments = (ins
    AnyShaped:$x, AnyShaped:$gate, Optional<AnyShaped>:$gate_bias,
    Optional<AnyShaped>:$lora_z, Optional<AnyShaped>:$gate_lora_b,
    Variadic<AnyShaped>:$inits,
    DefaultValuedAttr<FMLP_WeightLayoutAttr,
                      "::mlir::fmlp::WeightLayout::out_in">:$gate_layout,
    OptionalAttr<F64Attr>:$gate_multiplier,
    OptionalAttr<FMLP_PrecisionAttr>:$precision);
  let assemblyFormat = !strconcat([{
    `ins` `(` $x `,` $gate `:` type($x) `,` type($gate) `)`
    (`gate_bias` `(` $gate_bias^ `:` type($gate_bias) `)`)?
    (`lora` `(` $lora_z^ `,` $gate_lora_b `:` type($lora_z) `,`
     type($gate_lora_b) `)`)?
  }], FMLP_KernelResults);
}

def FMLP_DownGradOp : FMLP_KernelOp<"down_grad", [AttrSizedOperandSegments]> {
  let summary = "K3: dA = md (dY Wd^T [+ dZd Ad]), never stored; dG and dU in the epilogue";
  let description = [{
    Computes `dA = md (dY Wd^T)` tile by tile and, in the epilogue, the
    gradients with respect to the two projections' outputs:
    `dG = mg dA U act'(G)` and `dU = dA act(G)`. Each element of dG and dU
    depends only on the same element of G and U, so on memrefs the outs may
    be the very buffers of G and U: dG and dU are written over them.

    With a third init it also stores `A = act(G) * U`, recomputed from the
    same elements before they are overwritten, for K6 (fmlp-fuse with
    save=gu, u or x keeps no A).
  }];
  let arguments = (ins
    AnyShaped:$dy, AnyShaped:$down, AnyShaped:$g, AnyShaped:$u,
    Optional<AnyShaped>:$lora_dz, Optional<AnyShaped>:$lora_a,
    Variadic<AnyShaped>:$inits,
    FMLP_ActivationAttr:$activation,
    DefaultValuedAttr<FMLP_WeightLayoutAttr,
                      "::mlir::fmlp::WeightLayout::out_in">:$down_layout,
    OptionalAttr<F64Attr>:$gate_multiplier,
    OptionalAttr<F64Attr>:$down_multiplier,
    OptionalAttr<FMLP_PrecisionAttr>:$precision);
  let assemblyFormat = !strconcat([{
    custom<ActivationKeyword>($activation) `ins` `(` $dy `,` $down `,` $g `,`
    $u `:` type($dy) `,` type($down) `,` type($g) `,` type($u) `)`
    (`lora` `(` $lora_dz^ `,` $lora_a `:` type($lora_dz) `,` type($lora_a) `)`)?
  }], FMLP_KernelResults);
}

def FMLP_InputGradOp : FMLP_KernelOp<"input_grad", [AttrSizedOperandSegments]> {
  let summary = "K4: dx = [dG dU] [Wg Wu]^T [+ dZ A_cat], one contraction over K = 2H [+ R]";
  let arguments = (ins
    AnyShaped:$dg, AnyShaped:$du, AnyShaped:$gate, AnyShaped:$up,
    Optional<AnyShaped>:$lora_dz, Optional<AnyShaped>:$lora_a,
    Variadic<AnyShaped>:$inits,
    DefaultValuedAttr<FMLP_WeightLayoutAttr,
                      "::mlir::fmlp::WeightLayout::out_in">:$gate_layout,
    DefaultValuedAttr<FMLP_WeightLayoutAttr,
                      "::mlir::fmlp::WeightLayout::out_in">:$up_layout,
    OptionalAttr<FMLP_PrecisionAttr>:$precision);
  let assemblyFormat = !strconcat([{
    `ins` `(` $dg `,` $du `,` $gate `,` $up `:` type($dg) `,` type($du) `,`
    type($gate) `,` type($up) `)`
    (`lora` `(` $lora_dz^ `,` $lora_a `:` type($lora_dz) `,` type($lora_a) `)`)?
  }], FMLP_KernelResults);
}

def FMLP_GateUpWeightGradOp : FMLP_KernelOp<"gate_up_weight_grad"> {
  let summary = "K5: [dWg dWu] = x^T [dG dU], one contraction over N = 2H";
  let description = [{
    With `accumulate`, adds to the outs instead of overwriting them (a
    token-chunked backward sums the chunks' contributions).
  }];
  let arguments = (ins
    AnyShaped:$x, AnyShaped:$dg, AnyShaped:$du,
    Variadic<AnyShaped>:$inits,
    DefaultValuedAttr<FMLP_WeightLayoutAttr,
                      "::mlir::fmlp::WeightLayout::out_in">:$gate_layout,
    DefaultValuedAttr<FMLP_WeightLayoutAttr,
                      "::mlir::fmlp::WeightLayout::out_in">:$up_layout,
    UnitAttr:$accumulate,
    OptionalAttr<FMLP_PrecisionAttr>:$precision);
  let assemblyFormat = !strconcat([{
    `ins` `(` $x `,` $dg `,` $du `:` type($x) `,` type($dg) `,` type($du) `)`
  }], FMLP_KernelResults);
}

def FMLP_DownWeightGradOp : FMLP_KernelOp<"down_weight_grad"> {
  let summary = "K6: dWd = md (A^T dY)";
  let description = [{
    Reads A as the forward saved it, or as K3 recomputed it (save=gu, u,
    x). With
    `accumulate`, adds to the out instead of overwriting it.
  }];
  let arguments = (ins
    AnyShaped:$dy, AnyShaped:$a,
    Variadic<AnyShaped>:$inits,
    DefaultValuedAttr<FMLP_WeightLayoutAttr,
                      "::mlir::fmlp::WeightLayout::out_in">:$down_layout,
    OptionalAttr<F64Attr>:$down_multiplier,
    UnitAttr:$accumulate,
    OptionalAttr<FMLP_PrecisionAttr>:$precision);
  let assemblyFormat = !strconcat([{
    `ins` `(` $dy `,` $a `:` type($dy) `,` type($a) `)`
  }], FMLP_KernelResults);
}

def FMLP_BiasGradOp : FMLP_KernelOp<"bias_grad"> {
  let summary = "A bias gradient: db = scale * (the sum over tokens of a gradient)";
  let description = [{
    `db[n] = scale * sum_t grad[t, n]`: dbg from dG, dbu from dU, and dbd
    (scale md) from dY. A reduction over the tokens like K5's and K6's; on
    the GPU it belongs in their main loops (a row of ones appended to the
    shared operand), here it is a kernel of its own. With `accumulate`, adds
    to the out instead of overwriting it.
  }];
  let arguments = (ins
    AnyShaped:$grad,
    Variadic<AnyShaped>:$inits,
    OptionalAttr<F64Attr>:$scale,
    UnitAttr:$accumulate);
  let assemblyFormat = !strconcat([{
    `ins` `(` $grad `:` type($grad) `)`
  }], FMLP_KernelResults);
}

def FMLP_TransposeOp : FMLP_KernelOp<"transpose"> {
  let summary = "A weight copied into the other layout: out[j, i] = in[i, j]";
  let description = [{
    Writes the transpose of a 2-D `input` into its out, element for element
    (both have the input's element type). fmlp-transpose-weights puts one at
    an entry point's start for each weight that a GEMM kernel reads MN-major
    and gives that kernel the copy, with the weight's layout attribute
    flipped, so that it reads it K-major (what tf32 WGMMA reads,
    docs/precision.md).

    With `round_to_tf32` (f32 only) each element is written rounded to the
    nearest tf32 value (ties away from zero, as cvt.rna.tf32.f32 rounds):
    fmlp-round-tf32-weights sets it where every kernel that reads the copy
    multiplies it as tf32 on tensor cores, which would otherwise truncate
    it.
  }];
  let arguments = (ins AnyShaped:$input, Variadic<AnyShaped>:$inits,
                       UnitAttr:$round_to_tf32);
  let assemblyFormat = !strconcat([{
    `ins` `(` $input `:` type($input) `)`
  }], FMLP_KernelResults);
}

def FMLP_RoundToTf32Op : FMLP_KernelOp<"round_to_tf32"> {
  let summary = "A weight copied rounded to tf32: out[i, j] = rna(in[i, j])";
  let description = [{
    Writes each element of a 2-D f32 `input` into its out, in the same
    layout, rounded to the nearest tf32 value (10 mantissa bits; ties away
    from zero, as cvt.rna.tf32.f32 rounds). A tensor core that multiplies
    fp32 operands as tf32 reads their bits as they are and drops the low 13
    (toward zero: a bias that sums coherently over a contraction;
    docs/precision.md), where PyTorch's TF32 rounds to nearest.
    fmlp-round-tf32-weights puts one at an entry point's start for each
    weight that a tf32 WGMMA kernel reads K-major as it is stored, and gives
    those kernels the copy.
  }];
  let arguments = (ins AnyShaped:$input, Variadic<AnyShaped>:$inits);
  let assemblyFormat = !strconcat([{
    `ins` `(` $input `:` type($input) `)`
  }], FMLP_KernelResults);
}

#endif // FMLP_KERNEL_OPS_TD
