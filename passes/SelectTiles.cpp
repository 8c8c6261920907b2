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

namespace mlir::fmlp {
#define GEN_PASS_DEF_SELECTTILESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

namespace {

GemmShape describe(Operation *op) {
  KernelGemm gemm = describeGemm(op);
  GemmShape shape;
  shape.element = gemm.element;
  shape.accumulators = gemm.b.size();
  if (auto precision = op->getAttrOfType<PrecisionAttr>("precision"))
    shape.precision = precision.getValue();
  (void)planTma(op, gemm, 256 / shape.accumulators, shape.notTmaReady);
  shape.tmaReady = shape.notTmaReady.empty();
  shape.notSmallTokensReady = notSmallTokensReady(gemm);
  // K3 with [in, out] weights meets the kernel's requirements too, but no
  // GPU test has run it (every GPU-test bundle has nn.Linear's layout).
  if (shape.notSmallTokensReady.empty() && !isa<GateUpOp, DownOp>(op))
    shape.notSmallTokensReady =
        "small_tokens kernels are verified on the GPU for K1 and K2 only";
  shape.smallTokensReady = shape.notSmallTokensReady.empty();
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
    module.walk([&](Operation *op) {
      if (!isKernelOp(op) || isa<BiasGradOp>(op) || op->getNumResults() != 0)
        return;
      GemmShape shape = describe(op);
      op->setAttr(KernelConfigAttr::kName,
                  selectGemmConfig(target.getInfo(), shape)
                      .toAttr(op->getContext()));
      if (std::optional<KernelConfig> small =
              selectSmallTokensConfig(target.getInfo(), shape))
        op->setAttr(KernelConfigAttr::kSmallTokensName,
                    small->toAttr(op->getContext()));
    });
  }
};

} // namespace
