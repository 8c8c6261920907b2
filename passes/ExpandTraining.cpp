//===- ExpandTraining.cpp - Entry points for each gated MLP block ---------===//
//
// Implements fmlp-expand-training (see Passes.td): each fmlp.gated_mlp gets
// entry-point functions whose bodies hold the block's forward
// (fmlp.gated_mlp) or its vector-Jacobian product (fmlp.gated_mlp_grad).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "fmlp/EntryKind.h"

#include "dialects/FMLP/FMLPOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::fmlp {
#define GEN_PASS_DEF_EXPANDTRAININGPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

namespace {

/// The block's operands, in the order entry points take them: x, the three
/// weights, then the optional operands that are present.
SmallVector<Value> getBlockOperands(GatedMlpOp op) {
  SmallVector<Value> operands = {op.getX(), op.getGate(), op.getUp(),
                                 op.getDown()};
  for (auto [name, operand] : getOptionalOperands(op))
    if (operand)
      operands.push_back(operand);
  return operands;
}

/// The names the block's operands go by in entry points, in the order of
/// getBlockOperands.
SmallVector<StringRef> getBlockOperandNames(GatedMlpOp op) {
  SmallVector<StringRef> names = {"x", "gate", "up", "down"};
  for (auto [name, operand] : getOptionalOperands(op))
    if (operand)
      names.push_back(name);
  return names;
}

/// Creates `@name(operands..., extra...)` holding a copy of the block's
/// attributes on an operation built by `buildBody`, which returns the
/// function's results. Every argument and result is named (`fmlp.name`),
/// the names that bind buffers to entry points from then on.
func::FuncOp
createEntry(OpBuilder &builder, GatedMlpOp block, StringRef name,
            EntryKind kind, TypeRange extraArguments,
            ArrayRef<StringRef> extraArgumentNames,
            ArrayRef<StringRef> resultNames,
            function_ref<SmallVector<Value>(OpBuilder &, ValueRange arguments)>
                buildBody) {
  SmallVector<Value> operands = getBlockOperands(block);
  SmallVector<Type> argumentTypes;
  for (Value operand : operands)
    argumentTypes.push_back(operand.getType());
  llvm::append_range(argumentTypes, extraArguments);
  SmallVector<StringRef> argumentNames = getBlockOperandNames(block);
  llvm::append_range(argumentNames, extraArgumentNames);

  Location loc = block.getLoc();
  auto func = func::FuncOp::create(builder, loc, name,
                                   builder.getFunctionType(argumentTypes, {}));
  func->setAttr("fmlp.entry", builder.getStringAttr(nameOf(kind)));
  Block *body = func.addEntryBlock();
  OpBuilder bodyBuilder = OpBuilder::atBlockEnd(body);
  SmallVector<Value> results = buildBody(bodyBuilder, body->getArguments());
  func::ReturnOp::create(bodyBuilder, loc, results);
  func.setFunctionType(
      builder.getFunctionType(argumentTypes, ValueRange(results).getTypes()));
  auto named = [&](StringRef value) {
    return builder.getDictionaryAttr(
        builder.getNamedAttr("fmlp.name", builder.getStringAttr(value)));
  };
  func.setAllArgAttrs(llvm::map_to_vector(argumentNames, named));
  func.setAllResultAttrs(llvm::map_to_vector(resultNames, named));
  return func;
}

/// An entry point's arguments for the block's operands, position by
/// position (getBlockOperands' order; absent optional operands null). By
/// position, not by value: a block may pass one value as two operands (tied
/// gate and up weights), and each has its own argument.
struct BlockArguments {
  Value x, gate, up, down;
  /// In getOptionalOperands' order.
  SmallVector<Value, 8> optional;
};

BlockArguments getBlockArguments(GatedMlpOp block, ValueRange arguments) {
  BlockArguments args{arguments[0], arguments[1], arguments[2], arguments[3],
                      {}};
  unsigned next = 4;
  for (auto [name, operand] : getOptionalOperands(block))
    args.optional.push_back(operand ? arguments[next++] : Value());
  return args;
}

/// The forward entry: a copy of the block on the entry's arguments.
SmallVector<Value> buildForward(OpBuilder &builder, GatedMlpOp block,
                                ValueRange arguments) {
  BlockArguments args = getBlockArguments(block, arguments);
  auto copy = cast<GatedMlpOp>(builder.clone(*block));
  copy.getXMutable().assign(args.x);
  copy.getGateMutable().assign(args.gate);
  copy.getUpMutable().assign(args.up);
  copy.getDownMutable().assign(args.down);
  MutableOperandRange optional[] = {
      copy.getGateBiasMutable(),  copy.getUpBiasMutable(),
      copy.getDownBiasMutable(),  copy.getLoraAMutable(),
      copy.getGateLoraBMutable(), copy.getUpLoraBMutable(),
      copy.getDownLoraAMutable(), copy.getDownLoraBMutable()};
  for (auto [range, argument] : llvm::zip_equal(optional, args.optional))
    if (argument)
      range.assign(argument);
  return {copy->getResult(0)};
}

/// The backward entry: the block's vector-Jacobian product, dy last.
SmallVector<Value> buildBackward(OpBuilder &builder, GatedMlpOp block,
                                 ValueRange arguments) {
  unsigned numOperands = getBlockOperands(block).size();
  BlockArguments args = getBlockArguments(block, arguments);
  Value dy = arguments[numOperands];
  SmallVector<Type> resultTypes(
      arguments.take_front(numOperands).getTypes());
  ArrayRef<Value> o = args.optional;
  auto grad = GatedMlpGradOp::create(
      builder, block.getLoc(), resultTypes, args.x, args.gate, args.up,
      args.down, dy, o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7],
      block.getActivationAttr(), block.getGateLayoutAttr(),
      block.getUpLayoutAttr(), block.getDownLayoutAttr(),
      block.getGateMultiplierAttr(), block.getDownMultiplierAttr(),
      block.getPrecisionAttr());
  return SmallVector<Value>(grad->getResults());
}

} // namespace

