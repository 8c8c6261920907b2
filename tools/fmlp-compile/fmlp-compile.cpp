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
// --chunk-tokens, --precision, --chip), and it takes fmlp-opt's MLIR
// debugging flags (--mlir-timing, --mlir-print-ir-after-all, ...).
//
// Exit status 0 means every requested output was written; anything else
// (no block found, a failed stage, an error diagnostic from any pass) exits
// 1 with an `error:` line and leaves no output behind: a bundle is written
// into a temporary directory beside -o and renamed into place at the end.
//
//===----------------------------------------------------------------------===//

#include "fmlp/InitAll.h"
#include "fmlp/Pipeline.h"
#include "lib/Pipeline/Bundle.h"
#include "lib/Pipeline/PlanSummary.h"
#include "tools/common/PipelineFlags.h"
#include "tools/common/ToolOptions.h"

#include "dialects/FMLP/FMLPOps.h"
#include "passes/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

enum class EmitKind { None, Mlir, GpuMlir, Bundle };

llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<input .mlir>"),
                                         llvm::cl::init("-"),
                                         llvm::cl::cat(getToolCategory()));
llvm::cl::opt<std::string> outputFilename("o", llvm::cl::desc("Output file"),
                                          llvm::cl::value_desc("filename"),
                                          llvm::cl::init("-"),
                                          llvm::cl::cat(getToolCategory()));
llvm::cl::opt<EmitKind> emit(
    "emit",
    llvm::cl::desc("What to write to -o (a -o name ending in .bundle means "
                   "bundle)"),
    llvm::cl::values(clEnumValN(EmitKind::None, "none", "nothing (default)"),
                     clEnumValN(EmitKind::Mlir, "mlir",
                                "the IR after fmlp's plan pipeline"),
                     clEnumValN(EmitKind::GpuMlir, "gpu-mlir",
                                "the IR after fmlp's GPU pipeline"),
                     clEnumValN(EmitKind::Bundle, "bundle",
                                "a kernel bundle (a directory)")),
    llvm::cl::init(EmitKind::None), llvm::cl::cat(getToolCategory()));
llvm::cl::opt<bool>
    report("report",
           llvm::cl::desc("Describe each gated MLP block and its memory plan"),
           llvm::cl::init(true), llvm::cl::cat(getToolCategory()));
enum class ReportFormat { Text, Json };
llvm::cl::opt<ReportFormat> reportFormat(
    "report-format",
    llvm::cl::desc("How --report writes: text (each block and its memory "
                   "plan), or json (only the memory plan, as one JSON "
                   "object on stdout: mode, save, chunk_tokens and the "
                   "sizes in bytes at T)"),
    llvm::cl::values(clEnumValN(ReportFormat::Text, "text", "for people"),
                     clEnumValN(ReportFormat::Json, "json", "for programs")),
    llvm::cl::init(ReportFormat::Text), llvm::cl::cat(getToolCategory()));
llvm::cl::opt<bool> checkResources(
    "check-resources",
    llvm::cl::desc(
        "Fail when ptxas reports a spill, a stack frame, shared "
        "memory over the chip's limit or a WGMMA pipeline changed by ptxas"),
    llvm::cl::init(true), llvm::cl::cat(getToolCategory()));
llvm::cl::opt<int64_t>
    tokens("tokens",
           llvm::cl::desc("Tokens T of the memory report (default 4096, or "
                          "the block's T when the IR fixes it)"),
           llvm::cl::init(4096), llvm::cl::cat(getToolCategory()));

llvm::cl::opt<bool> allowUnregisteredDialect(
    "allow-unregistered-dialect",
    llvm::cl::desc("Accept operations of dialects fmlp does not know, in "
                   "generic form, as opaque (as fmlp-opt's flag of this "
                   "name): e.g. IREE's util and hal ops around the linalg "
                   "body, printed by iree-compile --mlir-print-op-generic"),
    llvm::cl::init(false), llvm::cl::cat(getToolCategory()));

constexpr llvm::StringLiteral kTool = "fmlp-compile";

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

/// Describes the block; fails, saying which, when one of its counts
/// overflows int64.
LogicalResult describeBlock(GatedMlpOp op, unsigned index,
                            llvm::raw_ostream &os) {
  BlockShape shape = op.getBlockShape();
  auto xType = cast<RankedTensorType>(op.getX().getType());
  Type elementType = xType.getElementType();
  unsigned elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  // BlockShape's counts are 3 D H, 6 D H and 18 D H: they are read only
  // once 18 D H x bytes is known to fit in int64.
  std::optional<int64_t> dh =
      llvm::checkedMul(shape.modelWidth, shape.hiddenWidth);
  std::optional<int64_t> largest =
      dh ? llvm::checkedMul(*dh, int64_t(18) * std::max(elementBytes, 1u))
         : std::nullopt;
  if (!largest) {
    toolError(kTool) << "block " << index << " at "
                     << formatLocation(op.getLoc()) << ": D = "
                     << shape.modelWidth << ", H = " << shape.hiddenWidth
                     << ": its parameter bytes or flop per token (18 D H) "
                        "overflow int64\n";
    return failure();
  }
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
  return success();
}

