//===- PlanSummary.cpp - What a planned module asks of its caller ---------===//

#include "lib/Pipeline/PlanSummary.h"

#include "passes/ViewOffset.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

/// Each argument's minTokens: the least fmlp.min_tokens (1 when absent) of
/// the launches with an operand viewing it, as the runtime derives it from
/// the manifest; left at 1 where the entry point launches no kernel.
void markLaunchUses(func::FuncOp func, EntryPoint &entry) {
  bool launches = false;
  DenseMap<unsigned, int64_t> fewest;
  func.walk([&](gpu::LaunchFuncOp launch) {
    launches = true;
    // As the bundle writer reads it (a signless or index integer, at
    // least 1; it refuses any other).
    auto min = launch->getAttrOfType<IntegerAttr>("fmlp.min_tokens");
    int64_t tokens = 1;
    if (min && (min.getType().isIndex() || min.getType().isSignlessInteger()))
      tokens = std::max<int64_t>(min.getInt(), 1);
    for (Value operand : launch.getKernelOperands())
      if (auto argument = dyn_cast<BlockArgument>(viewRoot(operand));
          argument && argument.getOwner()->getParentOp() == func) {
        auto [at, inserted] =
            fewest.try_emplace(argument.getArgNumber(), tokens);
        if (!inserted)
          at->second = std::min(at->second, tokens);
      }
  });
  if (!launches)
    return;
  // Arguments are read only from memref-typed ones, in order.
  unsigned index = 0;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (isa<MemRefType>(func.getArgument(i).getType()))
      entry.arguments[index++].minTokens =
          fewest.lookup_or(i, std::numeric_limits<int64_t>::max());
}

} // namespace

std::vector<EntryPoint> mlir::fmlp::readEntryPoints(ModuleOp module) {
  std::vector<EntryPoint> entries;
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    auto kindName = func->getAttrOfType<StringAttr>("fmlp.entry");
    std::optional<EntryKind> kind =
        kindName ? entryKindNamed(kindName.getValue()) : std::nullopt;
    if (!kind)
      continue;
    EntryPoint entry;
    entry.symbol = func.getSymName().str();
    entry.kind = *kind;
    auto attribute = [&](StringRef name) {
      auto value = func->getAttrOfType<IntegerAttr>(name);
      return value ? value.getInt() : 0;
    };
    entry.savedColumns = attribute("fmlp.saved_columns");
    entry.workspaceColumns = attribute("fmlp.workspace_columns");
    entry.chunkTokens = attribute("fmlp.chunk_tokens");
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto type = dyn_cast<MemRefType>(func.getArgument(i).getType());
      if (!type)
        continue; // not planned yet
      auto name = func.getArgAttrOfType<StringAttr>(i, "fmlp.name");
      EntryArgument argument;
      argument.name = name ? name.getValue().str() : "?";
      for (int64_t extent : type.getShape())
        argument.shape.push_back(ShapedType::isDynamic(extent) ? -1 : extent);
      argument.elementBytes = type.getElementTypeBitWidth() / 8;
      argument.workspace = isWorkspaceArgument(func, i, argument.name);
      entry.arguments.push_back(std::move(argument));
    }
    markLaunchUses(func, entry);
    entries.push_back(std::move(entry));
  }
  return entries;
}

bool mlir::fmlp::isWorkspaceArgument(func::FuncOp func, unsigned index,
                                     StringRef name) {
  return name == "workspace" || func.getArgAttr(index, "fmlp.workspace");
}

std::optional<TokenDomain>
mlir::fmlp::getTokenDomain(const std::vector<EntryPoint> &entries,
                           std::string &error) {
  TokenDomain domain;
  for (const EntryPoint &entry : entries)
    for (const EntryArgument &argument : entry.arguments) {
      if (argument.name != "x" || argument.shape.empty())
        continue;
      bool dynamic = false;
      for (size_t i = 0; i + 1 < argument.shape.size(); ++i) {
        if (argument.shape[i] < 0) {
          dynamic = true;
          continue;
        }
        std::optional<int64_t> product =
            llvm::checkedMul(domain.multiple, argument.shape[i]);
        if (!product) {
          error = entry.symbol + ": x's leading extents overflow int64";
          return std::nullopt;
        }
        domain.multiple = *product;
      }
      if (!dynamic)
        domain.staticTokens = domain.multiple;
      return domain;
    }
  return domain;
}

bool mlir::fmlp::checkTokens(const TokenDomain &domain, int64_t tokens,
                             std::string &error) {
  if (domain.staticTokens && tokens != *domain.staticTokens) {
    error = "the block's x has a static T = " +
            std::to_string(*domain.staticTokens) + " tokens; it cannot run T = " +
            std::to_string(tokens) + " (give --tokens=" +
            std::to_string(*domain.staticTokens) +
            ", or a dynamic T in the IR)";
    return false;
  }
  if (domain.multiple > 1 && tokens % domain.multiple != 0) {
    error = "the block's x has static leading extents of " +
            std::to_string(domain.multiple) + " tokens; T = " +
            std::to_string(tokens) + " is not a multiple of it";
    return false;
  }
  return true;
}

std::string mlir::fmlp::describeShape(const EntryArgument &argument) {
  std::string text = "[";
  bool first = true, dynamic = false;
  for (int64_t extent : argument.shape) {
    text += first ? "" : ", ";
    text += extent >= 0 ? std::to_string(extent) : dynamic ? "1" : "T";
    dynamic |= extent < 0;
    first = false;
  }
  return text + "]";
}

