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
      I32EnumAttrCase<"ieee", 4>,
      // IEEE fp32's accuracy at the least cost (PyTorch's 'highest'): each
      // contraction of at least kHighestTf32x3MinTerms terms takes tf32x3
      // products on tensor cores, whose error bound is within IEEE fp32's
      // from there on (lib/Numerics); shorter ones, and kernels on SIMT,
      // take IEEE fp32 (getProductFormat).
      I32EnumAttrCase<"highest", 5>
    ]> {
  let cppNamespace = "::mlir::fmlp";
  let genSpecializedAttr = 0;
}

def FMLP_PrecisionAttr : EnumAttr<FMLP_Dialect, FMLP_Precision, "precision"> {
  let summary = "operand format of the contractions of a gated MLP block";
  let assemblyFormat = "`<` $value `>`";
}


//===----------------------------------------------------------------------===//
// The GPU target and each kernel's configuration on it
//===----------------------------------------------------------------------===//

def FMLP_TargetAttr : AttrDef<FMLP_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "the GPU the kernels of a module are generated for";
  let description = [{
    Names a row of fmlp's chip table (include/fmlp/Target.h): fmlp-attach-
    target puts it on the module as `fmlp.target`, and tile selection, the
    kernel lowering and the bundle writer read the row from there (shared
    memory, MMA families, PTX ISA version, ptxas architecture).

    ```mlir
    module attributes {fmlp.target = #fmlp.target<"sm_90a">} { ... }
    ```
  }];
  let parameters = (ins StringRefParameter<"the chip, as --chip names it">:$chip);
  let assemblyFormat = "`<` $chip `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The chip's row of the table (the verifier ensures there is one).
    const ::mlir::fmlp::Target &getInfo() const;
    /// The name of the module attribute that holds it.
    static constexpr ::llvm::StringLiteral kName = "fmlp.target";
  }];
}

def FMLP_KernelStrategy : I32EnumAttr<"KernelStrategy",
    "how a kernel op's GEMM is generated", [
      // fp32 FMA on shared-memory tiles: any chip, any strides, IEEE fp32.
      I32EnumAttrCase<"simt", 0>,
      // sm_90a: TMA ring, warp-specialized WGMMA, staged epilogue.
      I32EnumAttrCase<"wgmma", 1>,
      // Few tokens (T <= tile M, chosen per launch): the GEMM transposed,
      // W x^T, on mma.sync m16n8k16 with the weights streamed in 16-byte
      // pieces and K split over the block's 8 warps (any chip since sm_80).
      I32EnumAttrCase<"small_tokens", 2>,
      // Every chip since sm_80: cp.async ring, ldmatrix, mma.sync m16n8k16,
      // 128 x 256 x 32 or 64 tiles (codegen/MmaSyncGemm.cpp).
      I32EnumAttrCase<"mma_sync", 3>
      // Room for tcgen05 (sm_100a), tf32 and tf32x3 forms.
    ]> {
  let cppNamespace = "::mlir::fmlp";
  let genSpecializedAttr = 0;
}

