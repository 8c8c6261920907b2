//===- Pipeline.cpp - fmlp's pipelines ------------------------------------===//
//
// Stage builders for the pipelines declared in fmlp/Pipeline.h, and their
// registration.
//
//===----------------------------------------------------------------------===//

#include "fmlp/Pipeline.h"

#include "fmlp/Target.h"

#include "passes/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;
using namespace mlir::fmlp;

std::string mlir::fmlp::fp32Format(StringRef precision) {
  return llvm::StringSwitch<std::string>(precision)
      .Cases({"high", "medium"}, "tf32")
      .Default(precision.str());
}

bool mlir::fmlp::validatePipelineOptions(const PipelineOptions &options,
                                         std::string &message) {
  auto oneOf = [&](StringRef name, StringRef value,
                   std::initializer_list<StringRef> allowed) {
    if (llvm::is_contained(allowed, value))
      return true;
    message = (name + " must be one of " + llvm::join(allowed, ", ") +
               ", got '" + value + "'")
                  .str();
    return false;
  };
  if (!oneOf("mode", options.mode, {"train", "infer"}) ||
      !oneOf("save", options.save, {"agu", "gu", "u", "x"}) ||
      !oneOf("precision", options.precision,
             {"highest", "high", "medium", "ieee", "tf32x3", "tf32"}) ||
      !oneOf("strategy", options.strategy, {"auto", "mma_sync", "simt"}))
    return false;
  if (!findTarget(options.chip)) {
    message = unknownTargetMessage(options.chip);
    return false;
  }
  if (options.chunkTokens < 0) {
    message = "chunk-tokens must be >= 0";
    return false;
  }
  return true;
}

bool mlir::fmlp::validateCudaPath(const PipelineOptions &options,
                                  std::string &message) {
  if (llvm::sys::fs::is_directory(options.cudaPath))
    return true;
  message = "cuda-path=" + options.cudaPath +
            " is not a directory: the GPU kernels need the CUDA toolkit (its "
            "libdevice, ptxas)";
  return false;
}

