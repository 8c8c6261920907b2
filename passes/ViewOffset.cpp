//===- ViewOffset.cpp - Where a kernel operand's view starts --------------===//

#include "passes/ViewOffset.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::fmlp;

Value mlir::fmlp::viewRoot(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    if (auto subview = dyn_cast<memref::SubViewOp>(def))
      view = subview.getSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      view = cast.getSource();
    else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def))
      view = collapse.getSrc();
    else
      break;
  }
  return view;
}

std::optional<ViewOffset> mlir::fmlp::traceViewOffset(Value view) {
  ViewOffset traced;
  while (Operation *def = view.getDefiningOp()) {
    if (auto subview = dyn_cast<memref::SubViewOp>(def)) {
      // Element (o_0, o_1, ..) of the source is sum_i o_i stride_i past
      // the source's first.
      auto [strides, offset] = subview.getSourceType().getStridesAndOffset();
      for (auto [dim, start] : llvm::enumerate(subview.getMixedOffsets())) {
        std::optional<int64_t> constant = getConstantIntValue(start);
        if (constant == 0)
          continue;
        if (ShapedType::isDynamic(strides[dim]))
          return std::nullopt;
        if (constant) {
          traced.offset += *constant * strides[dim];
          continue;
        }
        scf::ForOp loop = scf::getForInductionVarOwner(cast<Value>(start));
        if (!loop || (traced.chunkLoop && traced.chunkLoop != loop))
          return std::nullopt;
        traced.chunkLoop = loop;
        traced.tokenStride += strides[dim];
      }
      view = subview.getSource();
    } else if (auto cast = dyn_cast<memref::CastOp>(def)) {
      view = cast.getSource();
    } else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(def)) {
      // Merging dimensions moves no element.
      view = collapse.getSrc();
    } else {
      break;
    }
  }
  // The root's own layout: an entry argument's is the identity.
  auto type = dyn_cast<MemRefType>(view.getType());
  if (!type)
    return std::nullopt;
  auto [strides, offset] = type.getStridesAndOffset();
  if (ShapedType::isDynamic(offset))
    return std::nullopt;
  traced.offset += offset;
  traced.root = view;
  return traced;
}

bool mlir::fmlp::viewStartAligned(Value view, int64_t bytes) {
  std::optional<ViewOffset> traced = traceViewOffset(view);
  if (!traced)
    return false;
  int64_t elementBytes =
      cast<MemRefType>(view.getType()).getElementTypeBitWidth() / 8;
  return (traced->offset * elementBytes) % bytes == 0 &&
         (traced->tokenStride * elementBytes) % bytes == 0;
}
