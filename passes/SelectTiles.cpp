//===- SelectTiles.cpp - Tile configuration per kernel --------------------===//
//
// Implements fmlp-select-tiles (see Passes.td): the rule of
// codegen/TileSelection.h on each kernel op's GEMM (KernelGemm.h).
//
//===----------------------------------------------------------------------===//

#include "passes/KernelGemm.h"
#include "passes/Passes.h"

#include "dialects/FMLP/FMLPOps.h"
#include "codegen/TileSelection.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::fmlp {
#define GEN_PASS_DEF_SELECTTILESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

// For A/B runs on a GPU: a kernel op's WGMMA variants for few tokens, fixed
// (in place of the rule's; small_tokens variants stay), each
// `op:max_tokens:tile_n:split_k`, ascending by max_tokens per op, e.g.
// `down:512:128:2,down:1024:256:2`.
static llvm::cl::list<std::string> fixedTokenTiles(
    "fmlp-token-tiles", llvm::cl::Hidden, llvm::cl::CommaSeparated,
    llvm::cl::desc("fixed WGMMA token variants: op:max_tokens:tile_n:split_k"));

namespace {

/// The variants --fmlp-token-tiles fixes for `op` (none when it names none
/// of op's); reports a fatal error on a malformed entry.
SmallVector<KernelConfig> fixedVariants(Operation *op, const Target &target,
                                        const GemmShape &shape) {
  SmallVector<KernelConfig> variants;
  StringRef name = op->getName().stripDialect();
  for (StringRef entry : fixedTokenTiles) {
    SmallVector<StringRef> fields;
    entry.split(fields, ':');
    int64_t maxTokens = 0, tileN = 0, splitK = 0;
    if (fields.size() != 4 || fields[1].getAsInteger(10, maxTokens) ||
        fields[2].getAsInteger(10, tileN) ||
        fields[3].getAsInteger(10, splitK) || maxTokens < 1 || tileN < 64 ||
        tileN % 64 || splitK < 1)
      llvm::report_fatal_error("--fmlp-token-tiles takes "
                               "op:max_tokens:tile_n:split_k, got '" +
                                   entry + "'",
                               /*gen_crash_diag=*/false);
    if (fields[0] != name)
      continue;
    if (splitK > 1 && !shape.splitKReady)
      llvm::report_fatal_error("--fmlp-token-tiles: '" + entry +
                                   "' splits K of a kernel that may not "
                                   "(two accumulators, or a bias in its "
                                   "epilogue)",
                               /*gen_crash_diag=*/false);
    // At most one slice a k-tile of 64 (none where K is T).
    splitK = std::min<int64_t>(splitK, llvm::divideCeil(shape.k, 64));
    std::optional<KernelConfig> variant = wgmmaTokenVariant(
        target, shape, tileN, std::max<int64_t>(splitK, 1), maxTokens);
    if (!variant)
      llvm::report_fatal_error("--fmlp-token-tiles: no two stages of '" +
                                   entry + "' fit",
                               /*gen_crash_diag=*/false);
    variants.push_back(*variant);
  }
  return variants;
}

GemmShape describe(Operation *op) {
  KernelGemm gemm = describeGemm(op);
  GemmShape shape;
  shape.element = gemm.element;
  shape.accumulators = gemm.b.size();
  shape.precision = gemm.precision;
  (void)planTma(op, gemm, 256 / shape.accumulators, shape.notTmaReady);
  shape.tmaReady = shape.notTmaReady.empty();
  shape.notSmallTokensReady = notSmallTokensReady(gemm);
  // K3 with [in, out] weights meets the kernel's requirements too, but no
  // GPU test has run it (every GPU-test bundle has nn.Linear's layout).
  if (shape.notSmallTokensReady.empty() && !isa<GateUpOp, DownOp>(op))
    shape.notSmallTokensReady =
        "small_tokens kernels are verified on the GPU for K1 and K2 only";
  shape.smallTokensReady = shape.notSmallTokensReady.empty();
  shape.notMmaSyncReady = notMmaSyncReady(gemm);
  shape.mmaSyncReady = shape.notMmaSyncReady.empty();
  // The WGMMA token variants (TileSelection.h) for the kernels the GPU
  // tests verify at every tile width; split K where one accumulator is
  // stored as it is (K2's bias epilogue spills when split: 584 B at (1024,
  // 2816) in 8 slices).
  shape.tokenVariantsReady =
      gemm.m.tokens && isa<GateUpOp, DownOp, DownGradOp, InputGradOp>(op);
  auto down = dyn_cast<DownOp>(op);
  shape.splitKReady =
      (down && !down.getDownBias()) || isa<InputGradOp>(op);
  if (!gemm.n.tokens)
    shape.n = gemm.n.value;
  if (!gemm.k.tokens)
    shape.k = gemm.k.value;
  // The grid is static when neither M nor N is T (the weight gradients).
  if (!gemm.m.tokens && !gemm.n.tokens) {
    shape.rows = gemm.m.value;
    shape.cols = gemm.n.value;
  }
  return shape;
}

struct SelectTilesPass
    : mlir::fmlp::impl::SelectTilesPassBase<SelectTilesPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target = getTarget(module);
    if (!target) {
      module.emitError(
          "the module has no fmlp.target: run fmlp-attach-target first");
      return signalPassFailure();
    }
    std::optional<StrategyChoice> choice =
        llvm::StringSwitch<std::optional<StrategyChoice>>(strategy)
            .Case("auto", StrategyChoice::automatic)
            .Case("mma_sync", StrategyChoice::mmaSync)
            .Case("simt", StrategyChoice::simt)
            .Default(std::nullopt);
    if (!choice) {
      module.emitError("fmlp-select-tiles: strategy must be auto, mma_sync "
                       "or simt, got '")
          << strategy << "'";
      return signalPassFailure();
    }
    module.walk([&](Operation *op) {
      if (!isKernelOp(op) || isa<BiasGradOp>(op) || op->getNumResults() != 0)
        return;
      GemmShape shape = describe(op);
      KernelConfig base = selectGemmConfig(target.getInfo(), shape, *choice);
      op->setAttr(KernelConfigAttr::kName, base.toAttr(op->getContext()));
      // SIMT asked for: no variants either (small_tokens is mma.sync).
      SmallVector<Attribute> variants;
      SmallVector<KernelConfig> fixed =
          base.strategy == KernelStrategy::wgmma
              ? fixedVariants(op, target.getInfo(), shape)
              : SmallVector<KernelConfig>();
      if (*choice != StrategyChoice::simt)
        for (const KernelConfig &variant :
             selectTokenVariants(target.getInfo(), shape, base))
          if (fixed.empty() || variant.strategy != KernelStrategy::wgmma)
            variants.push_back(variant.toAttr(op->getContext()));
      for (const KernelConfig &variant : fixed)
        variants.push_back(variant.toAttr(op->getContext()));
      if (!variants.empty())
        op->setAttr(KernelConfigAttr::kVariantsName,
                    ArrayAttr::get(op->getContext(), variants));
    });
  }
};

} // namespace
