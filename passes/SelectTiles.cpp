//===- SelectTiles.cpp - Tile configuration per kernel --------------------===//
//
// Implements fmlp-select-tiles (see Passes.td): the rule of
// codegen/TileSelection.h on each kernel op's GEMM (KernelGemm.h).
//
//===----------------------------------------------------------------------===//

#include "passes/KernelGemm.h"
#include "passes/Passes.h"
#include "passes/WeightCopies.h"

#include "dialects/FMLP/FMLPOps.h"
#include "codegen/TileSelection.h"

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

/// The kernel ops that take WGMMA token variants (GemmShape::
/// tokenVariantsReady), by the names --fmlp-token-tiles uses.
constexpr llvm::StringLiteral kTokenVariantOps[] = {"gate_up", "down",
                                                    "down_grad", "input_grad"};

/// The largest max_tokens --fmlp-token-tiles takes: the rule's variants end
/// at 2048 (TileSelection.h), and a split-K workspace is sized by it.
constexpr int64_t kMaxFixedTokens = 65536;

/// One --fmlp-token-tiles entry, `op:max_tokens:tile_n:split_k`.
struct FixedTokenTile {
  StringRef text, op;
  int64_t maxTokens = 0, tileN = 0, splitK = 0;
};

/// The entries of --fmlp-token-tiles; an error on `module` for a malformed
/// one, an unknown op, or an op's entries out of ascending order.
FailureOr<SmallVector<FixedTokenTile>> parseFixedTokenTiles(ModuleOp module) {
  SmallVector<FixedTokenTile> tiles;
  for (StringRef entry : fixedTokenTiles) {
    SmallVector<StringRef> fields;
    entry.split(fields, ':');
    FixedTokenTile tile;
    tile.text = entry;
    if (fields.size() != 4 || fields[1].getAsInteger(10, tile.maxTokens) ||
        fields[2].getAsInteger(10, tile.tileN) ||
        fields[3].getAsInteger(10, tile.splitK) || tile.maxTokens < 1 ||
        tile.maxTokens > kMaxFixedTokens || tile.tileN < kWgmmaOutputBox ||
        tile.tileN > kWgmmaMaxColumns || tile.tileN % kWgmmaOutputBox ||
        tile.splitK < 1)
      return module.emitError("--fmlp-token-tiles takes "
                              "op:max_tokens:tile_n:split_k (max_tokens "
                              "1..")
             << kMaxFixedTokens << ", tile_n 64..256 in steps of 64), got '"
             << entry << "'";
    tile.op = fields[0];
    if (!llvm::is_contained(kTokenVariantOps, tile.op))
      return module.emitError("--fmlp-token-tiles: '")
             << entry << "' names no kernel op with token variants "
             << "(gate_up, down, down_grad, input_grad)";
    for (const FixedTokenTile &earlier : tiles)
      if (earlier.op == tile.op && earlier.maxTokens >= tile.maxTokens)
        return module.emitError("--fmlp-token-tiles: '")
               << entry << "' must serve more tokens than the " << tile.op
               << " entry before it (max_tokens " << earlier.maxTokens << ")";
    tiles.push_back(tile);
  }
  return tiles;
}

/// The variants of `tiles` for `op` (none when they name none of op's),
/// after the rule's small_tokens variants ending at `smallTokensMax` (0 for
/// none); an error on `op` where one cannot be built.
FailureOr<SmallVector<KernelConfig>>
fixedVariants(Operation *op, ArrayRef<FixedTokenTile> tiles,
              const Target &target, const GemmShape &shape,
              int64_t smallTokensMax) {
  SmallVector<KernelConfig> variants;
  StringRef name = op->getName().stripDialect();
  for (const FixedTokenTile &tile : tiles) {
    if (tile.op != name)
      continue;
    if (!shape.tokenVariantsReady)
      return op->emitError("--fmlp-token-tiles: '")
             << tile.text << "': this kernel's rows are not T";
    if (tile.maxTokens <= smallTokensMax)
      return op->emitError("--fmlp-token-tiles: '")
             << tile.text << "' serves tokens the small_tokens variant (T <= "
             << smallTokensMax << ") already does";
    // Accumulator registers grow with the tile's width times the
    // accumulators: 256 columns of one (or 128 of two) is the most a
    // warpgroup holds without spilling.
    if (tile.tileN * shape.accumulators > kWgmmaMaxColumns)
      return op->emitError("--fmlp-token-tiles: '")
             << tile.text << "': " << shape.accumulators << " accumulators of "
             << tile.tileN << " columns exceed " << kWgmmaMaxColumns;
    if (tile.splitK > 1 && !shape.splitKReady)
      return op->emitError("--fmlp-token-tiles: '")
             << tile.text
             << "' splits K of a kernel that may not (two accumulators, or "
                "a bias in its epilogue)";
    // At most one slice a k-tile (none where K is T).
    int64_t splitK = std::min<int64_t>(
        tile.splitK, llvm::divideCeil(shape.k, wgmmaTileK(shape.element)));
    std::optional<KernelConfig> variant =
        wgmmaTokenVariant(target, shape, tile.tileN,
                          std::max<int64_t>(splitK, 1), tile.maxTokens);
    if (!variant)
      return op->emitError("--fmlp-token-tiles: no two stages of '")
             << tile.text << "' fit";
    variants.push_back(*variant);
  }
  return variants;
}

