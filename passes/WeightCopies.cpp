//===- WeightCopies.cpp - Per-call copies of the weights ------------------===//

#include "passes/WeightCopies.h"

#include "dialects/FMLP/FMLPOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fmlp;

BlockArgument mlir::fmlp::copyableWeight(Value weight, func::FuncOp entry) {
  auto argument = dyn_cast<BlockArgument>(weight);
  auto type = dyn_cast<MemRefType>(weight.getType());
  if (!argument || argument.getOwner() != &entry.getBody().front() || !type ||
      type.getRank() != 2 || !type.hasStaticShape() ||
      !type.getLayout().isIdentity())
    return nullptr;
  return argument;
}

/// The input of the `CopyOp` that writes `copy`, or null.
template <typename CopyOp> static Value copySource(Value copy) {
  for (Operation *user : copy.getUsers())
    if (auto op = dyn_cast<CopyOp>(user))
      if (op.getInits()[0] == copy)
        return op.getInput();
  return nullptr;
}

Value mlir::fmlp::roundedCopySource(Value copy) {
  return copySource<RoundToTf32Op>(copy);
}

Value mlir::fmlp::transposedCopySource(Value copy) {
  return copySource<TransposeOp>(copy);
}

SmallVector<std::pair<StringRef, OpOperand *>, 2>
mlir::fmlp::weightOperands(Operation *op) {
  using Weights = SmallVector<std::pair<StringRef, OpOperand *>, 2>;
  return llvm::TypeSwitch<Operation *, Weights>(op)
      .Case<GateUpOp, InputGradOp>([](auto op) {
        return Weights{{"gate", &op.getGateMutable()},
                       {"up", &op.getUpMutable()}};
      })
      .Case<DownOp, DownGradOp>([](auto op) {
        return Weights{{"down", &op.getDownMutable()}};
      })
      .Case<GateOp>([](GateOp op) {
        return Weights{{"gate", &op.getGateMutable()}};
      })
      .Default([](Operation *) { return Weights{}; });
}

WeightLayoutSwap::WeightLayoutSwap(Operation *op, StringRef role,
                                   OpOperand *operand, Value other)
    : op(op), operand(operand), previous(operand->get()),
      layoutName(StringAttr::get(op->getContext(), role + "_layout")),
      layout(op->getAttr(layoutName)) {
  auto current = dyn_cast_or_null<WeightLayoutAttr>(layout);
  WeightLayout was = current ? current.getValue() : WeightLayout::out_in;
  operand->set(other);
  op->setAttr(layoutName, WeightLayoutAttr::get(op->getContext(),
                                                was == WeightLayout::out_in
                                                    ? WeightLayout::in_out
                                                    : WeightLayout::out_in));
}

void WeightLayoutSwap::undo() const {
  operand->set(previous);
  if (layout)
    op->setAttr(layoutName, layout);
  else
    op->removeAttr(layoutName);
}

ReadingStoredWeights::ReadingStoredWeights(
    Operation *op, function_ref<Value(Value)> sourceOf) {
  for (auto [role, operand] : weightOperands(op))
    if (Value weight = sourceOf(operand->get())) {
      swapped[operand->get()] = weight;
      swaps.emplace_back(op, role, operand, weight);
    }
}

ReadingStoredWeights::~ReadingStoredWeights() {
  for (const WeightLayoutSwap &swap : llvm::reverse(swaps))
    swap.undo();
}

BlockArgument mlir::fmlp::addWeightCopyArgument(BlockArgument weight,
                                                func::FuncOp entry,
                                                ArrayRef<int64_t> shape,
                                                StringRef suffix) {
  auto type = cast<MemRefType>(weight.getType());
  auto copyType = MemRefType::get(shape, type.getElementType());
  Builder b(entry.getContext());
  auto name =
      entry.getArgAttrOfType<StringAttr>(weight.getArgNumber(), "fmlp.name");
  std::string copyName =
      ((name ? name.getValue() : StringRef("weight")) + suffix).str();
  auto attrs = b.getDictionaryAttr(
      {b.getNamedAttr("fmlp.name", b.getStringAttr(copyName)),
       b.getNamedAttr("fmlp.workspace", b.getUnitAttr())});
  unsigned index = entry.getNumArguments();
  if (failed(entry.insertArgument(index, copyType, attrs, weight.getLoc())))
    llvm_unreachable("appending an argument to a function with a body");
  return entry.getArgument(index);
}
