//===- RoundTf32Weights.cpp - tf32 operands rounded to nearest ------------===//
//
// Implements fmlp-round-tf32-weights (see Passes.td). A tensor core that
// multiplies fp32 operands as tf32 reads their bits as they are and keeps
// tf32's 19 (sign, exponent, 10 mantissa bits): it truncates, toward zero,
// and the lost half unit of tf32's last place per operand sums coherently
// over a contraction (bench/NOTES.md item 80: 4.2-4.6x the error of
// PyTorch's TF32, which rounds to nearest). The mma_sync kernels round
// each operand as they load it (cvt.rna); a WGMMA kernel reads B_j from
// shared memory as TMA stored it, so what must be rounded is rounded
// before:
//   - the weights a tf32 WGMMA kernel reads as B_j, K-major as they are
//     stored (K1's Wg and Wu, K2's Wd, the adapters' Bg, Bu, Bd), are
//     copied once per call, rounded, into workspace arguments `<name>_tf32`
//     by an fmlp.round_to_tf32 at the entry's start; the K-major copies
//     fmlp-transpose-weights made (K3's Wd, K4's Wg and Wu) are rounded as
//     they are transposed, where every kernel that reads them rounds;
//   - the kernel rounds the operands it stages itself (the op's
//     kTf32RoundedAttr; WgmmaGemmSpec::roundsTf32): A in registers, the
//     MN-major tiles its producer transposes (the activations and
//     gradients, whose k is T, of the weight gradients).
// What would stay truncated: a B_j read K-major by TMA that is neither an
// argument of the entry nor such a copy (none of the plans has one).
// A kernel of few tokens may read the weights as stored and round them in
// its stages instead (KernelConfig::roundsInStages, fmlp-select-tiles'
// rule): the copy is then launched only for the T its other readers serve
// (convert-fmlp-to-nvvm).
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
#include "llvm/ADT/SetVector.h"

namespace mlir::fmlp {
#define GEN_PASS_DEF_ROUNDTF32WEIGHTSPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

namespace {

/// Whether `gemm` multiplies fp32 operands as one tf32 product each on
/// tensor cores (precision tf32; tf32x3 splits its operands exactly, and
/// IEEE fp32 takes no tensor core).
bool takesTf32Products(const KernelGemm &gemm) {
  return gemm.element.isF32() && gemm.precision &&
         getProductFormat(*gemm.precision, /*tensorCores=*/true) ==
             Precision::tf32;
}

/// Whether `gemm` reads some operand part MN-major.
bool readsMnMajor(const KernelGemm &gemm) {
  auto mnMajor = [](const GemmOperand &operand) {
    return llvm::any_of(operand.parts,
                        [](const GemmPart &part) { return !part.kMajor; });
  };
  return mnMajor(gemm.a) || llvm::any_of(gemm.b, mnMajor);
}

struct RoundTf32WeightsPass
    : mlir::fmlp::impl::RoundTf32WeightsPassBase<RoundTf32WeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target;
    StrategyChoice choice;
    if (failed(readTargetAndStrategy(module, "fmlp-round-tf32-weights",
                                     strategy, target, choice)))
      return signalPassFailure();
    for (auto entry : module.getOps<func::FuncOp>())
      if (entry->hasAttr("fmlp.entry") && !entry.isExternal())
        if (failed(roundIn(entry, target.getInfo(), choice)))
          return signalPassFailure();
  }

  LogicalResult roundIn(func::FuncOp entry, const Target &target,
                        StrategyChoice choice) {
    // The ops whose WGMMA kernels take tf32 products: they round.
    llvm::SetVector<Operation *> rounding;
    WalkResult walk = entry.walk([&](Operation *op) {
      if (!isGemmKernelOp(op) || op->getNumResults() != 0)
        return WalkResult::advance();
      if (op->hasAttr(KernelConfigAttr::kName)) {
        op->emitOpError("has a kernel config already: run "
                        "fmlp-round-tf32-weights before fmlp-select-tiles, "
                        "whose rule it asks which ops take WGMMA");
        return WalkResult::interrupt();
      }
      // Rounded already (a second run): its copies are made.
      if (op->hasAttr(kTf32RoundedAttr))
        return WalkResult::advance();
      KernelGemm gemm = describeGemm(op);
      if (!takesTf32Products(gemm) ||
          selectGemmConfig(target, describeGemmShape(op), choice).strategy !=
              KernelStrategy::wgmma)
        return WalkResult::advance();
      if (readsMnMajor(gemm) && !wgmmaRoundsTransposedFp32()) {
        op->emitOpError("reads an fp32 operand MN-major, which "
                        "--fmlp-tf32-transpose=cp-async copies into its "
                        "stages unrounded: round its operands with the "
                        "landing slots (the default)");
        return WalkResult::interrupt();
      }
      op->setAttr(kTf32RoundedAttr, UnitAttr::get(op->getContext()));
      rounding.insert(op);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    // The weights they read as B_j, K-major as stored, get rounded copies;
    // the K-major copies fmlp-transpose-weights wrote are rounded where
    // they are written. (Their A is rounded in registers, and what they
    // read MN-major as the kernel transposes it.)
    DenseMap<Value, TransposeOp> transposeWriting;
    entry.walk([&](TransposeOp transpose) {
      transposeWriting[transpose.getInits()[0]] = transpose;
    });
    llvm::SetVector<TransposeOp> transposes;
    llvm::MapVector<Value, BlockArgument> copies;
    for (Operation *op : rounding) {
      KernelGemm gemm = describeGemm(op);
      for (const GemmOperand &b : gemm.b)
        for (const GemmPart &part : b.parts) {
          if (TransposeOp transpose = transposeWriting.lookup(part.memref)) {
            transposes.insert(transpose);
            continue;
          }
          BlockArgument weight = copyableWeight(part.memref, entry);
          if (!weight || !part.kMajor)
            continue;
          BlockArgument &copy = copies[weight];
          if (!copy)
            copy = addWeightCopyArgument(
                weight, entry, cast<MemRefType>(weight.getType()).getShape(),
                "_tf32");
          op->replaceUsesOfWith(weight, copy);
        }
    }
    // A transposed copy that some other kernel reads (tf32x3's, which
    // splits it exactly) stays exact; the rounding kernel then truncates it.
    for (TransposeOp transpose : transposes) {
      Value copy = transpose.getInits()[0];
      if (llvm::all_of(copy.getUsers(), [&](Operation *user) {
            return user == transpose.getOperation() || rounding.contains(user);
          }))
        transpose.setRoundToTf32(true);
    }
    OpBuilder b = OpBuilder::atBlockBegin(&entry.getBody().front());
    for (auto [weight, copy] : copies)
      RoundToTf32Op::create(b, weight.getLoc(), TypeRange{}, weight,
                            ValueRange{copy});
    return success();
  }
};

} // namespace
