//===- Pipeline.h - fmlp's pipelines and their options ----------*- C++ -*-===//
//
// The one options struct that steers compilation, and the pipelines built
// from it. fmlp-opt (as --fmlp-plan-pipeline / --fmlp-cpu-pipeline),
// fmlp-compile and fmlp-run all build these, so they compile alike.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PIPELINE_H
#define FMLP_PIPELINE_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace mlir::fmlp {

struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  PassOptions::Option<std::string> mode{
      *this, "mode",
      llvm::cl::desc("train: forward, backward and forward_nograd entry "
                     "points; infer: forward_nograd only"),
      llvm::cl::init("train")};
  PassOptions::Option<std::string> save{
      *this, "save",
      llvm::cl::desc("What the forward saves for the backward: agu (A, G, "
                     "U), gu (A recomputed), u (G and A recomputed), x (G, "
                     "U recomputed)"),
      llvm::cl::init("agu")};
  PassOptions::Option<int64_t> chunkTokens{
      *this, "chunk-tokens",
      llvm::cl::desc("Bound the workspace to this many tokens (0: off); "
                     "chunked weight gradients are summed chunk by chunk"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("How fp32 blocks that state no precision contract: "
                     "PyTorch's float32 matmul precision (highest: fp32's "
                     "accuracy, tf32x3 where its bound is within fp32's; "
                     "high and medium -> tf32) or a format (ieee, tf32x3, "
                     "tf32); docs/precision.md"),
      llvm::cl::init("highest")};
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("The GPU the kernels are generated for: a row of the "
                     "chip table, include/fmlp/Target.h (sm_80, sm_86, "
                     "sm_89, sm_90[a], sm_100[a], sm_103[a], sm_120[a])"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("Kernel strategy: auto (the chip's fastest that the "
                     "operands allow), or mma_sync or simt in place of "
                     "faster ones (to run another chip's kernels)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("The CUDA toolkit whose libdevice the kernels link "
                     "(math functions)"),
      llvm::cl::init("/usr/local/cuda")};
};

/// The precision fp32 blocks take under the `precision` option: a format's
/// own name, or PyTorch's policy mapped (highest stays highest: IEEE
/// fp32's accuracy, by tf32x3 in contractions of at least 84 terms; high
/// and medium: tf32). docs/precision.md has the bounds.
std::string fp32Format(StringRef precision);

/// Checks option values, saying what is wrong in `message`.
bool validatePipelineOptions(const PipelineOptions &options,
                             std::string &message);
/// Whether cuda-path names a directory, as the GPU stages need (the CUDA
/// toolkit's libdevice and ptxas); else false with `message` saying so.
bool validateCudaPath(const PipelineOptions &options, std::string &message);

/// fmlp-plan-pipeline: recognize blocks, give them entry points, fuse them
/// into the kernel plan and plan its memory (ending on memrefs).
void buildPlanPipeline(OpPassManager &pm, const PipelineOptions &options);

/// fmlp-cpu-pipeline: the kernel plan on memrefs to the LLVM dialect, for
/// running in-process (fmlp-run).
void buildCpuPipeline(OpPassManager &pm);

/// The planned module to GPU kernels: fmlp-attach-target (the chip's row
/// on the module), fmlp-select-tiles, convert-fmlp-to-nvvm, the upstream
/// lowering of the gpu.module to NVVM, and gpu-module-to-binary, which
/// leaves each kernel module as a gpu.binary holding PTX. The launches stay
/// as gpu.launch_func in the entry points (fmlp-compile writes them into a
/// bundle's manifest).
void buildGpuPipeline(OpPassManager &pm, const PipelineOptions &options);
/// The stages buildGpuPipeline adds after buildPlanPipeline.
void buildGpuStages(OpPassManager &pm, const PipelineOptions &options);
/// The first of them, as far as the kernels' launches (through
/// convert-fmlp-to-nvvm): every entry point then has its final arguments,
/// the GPU kernels' own workspaces among them (the memory report's).
void buildGpuLaunchStages(OpPassManager &pm, const PipelineOptions &options);

/// Registers both pipelines with the pass registry.
void registerPipelines();

} // namespace mlir::fmlp

#endif // FMLP_PIPELINE_H
