//===- Projection.h - Linear projections in linalg and TOSA IR --*- C++ -*-===//
//
// A projection is `result = input W (+ bias)` with W a 2-D weight stored in
// either layout. Frontends spell it many ways (linalg.matmul after a
// linalg.transpose, linalg.matmul with indexing maps, a linalg.generic
// contraction over [B, S, D], tosa.matmul between reshapes); matchProjection
// reads them all into one description, without moving or copying the weight.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PASSES_PROJECTION_H
#define FMLP_PASSES_PROJECTION_H

#include "dialects/FMLP/FMLPAttrs.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::fmlp {

struct Projection {
  /// The tensor being projected, [..., in]; reshapes that only add or drop
  /// unit leading dimensions (TOSA's [T, D] <-> [1, T, D]) are looked through.
  Value input;
  /// The weight as stored, 2-D, in `layout`.
  Value weight;
  WeightLayout layout;
  /// A 1-D bias of `out` elements, or null.
  Value bias;
  /// The projection's value, [..., out].
  Value result;
  /// Operations on the way from `input` to `result`: once the projection is
  /// fused, their values must have no other users.
  SmallVector<Operation *> dataPath;
  /// Reshapes of `input` that the projection looks through. They belong to
  /// the block when `input` is computed inside it (the down projection's).
  SmallVector<Operation *> inputViews;
  /// Operations that only prepare the other operands (a zero accumulator, a
  /// transposed or reshaped view of the weight, a reshaped bias): erased
  /// once nothing uses them.
  SmallVector<Operation *> operandPreparation;
};

/// Reads the projection that computes `result`. On failure, `reason` says
/// which part did not match.
FailureOr<Projection> matchProjection(Value result, std::string &reason);

} // namespace mlir::fmlp

#endif // FMLP_PASSES_PROJECTION_H
