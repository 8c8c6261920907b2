//===- SelectTiles.cpp - Tile configuration per kernel --------------------===//
//
// Implements fmlp-select-tiles (see Passes.td) and the queries of
// KernelConfig.h.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelConfig.h"
#include "passes/Passes.h"

#include "dialects/FMLP/FMLPOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fmlp {
#define GEN_PASS_DEF_SELECTTILESPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

namespace {

constexpr int64_t kTmaAlignment = 16; // bytes: TMA's address and strides

/// Why `view` cannot be a K-major TMA operand (rows of contiguous k, every
/// row and the first element 16-byte aligned), or "" when it can.
std::string notKMajorTma(Value view, StringRef role) {
  auto type = cast<MemRefType>(view.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  if (type.getRank() != 2 || strides[1] != 1)
    return (role + " is not K-major").str();
  if (ShapedType::isDynamic(strides[0]) || ShapedType::isDynamic(offset) ||
      (strides[0] * bytes) % kTmaAlignment || (offset * bytes) % kTmaAlignment)
    return (role + " has rows or an offset not 16-byte aligned").str();
  return "";
}

/// The K-major-ness of weights in nn.Linear's layout [out, in], read with
/// k = in (K1, K2).
std::string notOutIn(WeightLayout layout, StringRef role) {
  return layout == WeightLayout::out_in
             ? ""
             : (role + " is stored [in, out]: MN-major").str();
}

std::string firstReason(std::initializer_list<std::string> reasons) {
  for (const std::string &reason : reasons)
    if (!reason.empty())
      return reason;
  return "";
}

GemmShape describe(Operation *op) {
  GemmShape shape;
  shape.element = getElementTypeOrSelf(op->getOperand(0).getType());
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](GateUpOp k1) {
        shape.accumulators = 2;
        shape.notTmaReady = firstReason(
            {notKMajorTma(k1.getX(), "x"), notKMajorTma(k1.getGate(), "gate"),
             notKMajorTma(k1.getUp(), "up"),
             notOutIn(k1.getGateLayout(), "gate"),
             notOutIn(k1.getUpLayout(), "up")});
      })
      .Case([&](DownOp k2) {
        shape.notTmaReady = firstReason(
            {notKMajorTma(k2.getA(), "A"), notKMajorTma(k2.getDown(), "down"),
             notOutIn(k2.getDownLayout(), "down")});
      })
      .Default([&](Operation *other) {
        shape.notTmaReady = (other->getName().getStringRef() +
                             " reads an operand MN-major (transposed): its "
                             "WGMMA instantiation is not generated yet")
                                .str();
      });
  shape.tmaReady = shape.notTmaReady.empty();
  return shape;
}

struct SelectTilesPass
    : mlir::fmlp::impl::SelectTilesPassBase<SelectTilesPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (!isa<GateUpOp, DownOp, DownGradOp, InputGradOp, GateUpWeightGradOp,
               DownWeightGradOp>(op) ||
          op->getNumResults() != 0)
        return;
      op->setAttr(kKernelConfigAttr,
                  selectKernelConfig(op, chip).toAttr(op->getContext()));
    });
  }
};

} // namespace

KernelConfig mlir::fmlp::selectKernelConfig(Operation *op, StringRef chip) {
  if (isa<BiasGradOp>(op)) {
    KernelConfig config;
    config.reason = "a column sum";
    return config;
  }
  return selectGemmConfig(chip, describe(op));
}

SmallVector<std::pair<Value, int64_t>>
mlir::fmlp::tensorMapOperands(Operation *op, const KernelConfig &config) {
  if (config.path != KernelPath::Wgmma)
    return {};
  if (auto k1 = dyn_cast<GateUpOp>(op))
    return {{k1.getX(), config.tileM},
            {k1.getGate(), config.tileN},
            {k1.getUp(), config.tileN}};
  if (auto k2 = dyn_cast<DownOp>(op))
    return {{k2.getA(), config.tileM}, {k2.getDown(), config.tileN}};
  return {};
}
