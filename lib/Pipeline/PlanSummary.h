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

#include "fmlp/EntryKind.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::fmlp {

/// One argument of an entry point: its name (x, gate, ..., saved,
/// workspace) and its shape, a negative extent standing for the part of T
/// that the other leading extents leave (T itself for [T, D]).
struct EntryArgument {
  std::string name;
  std::vector<int64_t> shape;
  int64_t elementBytes = 0;
  /// Scratch of one call: the plan's `workspace`, and those the GPU stages
  /// add (`fmlp.workspace`: split_k_workspace, the weights' copies).
  bool workspace = false;
  /// On a module through the GPU stages, the fewest T at which a kernel
  /// launch uses it (its launches' least fmlp.min_tokens; INT64_MAX when
  /// none does): a workspace is not needed at fewer T (tf32's rounded
  /// weight copies). 1 on a module without launches.
  int64_t minTokens = 1;
};

struct EntryPoint {
  std::string symbol; // e.g. "mlp.forward"
  EntryKind kind = EntryKind::forward;
  std::vector<EntryArgument> arguments;
  int64_t savedColumns = 0, workspaceColumns = 0, chunkTokens = 0;
};

std::vector<EntryPoint> readEntryPoints(ModuleOp planned);

/// Whether argument `index` (named `name`) of the entry point `func` is
/// scratch of one call: the plan's `workspace`, or one the GPU stages mark
/// `fmlp.workspace` (split_k_workspace, the weights' copies).
bool isWorkspaceArgument(func::FuncOp func, unsigned index, StringRef name);

/// What T the entry points take: x's leading extents (all but the last)
/// flattened. A static product is the only T; with a dynamic extent, T is any
/// multiple of the static ones' product (8 for x : [8, S, D]).
struct TokenDomain {
  std::optional<int64_t> staticTokens;
  int64_t multiple = 1;
};
/// Fails, saying why, when x's static leading extents overflow int64.
std::optional<TokenDomain> getTokenDomain(const std::vector<EntryPoint> &entries,
                                          std::string &error);
/// Whether the entry points can run `tokens` tokens; if not, `error` says
/// which T they take.
bool checkTokens(const TokenDomain &domain, int64_t tokens, std::string &error);

/// Bytes for T tokens, beyond the block's inputs, weights and outputs: the
/// `saved` argument and every workspace argument used at T as the module
/// declares them (a chunked workspace has chunk-tokens rows, whatever T
/// is): the plan's, and, on a module through the GPU stages, the kernels'
/// own (the runtime's fmlp_workspace_bytes_used counts the same).
struct MemoryReport {
  int64_t tokens = 0;
  int64_t savedBytes = 0; // kept from forward to backward
  int64_t forwardWorkspaceBytes = 0, backwardWorkspaceBytes = 0,
          nogradWorkspaceBytes = 0;
  /// Training: saved plus the larger of the two workspaces.
  int64_t trainingPeakBytes = 0;
  /// Inference: the no-grad forward's workspace.
  int64_t inferencePeakBytes = 0;
  /// The workspaces counted beside the plan's `workspace`, by name, once
  /// each (split_k_workspace, down_transposed, ...).
  std::vector<std::string> kernelScratch;
};

/// Fails, naming the buffer, when a size does not fit in int64 bytes.
std::optional<MemoryReport>
computeMemoryReport(const std::vector<EntryPoint> &entries, int64_t tokens,
                    std::string &error);

/// The shape of `argument` for `tokens` tokens: its first dynamic extent is
/// what T leaves after its static leading extents, any later one 1 (T is
/// their product). Nullopt when its element count overflows int64.
std::optional<std::vector<int64_t>> resolveShape(const EntryArgument &argument,
                                                 int64_t tokens);
/// The same rule in words: "[T, 96]" (its first dynamic extent T, any later
/// one 1), what resolveShape makes of T tokens when there are no static
/// leading extents.
std::string describeShape(const EntryArgument &argument);

/// One line per quantity: `  saved for backward   4,328,521,728 B (4128.0
/// MiB)`.
void printMemoryReport(const MemoryReport &report, llvm::raw_ostream &os);
/// The same as one JSON object: tokens and each size in bytes, under the
/// names of MemoryReport's fields in snake case (saved_bytes, ...).
llvm::json::Object memoryReportToJson(const MemoryReport &report);

} // namespace mlir::fmlp

#endif // FMLP_LIB_PIPELINE_PLANSUMMARY_H
