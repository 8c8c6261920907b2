//===- KernelConfig.h - The configuration of each kernel op -----*- C++ -*-===//
//
// What fmlp-select-tiles decides for a kernel op (lib/CodeGen/
// TileSelection.h says the rule), recorded on the op as a
// #fmlp.kernel_config; convert-fmlp-to-nvvm follows it. And the TMA plan
// both read.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PASSES_KERNELCONFIG_H
#define FMLP_PASSES_KERNELCONFIG_H

#include "lib/CodeGen/KernelBuilder.h"
#include "lib/CodeGen/TileSelection.h"

#include "mlir/IR/Operation.h"

namespace mlir::fmlp {

/// A view the WGMMA path reads through a tensor map: `cols` columns of it
/// (more than its type's when two adjacent views are read as one, K4's and
/// K5's [dG dU]), K-major or MN-major, boxes of `boxRows` rows.
struct TmaView {
  Value view;
  int64_t cols = 0;
  bool kMajor = true;
  int64_t boxRows = 0;
};

/// How the WGMMA path reads a kernel op's operands: the tensor maps (in
/// parameter order) and the operands A, B_j that use them; and the maps
/// (boxes of 64 x 64) of the outputs TMA can address, through which the
/// epilogue moves its staged blocks (WgmmaGemmSpec::outputMaps).
struct TmaPlan {
  SmallVector<TmaView> maps;
  WgmmaOperand a;
  SmallVector<WgmmaOperand> b;
  SmallVector<std::pair<Value, unsigned>> outputMaps; // memref, map
};

/// The plan for tiles of 128 x tileN, or failure with `whyNot` set.
FailureOr<TmaPlan> planTma(Operation *kernelOp, int64_t tileN,
                           std::string &whyNot);

} // namespace mlir::fmlp

#endif // FMLP_PASSES_KERNELCONFIG_H
