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

// For A/B runs on a GPU (bench/compare_bundles.py): the kernel ops (by
// name: gate_up, down, down_grad, input_grad) that take 64-wide WGMMA
// tiles for T <= 256, instead of the measured choice below.
static llvm::cl::list<std::string> narrowTileOps(
    "fmlp-narrow-tile-ops", llvm::cl::Hidden, llvm::cl::CommaSeparated,
    llvm::cl::desc("kernel ops taking 64-wide WGMMA tiles for T <= 256"));

namespace {

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
  // Measured on the H200 (bench/NOTES.md item 47): 64-wide tiles at T = 64
  // and 256 take K2 and K4 0.41-0.57x the time of 256-wide ones at
  // (4096, 11008), 0.91-1.03x at (1024, 2816); K3, whose epilogue reads G
  // and U, lost (1.02-1.43x), K1 (two accumulators) was mixed. Measured
  // again once A's rows past T were no longer loaded (item 53): K1 gains at
  // T = 129..256 and loses below, K3 the other way round, at (4096,
  // 11008); no rule for both yet.
  shape.narrowTilesForFewTokens = isa<DownOp, InputGradOp>(op);
  if (narrowTileOps.getNumOccurrences())
    shape.narrowTilesForFewTokens =
        llvm::is_contained(narrowTileOps,
                           op->getName().stripDialect().str());
  // K2 with a bias in its epilogue spills when split (584 B at (1024, 2816)
  // in 8 slices): unsplit until the last arriver's epilogue is leaner.
  if (auto down = dyn_cast<DownOp>(op); down && down.getDownBias())
    shape.splitKReady = false;
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
      if (*choice != StrategyChoice::simt)
        for (const KernelConfig &variant :
             selectTokenVariants(target.getInfo(), shape, base))
          variants.push_back(variant.toAttr(op->getContext()));
      if (!variants.empty())
        op->setAttr(KernelConfigAttr::kVariantsName,
                    ArrayAttr::get(op->getContext(), variants));
    });
  }
};

} // namespace
