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

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace mlir::fmlp {

/// The value of a splat floating-point constant tensor or scalar
/// (arith.constant, tosa.const, linalg.fill of a constant), if `value` is one.
std::optional<double> getSplatFloatValue(Value value);

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
