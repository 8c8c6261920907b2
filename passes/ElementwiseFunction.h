//===- ElementwiseFunction.h - Elementwise IR read as a function -*- C++
//-*-===//
//
// Reads a DAG of elementwise tensor operations (linalg ops with identity
// indexing maps and their scalar payloads, arith and math on tensors, TOSA's
// elementwise ops) as a scalar function of the tensors it starts from, its
// leaves, and evaluates that function at chosen points.
//
// fmlp-recognize uses it to ask what an activation computes rather than how
// it is spelled: x * sigmoid(x), x / (1 + exp(-x)) and
// 0.5 x (1 + tanh(x / 2)) are one function, silu, and each is recognized;
// exp(x) in place of exp(-x) is another function, and is not.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PASSES_ELEMENTWISEFUNCTION_H
#define FMLP_PASSES_ELEMENTWISEFUNCTION_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace mlir::fmlp {

/// The value of a splat floating-point constant tensor or scalar
/// (arith.constant, tosa.const, linalg.fill of a constant), if `value` is one.
std::optional<double> getSplatFloatValue(Value value);

//===----------------------------------------------------------------------===//
// Linalg operations read by meaning
//
// Frontends write the same copy, broadcast or cast either as a named linalg
// op or as a linalg.generic; these read both by their indexing maps and
// payload, so that no matcher depends on which spelling it was given.
//===----------------------------------------------------------------------===//

/// The scalar function of `op`'s payload at the given input values (one per
/// DPS input, in order), if the payload reads only its inputs (not its
/// output), splat constants, and operations ElementwiseFunction knows.
/// Casts are taken as exact.
std::optional<double> evaluatePayload(linalg::LinalgOp op,
                                      ArrayRef<double> inputValues);

/// `op` has one input and one init, and its payload yields the input's
/// element unchanged (a copy, broadcast or transpose, by its maps).
bool isCopyPayload(linalg::LinalgOp op);

/// `op` is a linalg op that converts its one input elementwise, with
/// identity maps and a payload of extf/truncf only (a change of precision).
bool isElementwiseCast(Operation *op);

/// A tensor that is another one copied along added dimensions.
struct BroadcastView {
  Value source;
  /// The dimensions of the broadcast tensor that `source` does not have.
  SmallVector<int64_t> addedDimensions;
  Operation *op;
};

/// `value` as a broadcast: a linalg.broadcast, or a linalg.generic with a
/// copy payload whose input map keeps a strictly increasing subset of the
/// output's dimensions (a unit dimension of the input may be read at 0: it
/// is broadcast too, and stays in `source`).
std::optional<BroadcastView> getBroadcastSource(Value value);

class ElementwiseFunction {
public:
  /// Reads the elementwise DAG that computes `root`. Its leaves are the
  /// values that no supported elementwise operation defines (splat constants
  /// are folded in as numbers). Fails, saying why in `reason`, when an
  /// elementwise operation on the way computes something it cannot read
  /// (an unknown payload operation, a broadcast, erf).
  static FailureOr<ElementwiseFunction> read(Value root, std::string &reason);

  /// The values the function starts from, in the order evaluate() takes them.
  ArrayRef<Value> getLeaves() const { return leaves.getArrayRef(); }

  /// The operations that compute the function, each after its operands'
  /// definitions.
  ArrayRef<Operation *> getOperations() const {
    return operations.getArrayRef();
  }

  /// The function's value, in double precision, when each leaf holds the
  /// number at its position in `leafValues`. Roundings the IR asks for
  /// (extf, truncf, tosa.cast) are taken as exact: they are part of how the
  /// function is computed, not of what it is.
  double evaluate(ArrayRef<double> leafValues) const;

  /// The relative rounding error of the narrowest floating-point constant the
  /// function uses (2^-24 for f32, 2^-8 for bf16; 0 without constants).
  /// Comparisons with an exact formula must allow for it.
  double getConstantRoundoff() const { return constantRoundoff; }

private:
  ElementwiseFunction(Value root) : root(root) {}

  Value root;
  llvm::SetVector<Value> leaves;
  llvm::SetVector<Operation *> operations;
  double constantRoundoff = 0.0;
};

} // namespace mlir::fmlp

#endif // FMLP_PASSES_ELEMENTWISEFUNCTION_H
