//===- PipelineFlags.h - Pipeline options as command-line flags -*- C++ -*-===//
//
// The flags of fmlp's drivers (fmlp-compile, fmlp-run) that fill
// fmlp::PipelineOptions, so that every driver spells them alike and
// fmlp-opt --fmlp-plan-pipeline="..." takes the same names.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_TOOLS_COMMON_PIPELINEFLAGS_H
#define FMLP_TOOLS_COMMON_PIPELINEFLAGS_H

#include "fmlp/Pipeline.h"
#include "fmlp/Target.h"
#include "tools/common/ToolOptions.h"

#include "llvm/Support/CommandLine.h"

namespace mlir::fmlp {

/// Construct once, before llvm::cl::ParseCommandLineOptions.
struct PipelineFlags {
  llvm::cl::opt<std::string> mode{
      "mode",
      llvm::cl::desc("train (forward, backward, forward_nograd) or "
                     "infer (forward_nograd)"),
      llvm::cl::init("train"), llvm::cl::cat(getToolCategory())};
  llvm::cl::opt<std::string> save{
      "save", llvm::cl::desc("What the forward saves: agu, gu, u or x"),
      llvm::cl::init("agu"), llvm::cl::cat(getToolCategory())};
  llvm::cl::opt<int64_t> chunkTokens{
      "chunk-tokens", llvm::cl::desc("Workspace chunk in tokens (0: off)"),
      llvm::cl::init(0), llvm::cl::cat(getToolCategory())};
  llvm::cl::opt<std::string> precision{
      "precision",
      llvm::cl::desc("How fp32 blocks contract: PyTorch's float32 matmul "
                     "precision (highest, high, medium) or a format (ieee, "
                     "tf32x3, tf32); docs/precision.md"),
      llvm::cl::init("highest"), llvm::cl::cat(getToolCategory())};

  /// One of the chip table's rows (fmlp/Target.h); validatePipelineOptions
  /// rejects any other name, listing the known ones.
  llvm::cl::opt<std::string> chip{
      "chip", llvm::cl::desc(chipHelp()), llvm::cl::init("sm_90a"),
      llvm::cl::cat(getToolCategory())};
  llvm::cl::opt<std::string> strategy{
      "strategy",
      llvm::cl::desc("Kernel strategy: auto, or mma_sync or simt in place "
                     "of faster ones"),
      llvm::cl::init("auto"), llvm::cl::cat(getToolCategory())};
  llvm::cl::opt<std::string> cudaPath{
      "cuda-path",
      llvm::cl::desc("CUDA toolkit: libdevice for the kernels, ptxas"),
      llvm::cl::init("/usr/local/cuda"), llvm::cl::cat(getToolCategory())};

  static llvm::StringRef chipHelp() {
    static const std::string help =
        "GPU to generate kernels for: " + knownTargetNames();
    return help;
  }

  void fill(PipelineOptions &options) const {
    options.chip = chip.getValue();
    options.cudaPath = cudaPath.getValue();
    options.mode = mode.getValue();
    options.save = save.getValue();
    options.chunkTokens = chunkTokens.getValue();
    options.precision = precision.getValue();
    options.strategy = strategy.getValue();
  }
};

} // namespace mlir::fmlp

#endif // FMLP_TOOLS_COMMON_PIPELINEFLAGS_H