Operation *mlir::fmlp::getBlockHolder(Operation *block) {
  Operation *holder = block->getParentOp();
  while (holder && !isa_and_nonnull<ModuleOp>(holder->getParentOp()))
    holder = holder->getParentOp();
  return holder;
}

SmallVector<GatedMlpOp> mlir::fmlp::getHeldBlocks(Operation *holder) {
  SmallVector<GatedMlpOp> blocks;
  holder->walk([&](GatedMlpOp block) { blocks.push_back(block); });
  return blocks;
}

std::optional<EntryKind> mlir::fmlp::getEntryKind(func::FuncOp func) {
  auto kind = func ? func->getAttrOfType<StringAttr>("fmlp.entry") : nullptr;
  return kind ? entryKindNamed(kind.getValue()) : std::nullopt;
}

std::string mlir::fmlp::getEntryPointPrefix(Operation *block) {
  Operation *holder = getBlockHolder(block);
  SmallVector<GatedMlpOp> blocks = getHeldBlocks(holder);
  auto name = holder->getAttrOfType<StringAttr>(
      SymbolTable::getSymbolAttrName());
  std::string prefix = name ? name.str() : "block";
  if (blocks.size() > 1)
    prefix += ".mlp" + std::to_string(llvm::find(blocks, block) -
                                      blocks.begin());
  return prefix;
}

namespace {

/// True if `holder` is a func.func that holds nothing but gated MLP blocks,
/// views of weights used only by them (the tensor.extract_slice halves of a
/// fused gate_up weight that fmlp-recognize inserts) and its return.
bool holdsOnlyBlocks(Operation *holder) {
  auto func = dyn_cast<func::FuncOp>(holder);
  if (!func)
    return false;
  return llvm::all_of(func.getBody().getOps(), [](Operation &op) {
    if (isa<tensor::ExtractSliceOp>(op))
      return llvm::all_of(op.getUsers(),
                          [](Operation *user) { return isa<GatedMlpOp>(user); });
    return isa<GatedMlpOp, func::ReturnOp>(op);
  });
}

struct ExpandTrainingPass
    : mlir::fmlp::impl::ExpandTrainingPassBase<ExpandTrainingPass> {
  using Base::Base;

  void runOnOperation() override {
    if (mode != "train" && mode != "infer") {
      getOperation().emitError("fmlp-expand-training: mode must be train or "
                               "infer, got '")
          << mode << "'";
      return signalPassFailure();
    }
    ModuleOp module = getOperation();
    // Holders: the operations directly in the module that hold blocks
    // (func.func, or a function of another dialect, e.g. IREE's util.func
    // parsed as an opaque operation).
    SmallVector<Operation *> holders;
    for (Operation &op : module.getBody()->getOperations())
      if (!op.hasAttr("fmlp.entry") && !getHeldBlocks(&op).empty())
        holders.push_back(&op);

    for (Operation *holder : holders) {
      SmallVector<GatedMlpOp> blocks = getHeldBlocks(holder);
      OpBuilder builder(holder);
      for (GatedMlpOp block : blocks) {
        std::string prefix = getEntryPointPrefix(block);
        auto forward = [&](OpBuilder &b, ValueRange arguments) {
          return buildForward(b, block, arguments);
        };
        if (mode == "train") {
          createEntry(builder, block, prefix + ".forward", EntryKind::forward,
                      {}, {},
                      {"y"}, forward);
          // One gradient per operand, in the same order: dx, d_gate, ...
          SmallVector<std::string> gradientNames;
          for (StringRef operand : getBlockOperandNames(block))
            gradientNames.push_back(operand == "x" ? "dx"
                                                   : ("d_" + operand).str());
          createEntry(builder, block, prefix + ".backward",
                      EntryKind::backward,
                      {block.getY().getType()}, {"dy"},
                      SmallVector<StringRef>(gradientNames.begin(),
                                             gradientNames.end()),
                      [&](OpBuilder &b, ValueRange arguments) {
                        return buildBackward(b, block, arguments);
                      });
        }
        createEntry(builder, block, prefix + ".forward_nograd",
                    EntryKind::forward_nograd, {}, {}, {"y"}, forward);
      }
      if (!keepHolders || holdsOnlyBlocks(holder))
        holder->erase();
    }
  }
};

} // namespace