void describeMemory(const MemoryReport &memory, const PipelineOptions &options,
                    llvm::raw_ostream &os) {
  os << "memory plan (mode=" << options.mode << ", save=" << options.save
     << ", chunk-tokens=" << options.chunkTokens << ") at T = " << memory.tokens
     << ", beyond inputs, weights and outputs:\n";
  printMemoryReport(memory, os);
}

/// The T of the memory report: --tokens, or the block's own when its IR
/// fixes T (and --tokens was not given); fails, saying why, when --tokens
/// is one the block cannot take.
std::optional<int64_t> chooseReportTokens(const std::vector<EntryPoint> &entries,
                                          std::string &error) {
  std::optional<TokenDomain> domain = getTokenDomain(entries, error);
  if (!domain)
    return std::nullopt;
  if (tokens.getNumOccurrences() == 0) {
    if (domain->staticTokens)
      return *domain->staticTokens;
    // The default, rounded up to what a batched x takes.
    int64_t multiple = domain->multiple;
    return (tokens + multiple - 1) / multiple * multiple;
  }
  if (!checkTokens(*domain, tokens, error))
    return std::nullopt;
  return tokens.getValue();
}

/// Says why no block was found: the recognizer once more, on a copy, with a
/// remark at each contraction it leaves unfused.
void explainMisses(ModuleOp module) {
  MLIRContext *context = module.getContext();
  OwningOpRef<ModuleOp> copy = module.clone();
  unsigned remarks = 0;
  ScopedDiagnosticHandler count(context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Remark)
      ++remarks;
    return failure(); // and let the tool's handler print it
  });
  PassManager explain(context);
  explain.addPass(createRecognizePass(RecognizePassOptions{
      /*explainMisses=*/true}));
  (void)explain.run(*copy);
  toolError(kTool) << "no gated MLP block found in " << inputFilename
                   << (remarks ? ": the remarks above say why each "
                                 "contraction was not fused"
                               : ": it has no contraction (matmul) to fuse")
                   << "\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAllPasses();
  // fmlp-opt's MLIR debugging flags, applied to every pass manager below.
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerDefaultTimingManagerCLOptions();
  PipelineFlags flags;
  setVersionPrinter(kTool);
  hideUnrelatedOptions(/*keepMlirDebugging=*/true);
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "fmlp-compile: compile gated MLP blocks\n");
  if (!checkMinimum(tokens, 1) || !checkMinimum(flags.chunkTokens, 0))
    return 1;

  // What goes to -o, decided before any work.
  EmitKind kind = emit;
  bool outputGiven = outputFilename.getNumOccurrences() > 0;
  if (emit.getNumOccurrences() == 0 && outputGiven) {
    if (!StringRef(outputFilename).ends_with(".bundle")) {
      toolError(kTool) << "-o " << outputFilename
                       << ": say what to write there with --emit=bundle, "
                          "--emit=mlir or --emit=gpu-mlir (a name ending in "
                          ".bundle means --emit=bundle)\n";
      return 1;
    }
    kind = EmitKind::Bundle;
  }
  if (kind == EmitKind::None && outputGiven) {
    toolError(kTool) << "-o " << outputFilename
                     << " with --emit=none: nothing would be written there\n";
    return 1;
  }
  if (kind == EmitKind::Bundle && outputFilename == "-") {
    toolError(kTool) << "a bundle is a directory: give -o\n";
    return 1;
  }
  if (report && reportFormat == ReportFormat::Json &&
      (kind == EmitKind::Mlir || kind == EmitKind::GpuMlir) &&
      outputFilename == "-") {
    toolError(kTool) << "--report-format=json and the IR would both go to "
                        "stdout: give -o a file (or --report=false)\n";
    return 1;
  }

  PipelineOptions options;
  flags.fill(options);
  std::string invalid;
  if (!validatePipelineOptions(options, invalid)) {
    toolError(kTool) << invalid << "\n";
    return 1;
  }

  if ((kind == EmitKind::GpuMlir || kind == EmitKind::Bundle) &&
      !validateCudaPath(options, invalid)) {
    toolError(kTool) << "--" << invalid << "\n";
    return 1;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.allowUnregisteredDialects(allowUnregisteredDialect);
  // An error names its operation's location; the operation itself (for a
  // GPU stage, megabytes of IR) is printed only when asked for.
  llvm::cl::Option *printOp =
      llvm::cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic");
  if (!printOp || printOp->getNumOccurrences() == 0)
    context.printOpOnDiagnostic(false);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    toolError(kTool) << errorMessage << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  // A pass that reports an error without failing still fails the run: no
  // output is written after an error diagnostic.
  bool errorReported = false;
  ScopedDiagnosticHandler watchErrors(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
      errorReported = true;
    return failure(); // printed by `diagnostics`
  });
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope rootTiming = timing.getRootScope();
  // Runs `build`'s passes on `target` under the MLIR debugging flags.
  auto runPasses = [&](ModuleOp target,
                       llvm::function_ref<void(PassManager &)> build) {
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(rootTiming);
    build(pm);
    return success(succeeded(pm.run(target)) && !errorReported);
  };

  // The blocks as recognized, before they become kernels.
  OwningOpRef<ModuleOp> recognized = module->clone();
  if (failed(runPasses(*recognized, [](PassManager &pm) {
        pm.addPass(createRecognizePass());
      })))
    return 1;
  SmallVector<GatedMlpOp> blocks;
  recognized->walk([&](GatedMlpOp op) { blocks.push_back(op); });
  if (blocks.empty()) {
    explainMisses(*module);
    return 1;
  }
  // A JSON report is the only thing on stdout.
  bool json = report && reportFormat == ReportFormat::Json;
  bool textReport = report && !json;
  if (textReport)
    for (auto [index, block] : llvm::enumerate(blocks))
      if (failed(describeBlock(block, index + 1, llvm::outs())))
        return 1;

  if (failed(runPasses(*module, [&](PassManager &pm) {
        buildPlanPipeline(pm, options);
      })))
    return 1;
  // The GPU pipeline's stages after the plan (buildGpuPipeline = plan +
  // these), so the plan is not run twice.
  bool toKernels = kind == EmitKind::GpuMlir || kind == EmitKind::Bundle;
  if (toKernels && failed(runPasses(*module, [&](PassManager &pm) {
        buildGpuStages(pm, options);
      })))
    return 1;
  if (report) {
    // What the bundle's entry points take: the plan's buffers and the GPU
    // kernels' own workspaces (split-K partials, the weights' copies), from
    // the module's GPU stages or, where the output stops at the plan, from
    // a copy taken as far as the launches.
    // A plan the GPU kernels refuse (a static T in chunks) is reported as
    // planned, saying why (its errors are the bundle's to print).
    OwningOpRef<ModuleOp> launched;
    std::string notLaunched;
    if (!toKernels) {
      launched = module->clone();
      ScopedDiagnosticHandler quiet(&context, [&](Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
            notLaunched.empty())
          notLaunched = diagnostic.str();
        return success();
      });
      PassManager pm(&context);
      buildGpuLaunchStages(pm, options);
      if (failed(pm.run(*launched)))
        launched = nullptr;
      else
        notLaunched.clear();
    }
    std::vector<EntryPoint> entries =
        readEntryPoints(launched ? *launched : *module);
    std::string error;
    std::optional<int64_t> reportTokens = chooseReportTokens(entries, error);
    std::optional<MemoryReport> memory =
        reportTokens ? computeMemoryReport(entries, *reportTokens, error)
                     : std::nullopt;
    if (!memory) {
      toolError(kTool) << error << "\n";
      return 1;
    }
    if (json) {
      llvm::json::Object object = memoryReportToJson(*memory);
      object["mode"] = std::string(options.mode);
      object["save"] = std::string(options.save);
      object["chunk_tokens"] = static_cast<int64_t>(options.chunkTokens);
      llvm::outs() << llvm::json::Value(std::move(object)) << "\n";
    } else {
      describeMemory(*memory, options, llvm::outs());
      if (!notLaunched.empty())
        llvm::outs() << "  (the plan's buffers alone: no GPU bundle can be "
                        "made of it: "
                     << notLaunched << ")\n";
    }
  }
  if (kind == EmitKind::Bundle) {
    BundleOptions bundleOptions;
    bundleOptions.chip = options.chip;
    bundleOptions.cudaPath = options.cudaPath;
    bundleOptions.checkResources = checkResources;
    std::string error;
    if (failed(writeBundle(*module, outputFilename, bundleOptions,
                           textReport ? llvm::outs() : llvm::nulls(),
                           error))) {
      toolError(kTool) << error << "\n";
      return 1;
    }
    if (textReport)
      llvm::outs() << "wrote " << outputFilename << " (chip " << options.chip
                   << ")\n";
    return 0;
  }
  if (kind == EmitKind::Mlir || kind == EmitKind::GpuMlir) {
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFilename, &errorMessage);
    if (!output) {
      toolError(kTool) << errorMessage << "\n";
      return 1;
    }
    module->print(output->os());
    output->os() << "\n";
    output->keep();
  }
  return 0;
}
