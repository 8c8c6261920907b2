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

/// Why `view` read as `cols` columns cannot be a TMA view (unit inner
/// stride, rows and first element 16-byte aligned), or "".
std::string notTmaAddressable(Value view, int64_t cols, StringRef role) {
  auto type = cast<MemRefType>(view.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  if (type.getRank() != 2 || strides[1] != 1)
    return (role + " has no unit inner stride").str();
  if (ShapedType::isDynamic(strides[0]) || ShapedType::isDynamic(offset) ||
      (strides[0] * bytes) % kTmaAlignment ||
      (offset * bytes) % kTmaAlignment || strides[0] < cols)
    return (role + " has rows or an offset not 16-byte aligned").str();
  return "";
}

/// Plans tensor maps one operand at a time.
class TmaPlanner {
public:
  explicit TmaPlanner(int64_t tileN) : tileN(tileN) {}

  /// Adds the map of `view` (`cols` columns; 0: all), whose rows index the
  /// tile's m/n (K-major) or k (MN-major), for an operand of `tileRows`.
  unsigned add(Value view, bool kMajor, int64_t tileRows, StringRef role,
               int64_t cols = 0) {
    if (!cols)
      cols = cast<MemRefType>(view.getType()).getDimSize(1);
    if (whyNot.empty())
      whyNot = notTmaAddressable(view, cols, role);
    return record(view, cols, kMajor, tileRows);
  }
  WgmmaOperand operandA(Value view, bool kMajor, StringRef role,
                        int64_t cols = 0) {
    return {add(view, kMajor, kWgmmaTileM, role, cols), kMajor};
  }
  WgmmaOperand operandB(Value view, bool kMajor, StringRef role,
                        int64_t cols = 0) {
    return {add(view, kMajor, tileN, role, cols), kMajor};
  }
  /// The map of an output the epilogue stages, in boxes of its consumers'
  /// 64 rows, if TMA can address it (else its blocks move by threads).
  void addOutput(Value view) {
    auto type = cast<MemRefType>(view.getType());
    if (type.getRank() != 2 || type.getElementTypeBitWidth() != 16)
      return;
    int64_t cols = type.getDimSize(1);
    if (notTmaAddressable(view, cols, "").empty())
      plan.outputMaps.push_back(
          {view, record(view, cols, /*kMajor=*/true, kWgmmaOutputBox)});
  }
  void fail(std::string reason) {
    if (whyNot.empty())
      whyNot = std::move(reason);
  }

  int64_t tileN;
  TmaPlan plan;
  std::string whyNot;

private:
  unsigned record(Value view, int64_t cols, bool kMajor, int64_t tileRows) {
    plan.maps.push_back({view, cols, kMajor, kMajor ? tileRows : 64});
    return plan.maps.size() - 1;
  }
};

/// Whether a weight W(in, out) stored in `layout` has rows indexing `out`.
bool rowsAreOut(WeightLayout layout) { return layout == WeightLayout::out_in; }

/// [dG dU] as one view: dU must follow dG in the same rows.
bool adjacent(Value dg, Value du) {
  auto g = cast<MemRefType>(dg.getType()), u = cast<MemRefType>(du.getType());
  auto [gs, go] = g.getStridesAndOffset();
  auto [us, uo] = u.getStridesAndOffset();
  return gs == us && !ShapedType::isDynamic(go) && !ShapedType::isDynamic(uo) &&
         uo == go + g.getDimSize(1);
}

/// Extent 1 of a 2-D memref (H of dG, D of x and dy).
int64_t columnsOf(Value view) {
  return cast<MemRefType>(view.getType()).getDimSize(1);
}

GemmShape describe(Operation *op) {
  GemmShape shape;
  shape.element = getElementTypeOrSelf(op->getOperand(0).getType());
  shape.accumulators = isa<GateUpOp>(op) ? 2 : 1;
  if (auto precision = op->getAttrOfType<PrecisionAttr>("precision"))
    shape.precision = precision.getValue();
  (void)planTma(op, 256 / shape.accumulators, shape.notTmaReady);
  shape.tmaReady = shape.notTmaReady.empty();
  // The weight gradients' M and N are static (K is T): as in planTma.
  if (auto k5 = dyn_cast<GateUpWeightGradOp>(op)) {
    shape.rows = 2 * columnsOf(k5.getDg());
    shape.cols = columnsOf(k5.getX());
  } else if (auto k6 = dyn_cast<DownWeightGradOp>(op)) {
    shape.rows = columnsOf(k6.getDy());
    shape.cols = columnsOf(k6.getActivationInputs()[0]);
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
      op->setAttr(KernelConfigAttr::kName,
                  selectGemmConfig(target.getInfo(), describe(op))
                      .toAttr(op->getContext()));
    });
  }
};

} // namespace

