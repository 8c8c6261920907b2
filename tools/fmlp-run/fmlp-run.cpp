//===- fmlp-run.cpp - Compile a gated MLP block and run it on the CPU -----===//
//
// Compiles an .mlir file's gated MLP block through the same pipeline as
// fmlp-compile (options --mode, --save, --chunk-tokens, --precision), runs
// its entry points in-process on random inputs of --tokens tokens, and
// judges every output against a float64 reference by the error-bound
// method. Prints the plan, the memory report and a table of worst
// error/bound ratios; exits 1 if any output fails its bound.
//
//===----------------------------------------------------------------------===//

#include "lib/Execution/BlockRunner.h"
#include "lib/Execution/NumericalCheck.h"
#include "lib/Pipeline/PlanSummary.h"
#include "tools/common/PipelineFlags.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fmlp;

namespace {

llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<input .mlir>"),
                                         llvm::cl::Required);
llvm::cl::opt<int64_t> tokens("tokens", llvm::cl::desc("Tokens T to run"),
                              llvm::cl::init(37));
llvm::cl::opt<uint64_t> seed("seed", llvm::cl::desc("Seed of the inputs"),
                             llvm::cl::init(1));
llvm::cl::opt<bool> printPlan("print-plan",
                              llvm::cl::desc("Print the planned IR"),
                              llvm::cl::init(false));

void printEntryPoints(const std::vector<EntryPoint> &entries) {
  llvm::outs() << "plan:\n";
  for (const EntryPoint &entry : entries) {
    llvm::outs() << "  " << entry.symbol << "(";
    llvm::interleaveComma(entry.arguments, llvm::outs(),
                          [](const EntryArgument &argument) {
                            llvm::outs() << argument.name << "[";
                            llvm::interleaveComma(argument.shape, llvm::outs(),
                                                  [](int64_t extent) {
                                                    if (extent < 0)
                                                      llvm::outs() << "T";
                                                    else
                                                      llvm::outs() << extent;
                                                  });
                            llvm::outs() << "]";
                          });
    llvm::outs() << ")\n";
  }
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  PipelineFlags flags;
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "fmlp-run: compile a gated MLP block and check it on the CPU\n");

  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFilename);
  if (!buffer) {
    llvm::errs() << "fmlp-run: cannot read " << inputFilename << ": "
                 << buffer.getError().message() << "\n";
    return 1;
  }
  PipelineOptions options;
  flags.fill(options);
  std::string error;
  std::unique_ptr<BlockRunner> runner =
      BlockRunner::compile((*buffer)->getBuffer().str(), options, error);
  if (!runner) {
    llvm::errs() << "fmlp-run: " << inputFilename << ": " << error;
    return 1;
  }
  if (printPlan)
    llvm::outs() << runner->getPlannedIR() << "\n";

  const BlockDescription &block = runner->getBlock();
  llvm::outs() << "block: " << block.activation << ", D = " << block.model
               << ", H = " << block.hidden << "; mode=" << options.mode
               << " save=" << options.save
               << " chunk-tokens=" << options.chunkTokens << "\n";
  printEntryPoints(runner->getEntryPoints());

  MemoryReport memory = computeMemoryReport(runner->getEntryPoints(), tokens);
  llvm::outs() << "memory at T = " << tokens
               << ", beyond inputs, weights and outputs:\n";
  printMemoryReport(memory, llvm::outs());

  CheckOptions check;
  check.tokens = tokens;
  check.seed = seed;
  check.train = options.mode == "train";
  CheckReport report;
  if (!checkBlock(*runner, check, report, error)) {
    llvm::errs() << "fmlp-run: " << error << "\n";
    return 1;
  }
  llvm::outs() << "check against float64 (worst |error| / bound, pass <= 1):\n";
  for (const OutputCheck &output : report.outputs)
    llvm::outs() << llvm::formatv(
        "  {0,-12} {1,10:e2}  {2}\n", output.name, output.comparison.worstRatio,
        output.comparison.passed()
            ? "pass"
            : (output.comparison.nonFinite ? "FAIL (NaN or inf)" : "FAIL"));
  llvm::outs() << (report.passed() ? "all outputs within their bounds\n"
                                   : "some outputs exceed their bounds\n");
  return report.passed() ? 0 : 1;
}
