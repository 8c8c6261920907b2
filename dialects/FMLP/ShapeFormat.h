//===- ShapeFormat.h - Shapes in diagnostics --------------------*- C++ -*-===//
//
// How the fmlp verifiers write a shape in a message: [11008, 4096], with ?
// for a dynamic extent.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_DIALECTS_FMLP_SHAPEFORMAT_H
#define FMLP_DIALECTS_FMLP_SHAPEFORMAT_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>

namespace mlir::fmlp {

std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace mlir::fmlp

#endif // FMLP_DIALECTS_FMLP_SHAPEFORMAT_H
