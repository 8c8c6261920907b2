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

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <utility>

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
  /// Set when the projection is one half of a wider one (Phi3's fused
  /// gate_up_proj, split by tensor.extract_slice): it computes only the
  /// output features [outputOffset, outputOffset + outputSize) of `weight`
  /// and `bias`, which keep the whole stored tensors. getWeightOperand and
  /// getBiasOperand give the projection's own part as a view.
  std::optional<std::pair<int64_t, int64_t>> outputSlice;
};

/// Reads the projection that computes `result`. On failure, `reason` says
/// which part did not match.
FailureOr<Projection> matchProjection(Value result, std::string &reason);

/// Reads `first` and `second` as the two halves of one projection's output
/// features: tensor.extract_slice ops of one value P = x W (+ b) of shape
/// [..., 2H] that take, with unit strides and all of every other dimension,
/// the last-dimension columns [0, H) and [H, 2H), in either order. Returns
/// the projection of each half (with `outputSlice` set and the slice first
/// in its dataPath). On failure, `reason` says which part did not match.
FailureOr<std::pair<Projection, Projection>>
matchProjectionHalves(Value first, Value second, std::string &reason);

/// The projection's weight as an operand of fmlp.gated_mlp: the stored
/// weight, or for a half (`outputSlice`) a tensor.extract_slice of its
/// output features (rows of an out_in weight, columns of an in_out one),
/// built at `builder`'s insertion point. A view, never a copy.
Value getWeightOperand(OpBuilder &builder, Location loc,
                       const Projection &projection);

/// The projection's bias (or null) likewise, sliced for a half.
Value getBiasOperand(OpBuilder &builder, Location loc,
                     const Projection &projection);

} // namespace mlir::fmlp

#endif // FMLP_PASSES_PROJECTION_H
