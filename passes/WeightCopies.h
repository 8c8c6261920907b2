//===- WeightCopies.h - Per-call copies of the weights -----------*- C++
//-*-===//
//
// What fmlp-transpose-weights and fmlp-round-tf32-weights share: whether an
// entry point's weight can be copied by a kernel, and the workspace
// argument that holds a copy. A weight does not depend on T, so a copy made
// once at an entry point's start serves every kernel and token chunk of the
// call. And what fmlp-select-tiles and convert-fmlp-to-nvvm need of the
// copies for the kernels that read the weights as stored instead (at few
// T): which weight a copy holds, and a kernel op swapped back to reading
// it in its own layout.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PASSES_WEIGHTCOPIES_H
#define FMLP_PASSES_WEIGHTCOPIES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

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
/// The weight that an fmlp.transpose copies, transposed, into `copy` (a
/// workspace argument of fmlp-transpose-weights), or null where none
/// writes it.
Value transposedCopySource(Value copy);

/// The weight operands of a GEMM kernel op, each with its KernelGemm role
/// (`gate`, `up`, `down`), which also names its layout attribute
/// (`down_layout`).
SmallVector<std::pair<StringRef, OpOperand *>, 2> weightOperands(Operation *op);

/// A weight operand of a kernel op set to another buffer holding the same
/// weight in the other layout (a transposed copy, or the weight a copy was
/// made from), the op's layout attribute for it flipped; undo() puts both
/// back.
class WeightLayoutSwap {
public:
  WeightLayoutSwap(Operation *op, StringRef role, OpOperand *operand,
                   Value other);
  void undo() const;

private:
  Operation *op;
  OpOperand *operand;
  Value previous;
  StringAttr layoutName;
  Attribute layout; // as it was (null: the default, out_in)
};

/// `op` reading, for as long as this lives, each weight as stored where it
/// reads a transposed copy of it: every such operand swapped to the weight
/// (`sourceOf(copy)`, null for what is no copy), undone when it goes. What
/// describes a kernel that transposes its weights in its stages
/// (KernelConfig::transposesInStages).
class ReadingStoredWeights {
public:
  ReadingStoredWeights(Operation *op, function_ref<Value(Value)> sourceOf);
  ~ReadingStoredWeights();
  ReadingStoredWeights(const ReadingStoredWeights &) = delete;
  ReadingStoredWeights &operator=(const ReadingStoredWeights &) = delete;
  /// Each copy swapped -> its weight.
  const DenseMap<Value, Value> &weightOfCopy() const { return swapped; }

private:
  SmallVector<WeightLayoutSwap, 2> swaps;
  DenseMap<Value, Value> swapped;
};

} // namespace mlir::fmlp

#endif // FMLP_PASSES_WEIGHTCOPIES_H