def FMLP_KernelConfigAttr : AttrDef<FMLP_Dialect, "KernelConfig"> {
  let mnemonic = "kernel_config";
  let summary = "the strategy, tiles, stages and cluster of one kernel";
  let description = [{
    What fmlp-select-tiles decides for a GEMM kernel op (the rule is in
    codegen/TileSelection.h), recorded on it as `fmlp.kernel_config`;
    convert-fmlp-to-nvvm generates exactly this and selects nothing itself.
    Tiles are M x N x K elements per block (N per accumulator); `stages` the
    depth of the operand ring; `cluster` the blocks of a thread block
    cluster along M and N; `shared_bytes` the block's ring (or SIMT tiles)
    and barriers; `max_registers` the per-thread cap ptxas must keep;
    `reason` why this strategy and not a faster one; `split_k` (wgmma only,
    default 1, printed when not 1) the slices K is cut into, each a block
    of its own whose fp32 partial sums the tile's last block adds in slice
    order (codegen/WgmmaGemm.cpp, split-K); `rounds_in_stages` (wgmma, tf32
    only, default false, printed when true) that the kernel reads the
    weights it multiplies as B as stored and rounds them to tf32 in its
    stages, not fmlp-round-tf32-weights' rounded copies (which are then
    written only for the T that some kernel reads them at);
    `transposes_in_stages` (wgmma, fp32 only, default false, printed when
    true) that it reads the weights as stored, MN-major, and transposes
    them in its landing slots, not fmlp-transpose-weights' K-major copies
    (which are then written only for the T that some kernel reads them at);
    `stages_by_tma` (mma_sync only, default false, printed when true) that
    one thread loads the operands into the ring by TMA, counted on an
    mbarrier per stage, instead of every thread by cp.async (chips with
    TMA, 16-bit operands in k-tiles of 128-byte rows: codegen/
    MmaSyncGemm.cpp).

    A kernel op may also carry `fmlp.token_variants`, an array of further
    configurations for launches of few tokens, ascending by `max_tokens`:
    the first whose `max_tokens` is at least T serves a launch, the
    `fmlp.kernel_config` (whose `max_tokens` is 0: no bound) every larger
    T. The lowering generates each variant's kernel, and each launch runs
    the one whose range of T holds its T.

    ```mlir
    fmlp.down ... {fmlp.kernel_config = #fmlp.kernel_config<strategy = wgmma,
        tile = [128, 256, 64], stages = 4, cluster = [1, 1],
        shared_bytes = 197632, max_registers = 168, reason = "...">}
    ```
  }];
  let parameters = (ins
    EnumParameter<FMLP_KernelStrategy>:$strategy,
    ArrayRefParameter<"int64_t", "M x N x K">:$tile,
    "int64_t":$stages,
    ArrayRefParameter<"int64_t", "blocks along M and N">:$cluster,
    "int64_t":$shared_bytes,
    "int64_t":$max_registers,
    StringRefParameter<"why this strategy">:$reason,
    DefaultValuedParameter<"int64_t", "0",
                           "the largest T served (0: any)">:$max_tokens,
    DefaultValuedParameter<"int64_t", "1",
                           "K slices, one block each (1: no split)">:$split_k,
    DefaultValuedParameter<"bool", "false",
                           "B rounded to tf32 in the stages">:$rounds_in_stages,
    DefaultValuedParameter<"bool", "false",
                           "B's weights transposed in the stages">:$transposes_in_stages,
    DefaultValuedParameter<"bool", "false",
                           "operands staged by TMA (mma_sync)">:$stages_by_tma);
  let assemblyFormat = [{
    `<` `strategy` `=` $strategy `,` `tile` `=` `[` $tile `]` `,`
    `stages` `=` $stages `,` `cluster` `=` `[` $cluster `]` `,`
    `shared_bytes` `=` $shared_bytes `,` `max_registers` `=` $max_registers
    `,` (`split_k` `=` $split_k^ `,`)?
    (`transposes_in_stages` `=` $transposes_in_stages^ `,`)?
    (`stages_by_tma` `=` $stages_by_tma^ `,`)?
    `reason` `=` $reason
    (`,` `max_tokens` `=` $max_tokens^)?
    (`,` `rounds_in_stages` `=` $rounds_in_stages^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getTileM() const { return getTile()[0]; }
    int64_t getTileN() const { return getTile()[1]; }
    int64_t getTileK() const { return getTile()[2]; }
    /// The name of the discardable attribute that holds it on a kernel op.
    static constexpr ::llvm::StringLiteral kName = "fmlp.kernel_config";
    /// The name of the array of variants for few tokens.
    static constexpr ::llvm::StringLiteral kVariantsName =
        "fmlp.token_variants";
  }];
}

#endif // FMLP_ATTRS_TD
