//===- WeightCopies.cpp - Per-call copies of the weights ------------------===//

#include "passes/WeightCopies.h"

#include "dialects/FMLP/FMLPOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

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

Value mlir::fmlp::roundedCopySource(Value copy) {
  for (Operation *user : copy.getUsers())
    if (auto round = dyn_cast<RoundToTf32Op>(user))
      if (round.getInits()[0] == copy)
        return round.getInput();
  return nullptr;
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