std::optional<std::vector<int64_t>>
mlir::fmlp::resolveShape(const EntryArgument &argument, int64_t tokens) {
  std::vector<int64_t> shape = argument.shape;
  int64_t leading = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) {
    if (shape[i] <= 0)
      continue;
    std::optional<int64_t> product = llvm::checkedMul(leading, shape[i]);
    if (!product)
      return std::nullopt;
    leading = *product;
  }
  // T is the product of the dynamic extents (the kernels see T rows): the
  // first takes what the static ones leave, any later one 1.
  int64_t elements = 1;
  bool first = true;
  for (int64_t &extent : shape) {
    if (extent < 0) {
      extent = !first ? 1 : leading > 0 ? tokens / leading : 0;
      first = false;
    }
    std::optional<int64_t> product = llvm::checkedMul(elements, extent);
    if (!product)
      return std::nullopt;
    elements = *product;
  }
  return shape;
}

std::optional<MemoryReport>
mlir::fmlp::computeMemoryReport(const std::vector<EntryPoint> &entries,
                                int64_t tokens, std::string &error) {
  MemoryReport report;
  report.tokens = tokens;
  // Bytes of the entry's arguments that `counts` (0 if none does).
  auto bytesOf = [&](const EntryPoint &entry,
                     llvm::function_ref<bool(const EntryArgument &)> counts)
      -> std::optional<int64_t> {
    int64_t total = 0;
    for (const EntryArgument &argument : entry.arguments) {
      if (!counts(argument) ||
          (argument.workspace && tokens < argument.minTokens))
        continue;
      std::optional<std::vector<int64_t>> shape =
          resolveShape(argument, tokens);
      std::optional<int64_t> bytes = argument.elementBytes;
      for (int64_t extent : shape.value_or(std::vector<int64_t>{}))
        bytes = bytes ? llvm::checkedMul(*bytes, extent) : std::nullopt;
      std::optional<int64_t> sum =
          bytes ? llvm::checkedAdd(total, *bytes) : std::nullopt;
      if (!shape || !sum) {
        error = llvm::formatv("{0}: the {1} buffer for T = {2} is over "
                              "2^63 bytes",
                              entry.symbol, argument.name, tokens)
                    .str();
        return std::nullopt;
      }
      total = *sum;
      if (argument.workspace && argument.name != "workspace" &&
          !llvm::is_contained(report.kernelScratch, argument.name))
        report.kernelScratch.push_back(argument.name);
    }
    return total;
  };
  auto isWorkspace = [](const EntryArgument &a) { return a.workspace; };
  auto isSaved = [](const EntryArgument &a) { return a.name == "saved"; };
  for (const EntryPoint &entry : entries) {
    std::optional<int64_t> workspace = bytesOf(entry, isWorkspace);
    if (!workspace)
      return std::nullopt;
    if (entry.kind == EntryKind::forward) {
      std::optional<int64_t> saved = bytesOf(entry, isSaved);
      if (!saved)
        return std::nullopt;
      report.savedBytes = *saved;
      report.forwardWorkspaceBytes = *workspace;
    } else if (entry.kind == EntryKind::backward) {
      report.backwardWorkspaceBytes = *workspace;
    } else if (entry.kind == EntryKind::forward_nograd) {
      report.nogradWorkspaceBytes = *workspace;
    }
  }
  std::optional<int64_t> trainingPeak = llvm::checkedAdd(
      report.savedBytes,
      std::max(report.forwardWorkspaceBytes, report.backwardWorkspaceBytes));
  if (!trainingPeak) {
    error = llvm::formatv("the training peak for T = {0} is over 2^63 bytes",
                          tokens)
                .str();
    return std::nullopt;
  }
  report.trainingPeakBytes = *trainingPeak;
  report.inferencePeakBytes = report.nogradWorkspaceBytes;
  return report;
}

void mlir::fmlp::printMemoryReport(const MemoryReport &report,
                                   llvm::raw_ostream &os) {
  auto line = [&](StringRef what, int64_t bytes) {
    os << llvm::formatv("  {0,-20} {1:N} B ({2:f1} MiB)\n", what, bytes,
                        bytes / (1024.0 * 1024.0));
  };
  line("saved for backward", report.savedBytes);
  line("workspace forward", report.forwardWorkspaceBytes);
  line("workspace backward", report.backwardWorkspaceBytes);
  line("workspace no-grad", report.nogradWorkspaceBytes);
  line("peak, training step", report.trainingPeakBytes);
  line("peak, inference", report.inferencePeakBytes);
  if (!report.kernelScratch.empty()) {
    os << "  (the workspaces count the GPU kernels' own: ";
    llvm::interleaveComma(report.kernelScratch, os);
    os << ")\n";
  }
}

llvm::json::Object mlir::fmlp::memoryReportToJson(const MemoryReport &report) {
  return llvm::json::Object{
      {"tokens", report.tokens},
      {"saved_bytes", report.savedBytes},
      {"forward_workspace_bytes", report.forwardWorkspaceBytes},
      {"backward_workspace_bytes", report.backwardWorkspaceBytes},
      {"nograd_workspace_bytes", report.nogradWorkspaceBytes},
      {"training_peak_bytes", report.trainingPeakBytes},
      {"inference_peak_bytes", report.inferencePeakBytes}};
}
