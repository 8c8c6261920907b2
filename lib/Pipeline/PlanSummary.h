//===- PlanSummary.h - What a planned module asks of its caller -*- C++ -*-===//
//
// Reads, off a module that went through fmlp-plan-pipeline, each entry
// point's buffer bindings (names and shapes, T symbolic) and sizes, and
// computes the memory report for a given T: what the forward saves for the
// backward, the workspaces, and the peak beyond inputs, weights and outputs.
// The runtime's manifest and the CPU runner read the same summary.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_LIB_PIPELINE_PLANSUMMARY_H
#define FMLP_LIB_PIPELINE_PLANSUMMARY_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::fmlp {

/// One argument of an entry point: its name (x, gate, ..., saved,
/// workspace) and its shape, a negative extent standing for the part of T
/// that the other leading extents leave (T itself for [T, D]).
struct EntryArgument {
  std::string name;
  std::vector<int64_t> shape;
};

struct EntryPoint {
  std::string symbol; // e.g. "mlp.forward"
  std::string kind;   // forward, backward, forward_nograd
  std::vector<EntryArgument> arguments;
  int64_t savedColumns = 0, workspaceColumns = 0, chunkTokens = 0;
  int64_t elementBytes = 0;
};

std::vector<EntryPoint> readEntryPoints(ModuleOp planned);

/// Bytes for T tokens, beyond the block's inputs, weights and outputs.
struct MemoryReport {
  int64_t tokens = 0;
  int64_t savedBytes = 0; // kept from forward to backward
  int64_t forwardWorkspaceBytes = 0, backwardWorkspaceBytes = 0,
          nogradWorkspaceBytes = 0;
  /// Training: saved plus the larger of the two workspaces.
  int64_t trainingPeakBytes = 0;
  /// Inference: the no-grad forward's workspace.
  int64_t inferencePeakBytes = 0;
};

MemoryReport computeMemoryReport(const std::vector<EntryPoint> &entries,
                                 int64_t tokens);

/// One line per quantity: `  saved for backward   4,328,521,728 B (4128.0
/// MiB)`.
void printMemoryReport(const MemoryReport &report, llvm::raw_ostream &os);

} // namespace mlir::fmlp

#endif // FMLP_LIB_PIPELINE_PLANSUMMARY_H
