//===- FMLPDialect.cpp - The fmlp dialect ---------------------------------===//
//
// Registers the fmlp operations and attributes with the dialect.
//
//===----------------------------------------------------------------------===//

#include "dialects/FMLP/FMLPDialect.h"
#include "dialects/FMLP/FMLPOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fmlp;

#include "dialects/FMLP/FMLPDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/FMLP/FMLPAttrs.cpp.inc"

void FMLPDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/FMLP/FMLPOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/FMLP/FMLPAttrs.cpp.inc"
      >();
}
