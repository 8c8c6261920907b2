//===- TransposeWeights.cpp - K-major copies of the weights ---------------===//
//
// Implements fmlp-transpose-weights (see Passes.td). tf32 WGMMA reads its
// operands K-major only, and the backward's K3 (down_grad) and K4
// (input_grad) read nn.Linear's weights MN-major: Wd as B(k = d, n = h),
// Wg and Wu as B(k = h, n = d). The WGMMA kernel can transpose such an
// operand itself, tile by tile in shared memory, every k-step of every
// block (codegen/WgmmaGemm.cpp: the landing slots or the cp.async copies;
// bench/NOTES.md items 73-76 measured that a third of those kernels' time).
// A weight does not depend on T, so this pass transposes it once per call
// instead: a copy in the other layout, in a workspace argument of the
// entry point, read K-major by the kernel, whose layout attribute says
// so. The copy is exact (elements move, nothing rounds): the kernel
// computes the same sums from the same values.
//
// Which kernels: a GEMM kernel op of an entry point with fp32 operands that
// reads a weight (gate, up, down: an argument of the entry, statically
// shaped and dense) MN-major gets K-major copies of such weights where,
// reading them, the rule of fmlp-select-tiles (codegen/TileSelection.h)
// gives it a WGMMA kernel; else it keeps its weights (an adapter's matrix
// concatenated with the weight along k stays MN-major, and two layouts in
// one operand take neither WGMMA nor mma_sync: LoRA's K3 and K4). One copy
// per weight and entry point, at the entry's start: before the token-chunk
// loop (a weight is the same for every chunk), and before the kernels of
// both lanes (K4 runs on the runtime's second lane, beside the weight
// gradients: its copies wait for nothing on the first).
//
//===----------------------------------------------------------------------===//

#include "passes/KernelGemm.h"
#include "passes/Passes.h"
#include "passes/WeightCopies.h"

#include "codegen/TileSelection.h"
#include "dialects/FMLP/FMLPOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::fmlp {
#define GEN_PASS_DEF_TRANSPOSEWEIGHTSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

namespace {

struct TransposeWeightsPass
    : mlir::fmlp::impl::TransposeWeightsPassBase<TransposeWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target;
    StrategyChoice choice;
    if (failed(readTargetAndStrategy(module, "fmlp-transpose-weights", strategy,
                                     target, choice)))
      return signalPassFailure();
    for (auto entry : module.getOps<func::FuncOp>())
      if (entry->hasAttr("fmlp.entry") && !entry.isExternal())
        if (failed(transposeIn(entry, target.getInfo(), choice)))
          return signalPassFailure();
  }

  LogicalResult transposeIn(func::FuncOp entry, const Target &target,
                            StrategyChoice choice) {
    SmallVector<Operation *> kernels;
    entry.walk([&](Operation *op) {
      if (isGemmKernelOp(op) && op->getNumResults() == 0)
        kernels.push_back(op);
    });
    // Each weight's copy, in the order made (the order of the transposes).
    llvm::MapVector<Value, BlockArgument> copies;
    for (Operation *op : kernels) {
      if (op->hasAttr(KernelConfigAttr::kName))
        return op->emitOpError("has a kernel config already: run "
                               "fmlp-transpose-weights before "
                               "fmlp-select-tiles, which chooses by the "
                               "weights' layouts");
      KernelGemm gemm = describeGemm(op);
      if (!gemm.element.isF32())
        continue;
      auto readsMnMajor = [&](StringRef role) {
        auto mnMajor = [&](const GemmOperand &operand) {
          return llvm::any_of(operand.parts, [&](const GemmPart &part) {
            return part.role == role && !part.kMajor;
          });
        };
        return mnMajor(gemm.a) || llvm::any_of(gemm.b, mnMajor);
      };
      // Try the op on copies of its MN-major weights; keep them where the
      // rule then gives it WGMMA.
      SmallVector<WeightLayoutSwap> swaps;
      SmallVector<Value> made;
      for (auto [role, operand] : weightOperands(op)) {
        BlockArgument weight = copyableWeight(operand->get(), entry);
        if (!weight || !readsMnMajor(role))
          continue;
        BlockArgument &copy = copies[weight];
        if (!copy) {
          ArrayRef<int64_t> shape =
              cast<MemRefType>(weight.getType()).getShape();
          copy = addWeightCopyArgument(weight, entry, {shape[1], shape[0]},
                                       "_transposed");
          made.push_back(weight);
        }
        swaps.emplace_back(op, role, operand, copy);
      }
      if (swaps.empty() ||
          selectGemmConfig(target, describeGemmShape(op), choice).strategy ==
              KernelStrategy::wgmma)
        continue;
      for (const WeightLayoutSwap &swap : swaps)
        swap.undo();
      // The arguments made for this op alone are the entry's last.
      for (Value weight : llvm::reverse(made)) {
        unsigned index = copies[weight].getArgNumber();
        copies.erase(weight);
        if (failed(entry.eraseArgument(index)))
          return op->emitOpError("cannot remove the copy's argument");
      }
    }
    OpBuilder b = OpBuilder::atBlockBegin(&entry.getBody().front());
    for (auto [weight, copy] : copies)
      TransposeOp::create(b, weight.getLoc(), TypeRange{}, weight,
                          ValueRange{copy});
    return success();
  }
};

} // namespace
