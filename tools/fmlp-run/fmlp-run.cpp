//===- fmlp-run.cpp - Compile a gated MLP block and run it on the CPU -----===//
//
// Compiles an .mlir file's gated MLP block through the same pipeline as
// fmlp-compile (options --mode, --save, --chunk-tokens, --precision), runs
// its entry points in-process on random inputs of --tokens tokens, and
// judges every output against a float64 reference by the error-bound
// method. Prints the plan, the memory report and a table of worst
// error/bound ratios; exits 1 if any output fails its bound.
//
// --tokens is checked before anything runs: at least 1 on the command line,
// a T the block takes (its static T, or a multiple of a batch) once it is
// planned, and host memory for the run (the buffers and the float64
// reference, counted with checked arithmetic) within --max-host-memory.
// Running out of memory anyway is an error message, exit 1.
//
//===----------------------------------------------------------------------===//

#include "lib/Execution/BlockRunner.h"
#include "lib/Execution/NumericalCheck.h"
#include "lib/Pipeline/PlanSummary.h"
#include "tools/common/PipelineFlags.h"
#include "tools/common/ToolOptions.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <unistd.h>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<input .mlir>"),
                                         llvm::cl::Required,
                                         llvm::cl::cat(getToolCategory()));
llvm::cl::opt<int64_t>
    tokens("tokens", llvm::cl::desc("Tokens T to run"), llvm::cl::init(37),
           llvm::cl::cat(getToolCategory()));
llvm::cl::opt<uint64_t> seed("seed", llvm::cl::desc("Seed of the inputs"),
                             llvm::cl::init(1),
                             llvm::cl::cat(getToolCategory()));
llvm::cl::opt<std::string>
    blockName("block",
              llvm::cl::desc("The block to check where the module holds "
                             "several: the function it was recognized in "
                             "(default: the only one)"),
              llvm::cl::cat(getToolCategory()));
llvm::cl::opt<bool> printPlan("print-plan",
                              llvm::cl::desc("Print the planned IR"),
                              llvm::cl::init(false),
                              llvm::cl::cat(getToolCategory()));
llvm::cl::opt<int64_t> maxHostMemory(
    "max-host-memory",
    llvm::cl::desc("Refuse a run that needs more host memory than this, in "
                   "bytes (0: the machine's physical memory)"),
    llvm::cl::init(0), llvm::cl::cat(getToolCategory()));

constexpr llvm::StringLiteral kTool = "fmlp-run";

/// Host bytes a check of T tokens holds at once, about (elt: the block's
/// element bytes): the buffers in the element type (x, y, dy, dx, y_nograd:
/// 5 T D; weights and their gradients: 6 D H) plus saved and workspace as
/// planned, and the float64 reference (inputs, exact tensors, bounds and
/// the bound computation's temporaries: at most 24 T H, 8 T D and 12 D H
/// doubles alive at once). Nullopt when the count overflows int64.
std::optional<int64_t> estimateHostBytes(const BlockDescription &block,
                                         const MemoryReport &memory,
                                         int64_t tokens) {
  int64_t element = block.element == HostElement::F32 ? 4 : 2;
  std::optional<int64_t> total = 0;
  // total += factor x a x b, checked.
  auto add = [&](int64_t factor, int64_t a, int64_t b) {
    std::optional<int64_t> term = llvm::checkedMul(factor, a);
    term = term ? llvm::checkedMul(*term, b) : std::nullopt;
    total = total && term ? llvm::checkedAdd(*total, *term) : std::nullopt;
  };
  int64_t d = block.model, h = block.hidden;
  add(5 * element + 8 * 8, tokens, d);
  add(24 * 8, tokens, h);
  add(6 * element + 12 * 8, d, h);
  add(1, 1, memory.savedBytes);
  add(1, 1,
      std::max({memory.forwardWorkspaceBytes, memory.backwardWorkspaceBytes,
                memory.nogradWorkspaceBytes}));
  return total;
}

int64_t physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageBytes = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageBytes <= 0)
    return std::numeric_limits<int64_t>::max();
  return llvm::checkedMul<int64_t>(pages, pageBytes)
      .value_or(std::numeric_limits<int64_t>::max());
}

