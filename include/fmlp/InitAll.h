//===- InitAll.h - Register everything fmlp provides ------------*- C++ -*-===//
//
// The one place a tool or a host compiler registers fmlp: the fmlp dialect
// with the upstream dialects its input IR and passes use, and fmlp's passes
// and pipelines. fmlp-opt, fmlp-compile and the mlir-opt plugin all call it,
// so they accept the same IR and the same pass flags.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_INITALL_H
#define FMLP_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::fmlp {

/// Inserts the fmlp dialect and the upstream dialects that fmlp reads
/// (func, arith, math, linalg, tensor, tosa) into `registry`.
void registerAllDialects(DialectRegistry &registry);

/// Registers fmlp's passes and pipelines, and the few upstream passes that
/// its tests and users combine them with (canonicalize, cse).
void registerAllPasses();

} // namespace mlir::fmlp

#endif // FMLP_INITALL_H