void mlir::fmlp::buildPlanPipeline(OpPassManager &pm,
                                   const PipelineOptions &options) {
  pm.addPass(createRecognizePass());
  // The plan is the blocks' entry points; a whole model's other work stays
  // the caller's (keep-holders=false).
  pm.addPass(createExpandTrainingPass(
      ExpandTrainingPassOptions{options.mode, /*keepHolders=*/false}));
  pm.addPass(createFusePass(
      FusePassOptions{options.save, fp32Format(options.precision)}));
  pm.addPass(createCSEPass());
  pm.addPass(createPlanMemoryPass(PlanMemoryPassOptions{options.chunkTokens}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::fmlp::buildCpuPipeline(OpPassManager &pm) {
  pm.addPass(createConvertFMLPToLinalgPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // bf16 <-> f32 conversions as integer arithmetic (truncation rounds to
  // nearest even): LLVM would otherwise lower them to calls of compiler-rt's
  // __truncsfbf2, which the JIT cannot resolve in a process without it.
  pm.addPass(arith::createArithExpandOpsPass(
      arith::ArithExpandOpsPassOptions{/*includeBf16=*/true}));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::fmlp::buildGpuPipeline(OpPassManager &pm,
                                  const PipelineOptions &options) {
  buildPlanPipeline(pm, options);
  buildGpuStages(pm, options);
}

// For A/B runs on a GPU (bench/compare_bundles.py): the weights that WGMMA
// kernels with fp32 operands read MN-major (the backward's down_grad and
// input_grad) copied once per call into K-major workspaces
// (fmlp-transpose-weights; the rule), or transposed in shared memory by
// each kernel's producer (false). Measured (bench/NOTES.md item 79): the
// tf32 training step 0.92-0.93x the time on the H200, 0.91x on an H100,
// tf32x3's 0.97x on the H100.
static llvm::cl::opt<bool> transposeWeights(
    "fmlp-k-major-weights", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("fp32 WGMMA kernels read K-major copies of the weights "
                   "they would read MN-major (fmlp-transpose-weights)"));

// tf32 WGMMA kernels' operands rounded to nearest (fmlp-round-tf32-weights:
// rounded copies of the weights read K-major, A rounded in registers, the
// transposed tiles as they are moved), as PyTorch's TF32 and fmlp's
// mma_sync kernels round them; else the tensor core truncates them (4.2-
// 4.6x PyTorch TF32's error, bench/NOTES.md item 80; rounded, 1.00-1.01x,
// at 1.03-1.07x the training step's time: item 84). False for A/B runs.
static llvm::cl::opt<bool> roundTf32Operands(
    "fmlp-tf32-round-operands", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("tf32 WGMMA kernels read their operands rounded to "
                   "nearest (fmlp-round-tf32-weights), not truncated"));

void mlir::fmlp::buildGpuLaunchStages(OpPassManager &pm,
                                      const PipelineOptions &options) {
  pm.addPass(createAttachTargetPass(AttachTargetPassOptions{options.chip}));
  if (transposeWeights)
    pm.addPass(createTransposeWeightsPass(
        TransposeWeightsPassOptions{options.strategy}));
  if (roundTf32Operands)
    pm.addPass(createRoundTf32WeightsPass(
        RoundTf32WeightsPassOptions{options.strategy}));
  pm.addPass(createSelectTilesPass(SelectTilesPassOptions{options.strategy}));
  pm.addPass(createConvertFMLPToNVVMPass());
}

void mlir::fmlp::buildGpuStages(OpPassManager &pm,
                                const PipelineOptions &options) {
  buildGpuLaunchStages(pm, options);
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  // NVVM ops that LLVM has no intrinsic for become inline PTX.
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.cudaPath;
  binary.compilationTarget = "isa"; // PTX; fmlp-compile assembles cubins
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

namespace {

/// What a registered pipeline runs when its options are invalid: an error
/// naming the option, and failure (so that fmlp-opt exits non-zero and
/// writes nothing), instead of the passes.
struct InvalidPipelineOptionsPass
    : PassWrapper<InvalidPipelineOptionsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(InvalidPipelineOptionsPass)
  explicit InvalidPipelineOptionsPass(std::string message)
      : message(std::move(message)) {}
  StringRef getArgument() const override {
    return "fmlp-invalid-pipeline-options";
  }
  void runOnOperation() override {
    mlir::emitError(getOperation().getLoc(), message);
    signalPassFailure();
  }
  std::string message;
};

/// `build` unless `options` are invalid for `pipeline` (the GPU pipeline
/// also needs the CUDA toolkit at cuda-path).
void buildChecked(OpPassManager &pm, StringRef pipeline,
                  const PipelineOptions &options, bool needsCuda,
                  function_ref<void(OpPassManager &, const PipelineOptions &)>
                      build) {
  std::string invalid;
  if (validatePipelineOptions(options, invalid) &&
      (!needsCuda || validateCudaPath(options, invalid)))
    return build(pm, options);
  pm.addPass(std::make_unique<InvalidPipelineOptionsPass>(
      (pipeline + ": " + invalid).str()));
}

} // namespace

void mlir::fmlp::registerPipelines() {
  PassPipelineRegistration<PipelineOptions>(
      "fmlp-plan-pipeline",
      "Recognize gated MLP blocks and plan their fused forward and backward "
      "(kernels K1..K6 on caller-provided buffers)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        buildChecked(pm, "fmlp-plan-pipeline", options, /*needsCuda=*/false,
                     buildPlanPipeline);
      });
  PassPipelineRegistration<>(
      "fmlp-cpu-pipeline",
      "Lower a planned module to the LLVM dialect for in-process execution",
      buildCpuPipeline);
  PassPipelineRegistration<PipelineOptions>(
      "fmlp-gpu-pipeline",
      "Recognize, plan and generate the GPU kernels of gated MLP blocks "
      "(PTX in gpu.binary, launches as gpu.launch_func)",
      [](OpPassManager &pm, const PipelineOptions &options) {
        buildChecked(pm, "fmlp-gpu-pipeline", options, /*needsCuda=*/true,
                     buildGpuPipeline);
      });
}
