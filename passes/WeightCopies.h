//===- WeightCopies.h - Per-call copies of the weights -----------*- C++
//-*-===//
//
// What fmlp-transpose-weights and fmlp-round-tf32-weights share: whether an
// entry point's weight can be copied by a kernel, and the workspace
// argument that holds a copy. A
// weight does not depend on T, so a copy made once at an entry point's
// start serves every kernel and token chunk of the call.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PASSES_WEIGHTCOPIES_H
#define FMLP_PASSES_WEIGHTCOPIES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"

namespace mlir::fmlp {

/// `weight` if it is an argument of `entry` that a copy kernel can read
/// (2-D, static, dense row-major), else null.
BlockArgument copyableWeight(Value weight, func::FuncOp entry);

/// A new workspace argument of `entry` (appended) for a copy of `weight`
/// of `shape` (the weight's element type): named `<name><suffix>` after
/// the weight's fmlp.name, `fmlp.workspace` (scratch of one call).
BlockArgument addWeightCopyArgument(BlockArgument weight, func::FuncOp entry,
                                    ArrayRef<int64_t> shape, StringRef suffix);

/// The weight that an fmlp.round_to_tf32 copies, rounded, into `copy` (a
/// workspace argument of fmlp-round-tf32-weights), or null where none
/// writes it.
Value roundedCopySource(Value copy);

} // namespace mlir::fmlp

#endif // FMLP_PASSES_WEIGHTCOPIES_H
