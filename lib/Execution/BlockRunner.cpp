//===- BlockRunner.cpp - Compile a gated MLP block and run it on the CPU --===//

#include "lib/Execution/BlockRunner.h"

#include "fmlp/InitAll.h"

#include "dialects/FMLP/FMLPOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>
#include <numeric>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

/// The block an entry point belongs to: its symbol less the kind
/// ("mlp.forward" -> "mlp").
StringRef blockOf(const EntryPoint &entry) {
  return StringRef(entry.symbol).rsplit('.').first;
}

/// Keeps the entry points of the block `wanted` names (any, when the
/// module holds one), erasing the other blocks' functions; false, with
/// `error`, when there is no such block or the choice is ambiguous.
bool selectBlock(ModuleOp module, std::vector<EntryPoint> &entries,
                 StringRef wanted, std::string &error) {
  llvm::SetVector<StringRef> blocks;
  for (const EntryPoint &entry : entries)
    blocks.insert(blockOf(entry));
  std::string names;
  llvm::raw_string_ostream(names)
      << llvm::join(blocks.begin(), blocks.end(), ", ");
  if (wanted.empty() && blocks.size() > 1) {
    error += "the module holds " + std::to_string(blocks.size()) +
             " gated MLP blocks (" + names + "): choose one with --block\n";
    return false;
  }
  if (!wanted.empty() && !blocks.contains(wanted)) {
    error += "no gated MLP block named '" + wanted.str() + "' (the module "
             "holds " + names + ")\n";
    return false;
  }
  StringRef chosen = wanted.empty() ? blocks.front() : wanted;
  std::string kept = chosen.str();
  llvm::erase_if(entries,
                 [&](const EntryPoint &entry) { return blockOf(entry) != kept; });
  for (func::FuncOp func :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (func->hasAttr("fmlp.entry") &&
        StringRef(func.getSymName()).rsplit('.').first != kept)
      func.erase();
  return true;
}

} // namespace

