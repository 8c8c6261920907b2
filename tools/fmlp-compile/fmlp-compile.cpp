//===- fmlp-compile.cpp - fmlp's compiler driver --------------------------===//
//
// Reads a .mlir file (linalg, TOSA or fmlp ops), runs fmlp's pipeline on it
// and reports each gated MLP block it found (activation, widths, element
// type, weight layouts, size and work per token) and the memory its plan
// needs for --tokens tokens. It writes to -o:
//   --emit=bundle  (the default when -o ends in .bundle) the kernel bundle:
//                  GPU kernels for --chip, the launch plan (lib/Pipeline/
//                  Bundle.h), cubins checked for spills by ptxas -v;
//   --emit=gpu-mlir the IR after `fmlp-opt --fmlp-gpu-pipeline`;
//   --emit=mlir    the IR after `fmlp-opt --fmlp-plan-pipeline`.
//
// The pipelines are fmlp-opt's with the same options (--mode, --save,
// --chunk-tokens, --precision, --chip).
//
//===----------------------------------------------------------------------===//

#include "fmlp/InitAll.h"
#include "fmlp/Pipeline.h"
#include "lib/Pipeline/Bundle.h"
#include "lib/Pipeline/PlanSummary.h"
#include "tools/common/PipelineFlags.h"

#include "dialects/FMLP/FMLPOps.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::fmlp;

namespace {

enum class EmitKind { None, Mlir, GpuMlir, Bundle };

llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<input .mlir>"),
                                         llvm::cl::init("-"));
llvm::cl::opt<std::string> outputFilename("o", llvm::cl::desc("Output file"),
                                          llvm::cl::value_desc("filename"),
                                          llvm::cl::init("-"));
llvm::cl::opt<EmitKind> emit(
    "emit", llvm::cl::desc("What to write to -o"),
    llvm::cl::values(clEnumValN(EmitKind::None, "none", "nothing (default)"),
                     clEnumValN(EmitKind::Mlir, "mlir",
                                "the IR after fmlp's plan pipeline"),
                     clEnumValN(EmitKind::GpuMlir, "gpu-mlir",
                                "the IR after fmlp's GPU pipeline"),
                     clEnumValN(EmitKind::Bundle, "bundle",
                                "a kernel bundle (a directory)")),
    llvm::cl::init(EmitKind::None));
llvm::cl::opt<bool>
    report("report",
           llvm::cl::desc("Describe each gated MLP block and its memory plan"),
           llvm::cl::init(true));
llvm::cl::opt<bool> checkResources(
    "check-resources",
    llvm::cl::desc(
        "Fail when ptxas reports a spill, a stack frame, shared "
        "memory over the chip's limit or a WGMMA pipeline changed by ptxas"),
    llvm::cl::init(true));
llvm::cl::opt<int64_t> tokens("tokens",
                              llvm::cl::desc("Tokens T of the memory report"),
                              llvm::cl::init(4096));

/// `file:line:col` of the block's down projection (the last location the
/// recognizer fused), or the location as MLIR prints it.
std::string formatLocation(Location loc) {
  if (auto fused = dyn_cast<FusedLoc>(loc))
    loc = fused.getLocations().back();
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}", fileLoc.getFilename().getValue(),
                         fileLoc.getLine(), fileLoc.getColumn())
        .str();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << loc;
  return text;
}

void describeBlock(GatedMlpOp op, unsigned index, llvm::raw_ostream &os) {
  BlockShape shape = op.getBlockShape();
  auto xType = cast<RankedTensorType>(op.getX().getType());
  Type elementType = xType.getElementType();
  unsigned elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  auto weight = [](Value value, WeightLayout layout) {
    auto type = cast<RankedTensorType>(value.getType());
    return llvm::formatv("[{0}, {1}] {2}", type.getDimSize(0),
                         type.getDimSize(1), stringifyWeightLayout(layout))
        .str();
  };
  os << "block " << index << " at " << formatLocation(op.getLoc())
     << " -> entry points @" << getEntryPointPrefix(op) << ".*\n";
  os << "  activation     " << stringifyActivation(op.getActivation());
  if (auto multiplier = op.getGateMultiplier())
    os << ", gate multiplier " << multiplier->convertToDouble();
  if (auto multiplier = op.getDownMultiplier())
    os << ", down multiplier " << multiplier->convertToDouble();
  os << "\n  widths         D = " << shape.modelWidth
     << ", H = " << shape.hiddenWidth << ", x of type " << xType << "\n";
  os << "  weights        gate " << weight(op.getGate(), op.getGateLayout())
     << ", up " << weight(op.getUp(), op.getUpLayout()) << ", down "
     << weight(op.getDown(), op.getDownLayout()) << "\n";
  os << "  biases         " << (op.getGateBias() ? "gate " : "")
     << (op.getUpBias() ? "up " : "") << (op.getDownBias() ? "down " : "")
     << (op.getGateBias() || op.getUpBias() || op.getDownBias() ? "" : "none")
     << "\n";
  os << "  parameters     " << llvm::formatv("{0:N}", shape.getWeightCount())
     << " ("
     << llvm::formatv("{0:f1}",
                      shape.getWeightCount() * elementBytes / (1024.0 * 1024.0))
     << " MiB as " << elementType << ")\n";
  os << "  flop per token "
     << llvm::formatv("{0:N}", shape.getForwardFlopsPerToken()) << " forward, "
     << llvm::formatv("{0:N}", shape.getTrainingFlopsPerToken())
     << " training step\n";
}

