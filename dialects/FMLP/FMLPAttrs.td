//===- FMLPAttrs.td - fmlp enum attributes ----------------*- tablegen -*-===//
//
// The attributes that parameterize a gated MLP block: its activation, the
// storage layout of each weight, and the operand format of its contractions.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_ATTRS_TD
#define FMLP_ATTRS_TD

include "FMLPDialect.td"
include "mlir/IR/EnumAttr.td"

def FMLP_Activation : I32EnumAttr<"Activation",
    "the activation applied to the gate projection", [
      // silu(g) = g * sigmoid(g) = g / (1 + exp(-g))            (SwiGLU)
      I32EnumAttrCase<"silu", 0>,
      // gelu_tanh(g) = 0.5 g (1 + tanh(sqrt(2/pi) (g + 0.044715 g^3)))  (GeGLU)
      I32EnumAttrCase<"gelu_tanh", 1>,
      // relu(g) = max(g, 0)                                      (ReGLU)
      I32EnumAttrCase<"relu", 2>
    ]> {
  let cppNamespace = "::mlir::fmlp";
  let genSpecializedAttr = 0;
}

def FMLP_ActivationAttr : EnumAttr<FMLP_Dialect, FMLP_Activation, "activation"> {
  let summary = "activation of a gated MLP block";
  // `#fmlp.activation<silu>`; inside op syntax the keyword alone
  // (`fmlp.gated_mlp silu ...`).
  let assemblyFormat = "`<` $value `>`";
}

def FMLP_WeightLayout : I32EnumAttr<"WeightLayout",
    "how a projection weight is stored", [
      // W is [in, out]: the projection computes x W.
      I32EnumAttrCase<"in_out", 0>,
      // W is [out, in], the layout of torch.nn.Linear: the projection
      // computes x W^T, reading W in place.
      I32EnumAttrCase<"out_in", 1>
    ]> {
  let cppNamespace = "::mlir::fmlp";
  let genSpecializedAttr = 0;
}

def FMLP_WeightLayoutAttr
    : EnumAttr<FMLP_Dialect, FMLP_WeightLayout, "layout"> {
  let summary = "storage layout of a projection weight";
  let assemblyFormat = "`<` $value `>`";
}

def FMLP_Precision : I32EnumAttr<"Precision",
    "the operand format of the block's contractions", [
      // 16-bit operands, fp32 accumulation (unit roundoff 2^-8 / 2^-11).
      I32EnumAttrCase<"bf16", 0>,
      I32EnumAttrCase<"f16", 1>,
      // fp32 operands rounded to tf32 for the tensor cores (u = 2^-11).
      I32EnumAttrCase<"tf32", 2>,
      // fp32 operands split into tf32 high and low parts, three tensor-core
      // products (hi*hi + hi*lo + lo*hi): close to fp32 accuracy.
      I32EnumAttrCase<"tf32x3", 3>,
      // exact fp32 products (u = 2^-24), no tensor cores.
      I32EnumAttrCase<"ieee", 4>
    ]> {
  let cppNamespace = "::mlir::fmlp";
  let genSpecializedAttr = 0;
}

def FMLP_PrecisionAttr : EnumAttr<FMLP_Dialect, FMLP_Precision, "precision"> {
  let summary = "operand format of the contractions of a gated MLP block";
  let assemblyFormat = "`<` $value `>`";
}

#endif // FMLP_ATTRS_TD
