//===- Passes.h - fmlp passes -----------------------------------*- C++ -*-===//
//
// Declarations and registration of fmlp's passes, generated from Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PASSES_PASSES_H
#define FMLP_PASSES_PASSES_H

#include "dialects/FMLP/FMLPDialect.h"
#include "dialects/FMLP/FMLPOps.h"
#include "fmlp/EntryKind.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fmlp {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The operation directly in the module that holds `block`: its function
/// (a func.func, or another dialect's function, e.g. IREE's util.func
/// parsed as an opaque operation).
Operation *getBlockHolder(Operation *block);

/// The gated MLP blocks inside `holder`, in order.
SmallVector<GatedMlpOp> getHeldBlocks(Operation *holder);

/// The prefix of the entry points fmlp-expand-training makes for `block`,
/// an fmlp.gated_mlp in a function: `<f>` (the holder's symbol name), or
/// `<f>.mlp<i>` when the function holds several blocks (i counts them from
/// 0 in order).
std::string getEntryPointPrefix(Operation *block);

/// The kind of entry point `func` is (its fmlp.entry attribute, which
/// fmlp-expand-training writes), or nullopt for any other function (or a
/// null one).
std::optional<EntryKind> getEntryKind(func::FuncOp func);

} // namespace mlir::fmlp

#endif // FMLP_PASSES_PASSES_H
