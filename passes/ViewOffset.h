//===- ViewOffset.h - Where a kernel operand's view starts ------*- C++ -*-===//
//
// A kernel operand of a planned entry point is a view of a buffer (an entry
// argument) through memref.subview, memref.cast and the collapse_shape of
// a batched argument's leading dimensions into T. Its first element is
//
//   element  offset + tokenStride * c0  of the buffer,
//
// c0 being the first token of the chunk (the induction variable of
// fmlp-plan-memory's token-chunk loop) for a view of token rows taken in
// that loop, and tokenStride 0 for any other view (outside a chunk loop, a
// weight, the workspace every chunk reuses from its row 0). The memref
// type says less (the chunk views' offsets are dynamic, and
// canonicalization casts some static ones to dynamic), so every reader that
// needs the offset (16-byte alignment for TMA and vector access, adjacent
// columns, the bundle's manifest) traces it here.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PASSES_VIEWOFFSET_H
#define FMLP_PASSES_VIEWOFFSET_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::fmlp {

struct ViewOffset {
  Value root;              // the buffer the view was taken from
  int64_t offset = 0;      // elements, at c0 = 0
  int64_t tokenStride = 0; // elements per token of c0
  scf::ForOp chunkLoop;    // whose induction variable is c0 (null: none)
};

/// The buffer `view` was taken from (through the subviews, casts and
/// collapses above), whatever its offset.
Value viewRoot(Value view);

/// The offset of `view` in its root, or nullopt when a subview's offset is
/// neither a constant nor a loop's induction variable, is along a dynamic
/// stride, or two loops' induction variables appear.
std::optional<ViewOffset> traceViewOffset(Value view);

/// Whether the first element of `view` is `bytes`-aligned (a power of two)
/// relative to its root's, for every c0: the static offset and the stride
/// per token both are. False when the offset cannot be traced.
bool viewStartAligned(Value view, int64_t bytes);

} // namespace mlir::fmlp

#endif // FMLP_PASSES_VIEWOFFSET_H
