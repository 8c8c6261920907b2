//===- PlanSummary.cpp - What a planned module asks of its caller ---------===//

#include "lib/Pipeline/PlanSummary.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fmlp;

std::vector<EntryPoint> mlir::fmlp::readEntryPoints(ModuleOp module) {
  std::vector<EntryPoint> entries;
  for (func::FuncOp func : module.getOps<func::FuncOp>()) {
    auto kind = func->getAttrOfType<StringAttr>("fmlp.entry");
    if (!kind)
      continue;
    EntryPoint entry;
    entry.symbol = func.getSymName().str();
    entry.kind = kind.getValue().str();
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
      entry.elementBytes = type.getElementTypeBitWidth() / 8;
      auto name = func.getArgAttrOfType<StringAttr>(i, "fmlp.name");
      std::vector<int64_t> shape;
      for (int64_t extent : type.getShape())
        shape.push_back(ShapedType::isDynamic(extent) ? -1 : extent);
      entry.arguments.push_back({name ? name.getValue().str() : "?", shape});
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

MemoryReport
mlir::fmlp::computeMemoryReport(const std::vector<EntryPoint> &entries,
                                int64_t tokens) {
  MemoryReport report;
  report.tokens = tokens;
  for (const EntryPoint &entry : entries) {
    int64_t rows =
        entry.chunkTokens > 0 ? std::min(entry.chunkTokens, tokens) : tokens;
    int64_t workspace = rows * entry.workspaceColumns * entry.elementBytes;
    if (entry.kind == "forward") {
      report.savedBytes = tokens * entry.savedColumns * entry.elementBytes;
      report.forwardWorkspaceBytes = workspace;
    } else if (entry.kind == "backward") {
      report.backwardWorkspaceBytes = workspace;
    } else if (entry.kind == "forward_nograd") {
      report.nogradWorkspaceBytes = workspace;
    }
  }
  report.trainingPeakBytes =
      report.savedBytes +
      std::max(report.forwardWorkspaceBytes, report.backwardWorkspaceBytes);
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
}