void describeMemory(const MemoryReport &memory, const PipelineOptions &options,
                    llvm::raw_ostream &os) {
  os << "memory plan (mode=" << options.mode << ", save=" << options.save
     << ", chunk-tokens=" << options.chunkTokens << ") at T = " << memory.tokens
     << ", beyond inputs, weights and outputs:\n";
  printMemoryReport(memory, os);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAllPasses();
  PipelineFlags flags;
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "fmlp-compile: compile gated MLP blocks\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << "fmlp-compile: " << errorMessage << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  PipelineOptions options;
  flags.fill(options);
  std::string invalid;
  if (!validatePipelineOptions(options, invalid)) {
    llvm::errs() << "fmlp-compile: " << invalid << "\n";
    return 1;
  }

  if (report) {
    // The blocks as recognized, before they become kernels.
    OwningOpRef<ModuleOp> recognized = module->clone();
    PassManager recognize(&context);
    recognize.addPass(createRecognizePass());
    if (failed(recognize.run(*recognized)))
      return 1;
    unsigned index = 0;
    recognized->walk(
        [&](GatedMlpOp op) { describeBlock(op, ++index, llvm::outs()); });
    if (index == 0)
      llvm::outs() << "no gated MLP block found in " << inputFilename << "\n";
  }

  EmitKind kind = emit;
  if (kind == EmitKind::None && emit.getNumOccurrences() == 0 &&
      StringRef(outputFilename).ends_with(".bundle"))
    kind = EmitKind::Bundle;

  PassManager pm(&context);
  buildPlanPipeline(pm, options);
  if (failed(pm.run(*module)))
    return 1;
  if (report) {
    std::vector<EntryPoint> entries = readEntryPoints(*module);
    if (!entries.empty())
      describeMemory(computeMemoryReport(entries, tokens), options,
                     llvm::outs());
  }
  if (kind == EmitKind::GpuMlir || kind == EmitKind::Bundle) {
    // The GPU pipeline's stages after the plan (buildGpuPipeline = plan +
    // these), so the plan is not run twice.
    PassManager gpu(&context);
    buildGpuStages(gpu, options);
    if (failed(gpu.run(*module)))
      return 1;
  }
  if (kind == EmitKind::Bundle) {
    if (outputFilename == "-") {
      llvm::errs() << "fmlp-compile: a bundle is a directory: give -o\n";
      return 1;
    }
    BundleOptions bundleOptions;
    bundleOptions.chip = options.chip;
    bundleOptions.cudaPath = options.cudaPath;
    bundleOptions.checkResources = checkResources;
    std::string error;
    if (failed(writeBundle(*module, outputFilename, bundleOptions,
                           report ? llvm::outs() : llvm::nulls(), error))) {
      llvm::errs() << "fmlp-compile: " << error << "\n";
      return 1;
    }
    if (report)
      llvm::outs() << "wrote " << outputFilename << " (chip " << options.chip
                   << ")\n";
    if (options.precision != "highest")
      llvm::errs() << "fmlp-compile: note: precision=" << options.precision
                   << " asks for tf32 products; fp32 kernels are generated as "
                      "IEEE fp32 (the tf32 paths do not exist yet), which is "
                      "at least as accurate\n";
    return 0;
  }
  if (kind == EmitKind::Mlir || kind == EmitKind::GpuMlir) {
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFilename, &errorMessage);
    if (!output) {
      llvm::errs() << "fmlp-compile: " << errorMessage << "\n";
      return 1;
    }
    module->print(output->os());
    output->os() << "\n";
    output->keep();
  }
  return 0;
}
