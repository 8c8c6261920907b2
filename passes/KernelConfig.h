//===- KernelConfig.h - The configuration of each kernel op -----*- C++ -*-===//
//
// What fmlp-select-tiles decides for a kernel op (lib/CodeGen/
// TileSelection.h says the rule), recorded on the op as the dictionary
// attribute `fmlp.kernel_config`; convert-fmlp-to-nvvm follows it.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PASSES_KERNELCONFIG_H
#define FMLP_PASSES_KERNELCONFIG_H

#include "lib/CodeGen/TileSelection.h"

#include "mlir/IR/Operation.h"

namespace mlir::fmlp {

constexpr StringLiteral kKernelConfigAttr = "fmlp.kernel_config";

/// The configuration of a kernel op on memrefs for `chip`.
KernelConfig selectKernelConfig(Operation *kernelOp, StringRef chip);

/// Operand views the WGMMA path reads through tensor maps, in parameter
/// order (A, then each B_j), with their boxes' rows; empty for other ops.
SmallVector<std::pair<Value, int64_t>>
tensorMapOperands(Operation *kernelOp, const KernelConfig &config);

} // namespace mlir::fmlp

#endif // FMLP_PASSES_KERNELCONFIG_H
