//===- BlockRunner.h - Compile a gated MLP block and run it on the CPU -*- C++
//
// Compiles a module holding one gated MLP block (linalg, TOSA or fmlp ops)
// through fmlp-plan-pipeline and fmlp-cpu-pipeline, reads its entry points'
// buffer bindings off the planned IR, and calls them with buffers bound by
// name. The workspace is allocated here (the plan says its size); the saved
// buffer is the caller's, since it lives from forward to backward. Only the
// entry points are compiled: functions around the block are dropped.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_LIB_EXECUTION_BLOCKRUNNER_H
#define FMLP_LIB_EXECUTION_BLOCKRUNNER_H

#include "fmlp/Pipeline.h"
#include "lib/Execution/CpuRunner.h"
#include "lib/Pipeline/PlanSummary.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir::fmlp {

/// What the compiled block computes, read off its kernels.
struct BlockDescription {
  std::string activation; // silu, gelu_tanh, relu
  double gateMultiplier = 1.0, downMultiplier = 1.0;
  bool gateInOut = false, upInOut = false, downInOut = false; // [in, out]
  bool gateBias = false, upBias = false, downBias = false;
  int64_t model = 0, hidden = 0; // D, H
  /// The adapters' ranks (R, Rd; 0 without them): their operands are
  /// [out, in] whatever the weights' layouts.
  int64_t loraRank = 0, downLoraRank = 0;
  HostElement element = HostElement::F32;
};

class BlockRunner {
public:
  /// Called once the block is planned (entry points and description read),
  /// before the slow CPU lowering: false, with `error`, stops compile.
  using PlanCheck =
      llvm::function_ref<bool(const BlockRunner &planned, std::string &error)>;

  /// Which block of which text to compile.
  struct Source {
    std::string text;       // MLIR
    std::string name = "-"; // the file name diagnostics' locations carry
    /// The block to run where the module holds several (its entry points'
    /// prefix, the function the block was recognized in); empty: the only
    /// one.
    std::string block;
  };

  /// Compiles `source` with `options`. Null, with `error`, on failure; each
  /// error starts with where it is, `file:line:col: ` where the IR says,
  /// else `file: `.
  static std::unique_ptr<BlockRunner> compile(const Source &source,
                                              const PipelineOptions &options,
                                              std::string &error,
                                              PlanCheck checkPlan = nullptr);
  static std::unique_ptr<BlockRunner> compile(const std::string &text,
                                              const PipelineOptions &options,
                                              std::string &error) {
    return compile(Source{text}, options, error);
  }

  const std::vector<EntryPoint> &getEntryPoints() const { return entries; }
  const EntryPoint *findEntry(EntryKind kind) const;
  const BlockDescription &getBlock() const { return block; }
  /// The planned IR (memrefs, before the CPU lowering), for printing.
  const std::string &getPlannedIR() const { return plannedIR; }

  /// Calls the entry point of `kind` for `tokens` tokens; arguments are
  /// looked up by name in `tensors` (the workspace is provided here).
  bool run(EntryKind kind, int64_t tokens,
           std::map<std::string, HostTensor *> &tensors, std::string &error);

private:
  MLIRContext context;
  std::unique_ptr<CpuModule> module;
  std::vector<EntryPoint> entries;
  std::string plannedIR;
  BlockDescription block;
};

} // namespace mlir::fmlp

#endif // FMLP_LIB_EXECUTION_BLOCKRUNNER_H