struct SelectTilesPass
    : mlir::fmlp::impl::SelectTilesPassBase<SelectTilesPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target;
    StrategyChoice choice;
    if (failed(readTargetAndStrategy(module, "fmlp-select-tiles", strategy,
                                     target, choice)))
      return signalPassFailure();
    FailureOr<SmallVector<FixedTokenTile>> fixedTiles =
        parseFixedTokenTiles(module);
    if (failed(fixedTiles))
      return signalPassFailure();
    WalkResult walk = module.walk([&](Operation *op) {
      if (!isGemmKernelOp(op) || op->getNumResults() != 0)
        return WalkResult::advance();
      GemmShape shape = describeGemmShape(op);
      KernelConfig base = selectGemmConfig(target.getInfo(), shape, choice);
      // tf32's rounded weights read as stored where the rule says so (the
      // rounding copies are then launched only for the T they serve).
      auto roundInStages = [&](KernelConfig &config) {
        if (!roundsTf32InStages(shape, config))
          return;
        config.roundsInStages = true;
        config.reason += "; B rounded to tf32 in the stages";
      };
      roundInStages(base);
      // SIMT asked for: no variants either (small_tokens is mma.sync). The
      // rule's variants, or its small_tokens ones and the fixed WGMMA ones.
      SmallVector<KernelConfig> ruled =
          choice == StrategyChoice::simt
              ? SmallVector<KernelConfig>()
              : roundingTokenVariants(
                    shape, selectTokenVariants(target.getInfo(), shape, base),
                    base);
      // The backward's weights read as stored, transposed in the stages,
      // for the T the rule says: the variants of the op reading them so.
      if (shape.readsTransposedWeightCopies && fixedTiles->empty() &&
          choice != StrategyChoice::simt) {
        ReadingStoredWeights stored(op, transposedCopySource);
        GemmShape storedShape = describeGemmShape(op);
        KernelConfig storedBase =
            selectGemmConfig(target.getInfo(), storedShape, choice);
        ruled = transposingTokenVariants(
            shape, ruled,
            selectTokenVariants(target.getInfo(), storedShape, storedBase),
            base, storedBase);
      }
      op->setAttr(KernelConfigAttr::kName, base.toAttr(op->getContext()));
      SmallVector<KernelConfig> fixed;
      if (base.strategy == KernelStrategy::wgmma) {
        int64_t smallTokensMax = 0;
        for (const KernelConfig &variant : ruled)
          if (variant.strategy != KernelStrategy::wgmma)
            smallTokensMax = std::max(smallTokensMax, variant.maxTokens);
        FailureOr<SmallVector<KernelConfig>> forced = fixedVariants(
            op, *fixedTiles, target.getInfo(), shape, smallTokensMax);
        if (failed(forced))
          return WalkResult::interrupt();
        fixed = std::move(*forced);
      }
      SmallVector<Attribute> variants;
      for (KernelConfig &variant : ruled)
        if (fixed.empty() || variant.strategy != KernelStrategy::wgmma) {
          roundInStages(variant);
          variants.push_back(variant.toAttr(op->getContext()));
        }
      for (KernelConfig &variant : fixed) {
        roundInStages(variant);
        variants.push_back(variant.toAttr(op->getContext()));
      }
      if (!variants.empty())
        op->setAttr(KernelConfigAttr::kVariantsName,
                    ArrayAttr::get(op->getContext(), variants));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