FailureOr<TmaPlan> mlir::fmlp::planTma(Operation *op, int64_t tileN,
                                       std::string &whyNot) {
  TmaPlanner p(tileN);
  // Operands as the GEMMs of ConvertFMLPToNVVM.cpp read them: A(m, k),
  // B(k, n). A weight W(in, out) stored [out, in] has rows indexing out.
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](GateUpOp k1) { // m = t, n = h, k = d
        p.plan.a = p.operandA(k1.getX(), true, "x");
        p.plan.b.push_back(
            p.operandB(k1.getGate(), rowsAreOut(k1.getGateLayout()), "gate"));
        p.plan.b.push_back(
            p.operandB(k1.getUp(), rowsAreOut(k1.getUpLayout()), "up"));
      })
      .Case([&](DownOp k2) { // m = t, n = d, k = h
        p.plan.a = p.operandA(k2.getA(), true, "A");
        p.plan.b.push_back(
            p.operandB(k2.getDown(), rowsAreOut(k2.getDownLayout()), "down"));
      })
      .Case([&](DownGradOp k3) { // m = t, n = h, k = d (= Wd's out)
        p.plan.a = p.operandA(k3.getDy(), true, "dy");
        p.plan.b.push_back(
            p.operandB(k3.getDown(), !rowsAreOut(k3.getDownLayout()), "down"));
      })
      .Case([&](InputGradOp k4) { // m = t, n = d, k = h' over [dG dU]
        int64_t hidden = columnsOf(k4.getDg());
        if (!adjacent(k4.getDg(), k4.getDu()))
          p.fail("dG and dU are not adjacent columns of one buffer");
        if (hidden % kWgmmaTileK)
          p.fail("H is not a multiple of 64 (the split of K = 2H)");
        if (k4.getGateLayout() != k4.getUpLayout())
          p.fail("the gate and up weights have different layouts");
        p.plan.a = p.operandA(k4.getDg(), true, "[dG dU]", 2 * hidden);
        bool kMajor = !rowsAreOut(k4.getGateLayout());
        WgmmaOperand b = p.operandB(k4.getGate(), kMajor, "gate");
        b.kSplit = hidden;
        b.highMap = p.add(k4.getUp(), kMajor, p.tileN, "up");
        p.plan.b.push_back(b);
      })
      .Case([&](GateUpWeightGradOp k5) { // m = h' over [dG dU], n = d, k = t
        int64_t hidden = columnsOf(k5.getDg());
        if (!adjacent(k5.getDg(), k5.getDu()))
          p.fail("dG and dU are not adjacent columns of one buffer");
        p.plan.a = p.operandA(k5.getDg(), false, "[dG dU]", 2 * hidden);
        p.plan.b.push_back(p.operandB(k5.getX(), false, "x"));
      })
      .Case([&](DownWeightGradOp k6) { // m = d, n = h, k = t
        if (k6.getActivationInputs().size() != 1)
          p.fail("A is recomputed from G and U as it is loaded (save=gu)");
        p.plan.a = p.operandA(k6.getDy(), false, "dy");
        p.plan.b.push_back(p.operandB(k6.getActivationInputs()[0], false, "A"));
      })
      .Default([&](Operation *) { p.fail("not a GEMM"); });
  if (!p.whyNot.empty()) {
    whyNot = p.whyNot;
    return failure();
  }
  // K5's output, [dWg; dWu], is two buffers under one view: no map.
  if (!isa<GateUpWeightGradOp>(op))
    for (Value out : cast<DestinationStyleOpInterface>(op).getDpsInits())
      p.addOutput(out);
  return p.plan;
}
