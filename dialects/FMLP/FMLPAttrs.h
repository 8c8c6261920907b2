//===- FMLPAttrs.h - fmlp attributes and their helpers ----------*- C++ -*-===//
//
// The enum attributes of the fmlp dialect (activation, weight layout,
// precision) and the small amount of arithmetic every pass needs on them:
// which extents a stored weight has, and which formats keep fp32 operands.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_DIALECTS_FMLP_FMLPATTRS_H
#define FMLP_DIALECTS_FMLP_FMLPATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include "fmlp/Target.h"

#include "dialects/FMLP/FMLPEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/FMLP/FMLPAttrs.h.inc"

namespace mlir::fmlp {

/// A projection maps `in` features to `out` features.
struct ProjectionExtents {
  int64_t in;
  int64_t out;
  bool operator==(const ProjectionExtents &other) const {
    return in == other.in && out == other.out;
  }
};

/// The extents of a projection whose 2-D weight has `shape` in `layout`:
/// `in_out` stores [in, out], `out_in` (torch.nn.Linear) stores [out, in].
ProjectionExtents getProjectionExtents(WeightLayout layout,
                                       llvm::ArrayRef<int64_t> shape);

/// The 2-D shape that stores a projection of `extents` in `layout`; the
/// inverse of getProjectionExtents.
llvm::SmallVector<int64_t, 2> getWeightShape(WeightLayout layout,
                                             ProjectionExtents extents);

/// True for the formats whose contractions take fp32 operands (tf32, tf32x3,
/// ieee, highest); false for the 16-bit formats.
bool isFloat32Precision(Precision precision);

/// True for the fp32 formats multiplied on tf32 (tf32, tf32x3).
bool isTf32Precision(Precision precision);

/// The fewest terms of a contraction that `highest` multiplies as tf32x3
/// where the kernel sums the three products of `groupK8s` k8 steps (1, 2
/// or 4) from zero on the tensor core before each fp32 add: from there on
/// tf32x3's error bound is within IEEE fp32's, gamma_n with u = 2^-24
/// (lib/Numerics contractionError: about (12 + 60 g + n / 8 g) 2^-24
/// against n 2^-24; test/Unit/NumericsTest.cpp checks each crossing).
constexpr int64_t getHighestTf32x3MinTerms(int64_t groupK8s) {
  return groupK8s >= 4 ? 262 : groupK8s == 2 ? 142 : 84;
}
/// The fewest terms of a contraction `highest` multiplies as tf32x3 at all
/// (k8 steps added one by one, as mma_sync's and the weight gradients' WGMMA
/// kernels do).
constexpr int64_t kHighestTf32x3MinTerms = getHighestTf32x3MinTerms(1);

/// How a contraction of `precision` forms its products on a kernel with
/// (`tensorCores`) or without tensor cores: `highest` as tf32x3 on tensor
/// cores and as ieee (FMA) otherwise, every other format as itself. The
/// caller keeps tensor cores for `highest` to contractions of at least
/// kHighestTf32x3MinTerms terms.
Precision getProductFormat(Precision precision, bool tensorCores);

/// The operand format of `element` itself, a block's without a precision
/// attribute: bf16, f16, or ieee (exact products) for f32 and anything else.
Precision getElementPrecision(Type element);

/// The GPU target of the module around `op` (its fmlp.target, which
/// fmlp-attach-target puts there), or null.
TargetAttr getTarget(Operation *op);

} // namespace mlir::fmlp

#endif // FMLP_DIALECTS_FMLP_FMLPATTRS_H
