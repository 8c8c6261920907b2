//===- FMLPAttrs.cpp - fmlp attribute helpers -----------------------------===//
//
// The enum attributes' generated code and the helpers declared in FMLPAttrs.h.
//
//===----------------------------------------------------------------------===//

#include "dialects/FMLP/FMLPAttrs.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::fmlp;

#include "dialects/FMLP/FMLPEnums.cpp.inc"

ProjectionExtents mlir::fmlp::getProjectionExtents(WeightLayout layout,
                                                   ArrayRef<int64_t> shape) {
  assert(shape.size() == 2 && "a projection weight is 2-D");
  switch (layout) {
  case WeightLayout::in_out:
    return {shape[0], shape[1]};
  case WeightLayout::out_in:
    return {shape[1], shape[0]};
  }
  llvm_unreachable("unknown weight layout");
}

SmallVector<int64_t, 2> mlir::fmlp::getWeightShape(WeightLayout layout,
                                                   ProjectionExtents extents) {
  switch (layout) {
  case WeightLayout::in_out:
    return {extents.in, extents.out};
  case WeightLayout::out_in:
    return {extents.out, extents.in};
  }
  llvm_unreachable("unknown weight layout");
}

bool mlir::fmlp::isFloat32Precision(Precision precision) {
  switch (precision) {
  case Precision::bf16:
  case Precision::f16:
    return false;
  case Precision::tf32:
  case Precision::tf32x3:
  case Precision::ieee:
    return true;
  }
  llvm_unreachable("unknown precision");
}