/// Whether the planned block can run --tokens: a T it takes, its buffers
/// sized without overflow, and within the host memory limit.
bool checkRun(const BlockRunner &planned, std::string &error) {
  const std::vector<EntryPoint> &entries = planned.getEntryPoints();
  std::optional<TokenDomain> domain = getTokenDomain(entries, error);
  if (!domain || !checkTokens(*domain, tokens, error))
    return false;
  std::optional<MemoryReport> memory =
      computeMemoryReport(entries, tokens, error);
  if (!memory)
    return false;
  int64_t limit = maxHostMemory ? maxHostMemory.getValue()
                                : physicalMemoryBytes();
  std::optional<int64_t> needed =
      estimateHostBytes(planned.getBlock(), *memory, tokens);
  if (!needed || *needed > limit) {
    error = llvm::formatv("T = {0} needs {1} of host memory (buffers and the "
                          "float64 reference), over the limit of {2:N} B "
                          "(--max-host-memory, default: physical memory)",
                          tokens.getValue(),
                          needed ? llvm::formatv("about {0:N} B", *needed).str()
                                 : std::string("over 2^63 B"),
                          limit)
                .str();
    return false;
  }
  return true;
}

/// Allocation failure (operator new, through LLVM's handler) ends the run
/// with a message instead of an abort.
void reportOutOfMemory(void *, const char *reason, bool) {
  llvm::outs().flush();
  toolError(kTool) << "out of host memory (" << reason << ") running T = "
                   << tokens.getValue()
                   << " tokens: lower --tokens, or set --max-host-memory to what the machine can spare\n";
  std::_Exit(1);
}

void printEntryPoints(const std::vector<EntryPoint> &entries) {
  llvm::outs() << "plan:\n";
  for (const EntryPoint &entry : entries) {
    llvm::outs() << "  " << entry.symbol << "(";
    llvm::interleaveComma(entry.arguments, llvm::outs(),
                          [](const EntryArgument &argument) {
                            llvm::outs() << argument.name
                                         << describeShape(argument);
                          });
    llvm::outs() << ")\n";
  }
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::install_bad_alloc_error_handler(reportOutOfMemory);
  PipelineFlags flags;
  setVersionPrinter(kTool);
  hideUnrelatedOptions(/*keepMlirDebugging=*/false);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "fmlp-run: compile a gated MLP block and check it on the CPU\n");
  if (!checkMinimum(tokens, 1) || !checkMinimum(maxHostMemory, 0) ||
      !checkMinimum(flags.chunkTokens, 0))
    return 1;

  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputFilename);
  if (!buffer) {
    toolError(kTool) << "cannot read " << inputFilename << ": "
                     << buffer.getError().message() << "\n";
    return 1;
  }
  PipelineOptions options;
  flags.fill(options);
  std::string error;
  BlockRunner::Source source{(*buffer)->getBuffer().str(), inputFilename,
                             blockName};
  std::unique_ptr<BlockRunner> runner =
      BlockRunner::compile(source, options, error, checkRun);
  if (!runner) {
    toolError(kTool) << error;
    if (!StringRef(error).ends_with("\n"))
      llvm::errs() << "\n";
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

  // Checked by checkRun before the block was lowered.
  MemoryReport memory =
      *computeMemoryReport(runner->getEntryPoints(), tokens, error);
  llvm::outs() << "memory at T = " << tokens
               << ", beyond inputs, weights and outputs:\n";
  printMemoryReport(memory, llvm::outs());

  CheckOptions check;
  check.tokens = tokens;
  check.seed = seed;
  check.train = options.mode == "train";
  CheckReport report;
  if (!checkBlock(*runner, check, report, error)) {
    toolError(kTool) << error << "\n";
    return 1;
  }
  llvm::outs() << "check against float64 (worst |error| / bound, pass <= 1):\n";
  for (const OutputCheck &output : report.outputs)
    llvm::outs() << llvm::formatv(
        "  {0,-14} {1,10:e2}  {2}\n", output.name, output.comparison.worstRatio,
        output.comparison.passed()
            ? "pass"
            : (output.comparison.nonFinite ? "FAIL (NaN or inf)" : "FAIL"));
  llvm::outs() << (report.passed() ? "all outputs within their bounds\n"
                                   : "some outputs exceed their bounds\n");
  return report.passed() ? 0 : 1;
}
