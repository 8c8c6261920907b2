//===- FMLPDialect.h - The fmlp dialect -------------------------*- C++ -*-===//
//
// Declares the fmlp dialect, home of the gated MLP block operations.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_DIALECTS_FMLP_FMLPDIALECT_H
#define FMLP_DIALECTS_FMLP_FMLPDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/FMLP/FMLPDialect.h.inc"

#endif // FMLP_DIALECTS_FMLP_FMLPDIALECT_H