std::unique_ptr<BlockRunner>
BlockRunner::compile(const Source &source, const PipelineOptions &options,
                     std::string &error, PlanCheck checkPlan) {
  auto runner = std::unique_ptr<BlockRunner>(new BlockRunner());
  MLIRContext &context = runner->context;
  DialectRegistry registry;
  registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  // Every error about the IR says where: file:line:col where the op's
  // location has them, else the file.
  std::string file = source.name + ": ";
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
      return success();
    if (auto at = diagnostic.getLocation()->findInstanceOf<FileLineColLoc>())
      error += llvm::formatv("{0}:{1}:{2}: ", at.getFilename(), at.getLine(),
                             at.getColumn())
                   .str();
    else
      error += file;
    error += diagnostic.str() + "\n";
    return success();
  });
  if (!validatePipelineOptions(options, error))
    return nullptr;

  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source.text, ParserConfig(&context),
                                  source.name);
  if (!module)
    return nullptr;
  PassManager plan(&context);
  buildPlanPipeline(plan, options);
  if (failed(plan.run(*module)))
    return nullptr;
  runner->entries = readEntryPoints(*module);
  if (runner->entries.empty()) {
    error += file + "no gated MLP block found\n";
    return nullptr;
  }
  std::string selection;
  if (!selectBlock(*module, runner->entries, source.block, selection)) {
    error += file + selection;
    return nullptr;
  }
  llvm::raw_string_ostream os(runner->plannedIR);
  module->print(os);
  // The host check sizes every tensor by one element type (the gate
  // weight's): a block whose tensors mix types (an f32 x with 16-bit
  // weights, which the dialect allows) is refused, not misread.
  WalkResult mixed = module->walk([&](Operation *op) {
    if (!isa<GateUpOp, DownOp>(op))
      return WalkResult::advance();
    Type first;
    for (Value operand : op->getOperands()) {
      auto type = dyn_cast<MemRefType>(operand.getType());
      if (!type)
        continue;
      if (!first)
        first = type.getElementType();
      if (type.getElementType() != first) {
        op->emitError() << "fmlp-run checks blocks whose tensors share one "
                           "element type; this one mixes "
                        << first << " and " << type.getElementType();
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (mixed.wasInterrupted())
    return nullptr;
  BlockDescription &block = runner->block;
  module->walk([&](GateUpOp op) {
    auto gate = cast<MemRefType>(op.getGate().getType());
    Type element = gate.getElementType();
    block.element = element.isBF16()  ? HostElement::BF16
                    : element.isF16() ? HostElement::F16
                                      : HostElement::F32;
    block.activation = stringifyActivation(op.getActivation()).str();
    if (auto multiplier = op.getGateMultiplier())
      block.gateMultiplier = multiplier->convertToDouble();
    block.gateInOut = op.getGateLayout() == WeightLayout::in_out;
    block.gateBias = static_cast<bool>(op.getGateBias());
    block.upBias = static_cast<bool>(op.getUpBias());
    block.upInOut = op.getUpLayout() == WeightLayout::in_out;
    ProjectionExtents extents =
        getProjectionExtents(op.getGateLayout(), gate.getShape());
    block.model = extents.in;
    block.hidden = extents.out;
  });
  // Columns of an adapter term's token-major operand: its rank.
  auto rankOf = [](Value adapterInput) {
    return adapterInput
               ? cast<MemRefType>(adapterInput.getType()).getDimSize(1)
               : int64_t(0);
  };
  module->walk([&](GateUpOp op) { block.loraRank = rankOf(op.getLoraZ()); });
  // K2 is the projection that reads the down weight (the adapters' own
  // projections are fmlp.down ops too).
  module->walk([&](DownOp op) {
    auto weight = dyn_cast<BlockArgument>(op.getDown());
    auto entry = weight ? dyn_cast<func::FuncOp>(weight.getOwner()->getParentOp())
                        : nullptr;
    auto name = entry ? entry.getArgAttrOfType<StringAttr>(weight.getArgNumber(),
                                                           "fmlp.name")
                      : nullptr;
    if (!name || name.getValue() != "down")
      return;
    if (auto multiplier = op.getDownMultiplier())
      block.downMultiplier = multiplier->convertToDouble();
    block.downInOut = op.getDownLayout() == WeightLayout::in_out;
    block.downBias = static_cast<bool>(op.getDownBias());
    block.downLoraRank = rankOf(op.getLoraZ());
  });

  std::string refused;
  if (checkPlan && !checkPlan(*runner, refused)) {
    error += file + refused;
    return nullptr;
  }

  // Only the block's entry points run here; the rest of the program that
  // held the block (say, a residual add around it) is not compiled.
  for (func::FuncOp func :
       llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (!func->hasAttr("fmlp.entry"))
      func.erase();

  PassManager lower(&context);
  buildCpuPipeline(lower);
  if (failed(lower.run(*module)))
    return nullptr;
  runner->module = CpuModule::compile(*module, error);
  if (!runner->module)
    return nullptr;
  return runner;
}

const EntryPoint *BlockRunner::findEntry(EntryKind kind) const {
  for (const EntryPoint &entry : entries)
    if (entry.kind == kind)
      return &entry;
  return nullptr;
}

bool BlockRunner::run(EntryKind kind, int64_t tokens,
                      std::map<std::string, HostTensor *> &tensors,
                      std::string &error) {
  std::string name(nameOf(kind));
  const EntryPoint *entry = findEntry(kind);
  if (!entry) {
    error = "the module has no " + name + " entry point";
    return false;
  }
  std::unique_ptr<HostTensor> workspace;
  std::vector<HostTensor *> arguments;
  for (const EntryArgument &argument : entry->arguments) {
    // The dynamic extent holds what T leaves after the static leading ones.
    std::optional<std::vector<int64_t>> resolved =
        resolveShape(argument, tokens);
    if (!resolved) {
      error = name + ": " + argument.name + " for T = " +
              std::to_string(tokens) + " has over 2^63 elements";
      return false;
    }
    std::vector<int64_t> shape = std::move(*resolved);
    if (argument.name == "workspace") {
      workspace = std::make_unique<HostTensor>(block.element, shape);
      workspace->poison();
      arguments.push_back(workspace.get());
      continue;
    }
    auto found = tensors.find(argument.name);
    if (found == tensors.end()) {
      error = name + " needs a buffer named " + argument.name;
      return false;
    }
    HostTensor *tensor = found->second;
    if (tensor->rows() * tensor->cols() !=
            std::accumulate(shape.begin(), shape.end(), int64_t(1),
                            std::multiplies<int64_t>()) ||
        tensor->cols() != shape.back()) {
      error = name + ": " + argument.name + " holds [" +
              std::to_string(tensor->rows()) + ", " +
              std::to_string(tensor->cols()) + "], which does not fit the " +
              std::to_string(shape.size()) + "-D argument";
      return false;
    }
    tensor->reshape(shape);
    arguments.push_back(tensor);
  }
  return module->call(entry->symbol, arguments, error);
}
