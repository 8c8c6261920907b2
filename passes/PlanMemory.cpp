//===- PlanMemory.cpp - Buffers for the kernel plan -----------------------===//
//
// Implements fmlp-plan-memory (see Passes.td). Each entry point is rebuilt
// on memrefs. Every tensor of the plan gets a buffer:
//
//   function argument  -> memref argument (saved ones: columns of `saved`)
//   returned value     -> caller-provided output (saved ones: columns)
//   kernel result      -> the buffer of its `outs` operand (so K3's dG, dU
//                         are G's and U's buffers; the A it recomputes
//                         with save=gu, a tensor.empty, is workspace)
//   other tensor.empty -> the next columns of the workspace
//
// (saved and workspace are [T, columns] buffers of column blocks: the
// activations' [T, H] ones first, then the adapters' [T, R] ones.)
//
// then, with chunk-tokens, the kernels of an entry with a workspace run in a
// loop over token chunks.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "fmlp/EntryKind.h"

#include "dialects/FMLP/FMLPOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace mlir::fmlp {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

namespace {

MemRefType toMemRef(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// Where the buffer of a value comes from.
struct OutDestination {
  enum Kind { Output, Saved, Workspace } kind;
  unsigned index; // output number, or saved/workspace column block
};

/// The column blocks of `saved` or of the workspace, [T, width] each, side
/// by side: the activations' ([T, H]: A, G, U, dU) in the order they were
/// given, then the adapters' ([T, R]: Z, Zd, dZ, dZd) in theirs. So the
/// activations sit where they would without adapters (G and U adjacent:
/// the GPU kernels read [dG dU] as one operand). All of one element type.
struct ColumnBlocks {
  SmallVector<int64_t> widths; // in the order given
  SmallVector<bool> adapter;
  Type element;
  unsigned add(int64_t width, bool isAdapter) {
    widths.push_back(width);
    adapter.push_back(isAdapter);
    return widths.size() - 1;
  }
  bool empty() const { return widths.empty(); }
  int64_t offset(unsigned block) const {
    int64_t offset = 0;
    for (unsigned other = 0; other < widths.size(); ++other)
      if (adapter[other] == adapter[block] ? other < block : !adapter[other])
        offset += widths[other];
    return offset;
  }
  /// All columns, or nullopt past int64.
  std::optional<int64_t> total() const {
    std::optional<int64_t> sum = 0;
    for (int64_t width : widths)
      sum = sum ? llvm::checkedAdd(*sum, width) : std::nullopt;
    return sum;
  }
};

/// Whether a saved activation (by its fmlp.saved name) is an adapter's.
bool isAdapterSaved(StringAttr name) {
  return name && (name.getValue() == "z" || name.getValue() == "zd");
}

/// The plan of one entry point, read off its tensor form.
struct EntryPlan {
  /// Positions of the original arguments that are saved activations, with
  /// their column block in `saved`.
  DenseMap<unsigned, unsigned> savedArguments;
  /// For each returned value: its output number, or its saved column block.
  SmallVector<OutDestination> results;
  /// The destination of each kernel out that is a tensor.empty (keyed by
  /// the use: CSE may have merged several outs into one tensor.empty).
  DenseMap<OpOperand *, OutDestination> freshOuts;
  ColumnBlocks saved, workspace;
  unsigned outputs = 0;
};

/// The value `result` is returned as: itself, or an expand_shape of it.
std::optional<unsigned> getReturnIndex(Value result, func::ReturnOp ret) {
  for (auto [index, operand] : llvm::enumerate(ret.getOperands())) {
    if (operand == result)
      return index;
    if (auto expand = operand.getDefiningOp<tensor::ExpandShapeOp>();
        expand && expand.getSrc() == result)
      return index;
  }
  return std::nullopt;
}

/// The plan of `func`, or failure (reported) where its tensors do not fit
/// one: a saved or workspace value that is not [T, columns], or one of
/// another element type than the others.
FailureOr<EntryPlan> planEntry(func::FuncOp func) {
  EntryPlan plan;
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  // Adds `value`'s columns to `blocks`: it must be 2-D, of their element
  // type.
  auto addBlock = [&](ColumnBlocks &blocks, StringRef name, Value value,
                      bool isAdapter, Operation *at) -> FailureOr<unsigned> {
    auto type = cast<ShapedType>(value.getType());
    if (type.getRank() != 2) {
      at->emitError() << "fmlp-plan-memory: a " << name << " value of type "
                      << type << " (" << name
                      << " values are [T, columns], token-major)";
      return failure();
    }
    if (!blocks.element)
      blocks.element = type.getElementType();
    if (blocks.element != type.getElementType()) {
      at->emitError() << "fmlp-plan-memory: " << name << " values of types "
                      << blocks.element << " and " << type.getElementType()
                      << " (one buffer holds them all)";
      return failure();
    }
    return blocks.add(type.getDimSize(1), isAdapter);
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (auto name = func.getArgAttrOfType<StringAttr>(i, "fmlp.saved")) {
      FailureOr<unsigned> block = addBlock(plan.saved, "saved",
                                           func.getArgument(i),
                                           isAdapterSaved(name), func);
      if (failed(block))
        return failure();
      plan.savedArguments[i] = *block;
    }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    if (auto name = func.getResultAttrOfType<StringAttr>(i, "fmlp.saved")) {
      FailureOr<unsigned> block = addBlock(plan.saved, "saved",
                                           ret.getOperand(i),
                                           isAdapterSaved(name), ret);
      if (failed(block))
        return failure();
      plan.results.push_back({OutDestination::Saved, *block});
    } else {
      plan.results.push_back({OutDestination::Output, plan.outputs++});
    }
  }
  WalkResult walk = func.walk([&](DestinationStyleOpInterface kernel) {
    for (OpOperand &init : kernel.getDpsInitsMutable()) {
      if (!init.get().getDefiningOp<tensor::EmptyOp>())
        continue;
      OpResult result = kernel.getTiedOpResult(&init);
      if (std::optional<unsigned> index = getReturnIndex(result, ret)) {
        plan.freshOuts[&init] = plan.results[*index];
        continue;
      }
      // Workspace: the projections' outs here are the adapters' Z, Zd, dZd
      // (fmlp.down) and dZ (fmlp.input_grad); K2's y and K4's dx are
      // returned.
      FailureOr<unsigned> block =
          addBlock(plan.workspace, "workspace", init.get(),
                   isa<DownOp, InputGradOp>(kernel.getOperation()), kernel);
      if (failed(block))
        return WalkResult::interrupt();
      plan.freshOuts[&init] = {OutDestination::Workspace, *block};
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return plan;
}

/// Every extent of the entry point's arguments and of its kernels' operands
/// is at least 1: a static zero-size T, D, H or batch has nothing to
/// compute, and its views and reshapes would not verify. Reported at the
/// first kernel (the block's location).
LogicalResult verifyNoZeroExtents(func::FuncOp func) {
  Operation *firstKernel = nullptr;
  SmallVector<Type> types(func.getArgumentTypes());
  func.walk([&](Operation *op) {
    if (!isKernelOp(op))
      return;
    if (!firstKernel)
      firstKernel = op;
    llvm::append_range(types, op->getOperandTypes());
  });
  for (Type type : types) {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank() ||
        !llvm::is_contained(shaped.getShape(), 0))
      continue;
    (firstKernel ? firstKernel : func.getOperation())->emitError()
        << "fmlp-plan-memory: the block operates on " << type
        << ", which has a zero-size dimension: fmlp plans blocks whose T, "
           "D, H and batch extents are at least 1";
    return failure();
  }
  return success();
}

/// Values written over in place must not be read afterwards: K3's outs G, U.
LogicalResult verifyInPlaceWrites(func::FuncOp func) {
  WalkResult walk = func.walk([&](DownGradOp op) {
    for (Value overwritten : op.getInits().take_front(2))
      for (Operation *user : overwritten.getUsers())
        if (user != op && op->isBeforeInBlock(user)) {
          op.emitOpError("writes dG and dU over G and U, but ")
              << user->getName() << " reads G or U afterwards";
          return WalkResult::interrupt();
        }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Rebuilds `func` on memrefs following `plan`.
class EntryRebuilder {
public:
  EntryRebuilder(func::FuncOp func, const EntryPlan &plan, int64_t chunkTokens)
      : func(func), plan(plan), chunkTokens(chunkTokens),
        builder(func.getContext()) {}

  LogicalResult rebuild() {
    Block &body = func.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    bool backward = getEntryKind(func) == EntryKind::backward;

    // The new signature: inputs, outputs, saved, workspace.
    SmallVector<Type> argumentTypes;
    SmallVector<DictionaryAttr> argumentAttrs;
    SmallVector<unsigned> inputArguments;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      if (plan.savedArguments.count(i))
        continue;
      inputArguments.push_back(i);
      argumentTypes.push_back(toMemRef(func.getArgument(i).getType()));
      argumentAttrs.push_back(named(nameOfArgument(i)));
    }
    SmallVector<unsigned> outputResults;
    for (auto [i, destination] : llvm::enumerate(plan.results))
      if (destination.kind == OutDestination::Output) {
        outputResults.push_back(i);
        argumentTypes.push_back(toMemRef(ret.getOperand(i).getType()));
        argumentAttrs.push_back(named(nameOfResult(i)));
      }
    unsigned savedArgument = argumentTypes.size();
    int64_t tokens = tokenCount();
    if (failed(checkBufferSizes(tokens)))
      return failure();
    if (!plan.saved.empty()) {
      argumentTypes.push_back(MemRefType::get({tokens, *plan.saved.total()},
                                              plan.saved.element));
      SmallVector<NamedAttribute> attrs = {
          builder.getNamedAttr("fmlp.name", builder.getStringAttr("saved")),
          builder.getNamedAttr("fmlp.saved",
                               builder.getStringAttr(savedPolicyName()))};
      if (backward)
        attrs.push_back(
            builder.getNamedAttr("fmlp.consumed", builder.getUnitAttr()));
      argumentAttrs.push_back(builder.getDictionaryAttr(attrs));
    }
    unsigned workspaceArgument = argumentTypes.size();
    bool chunked = chunkTokens > 0 && !plan.workspace.empty();
    if (!plan.workspace.empty()) {
      argumentTypes.push_back(MemRefType::get(
          {chunked ? chunkTokens : tokens, *plan.workspace.total()},
          plan.workspace.element));
      argumentAttrs.push_back(named("workspace"));
    }

    // The new body, in a new block placed before the old one.
    Block *newBody = new Block();
    func.getBody().push_front(newBody);
    for (Type type : argumentTypes)
      newBody->addArgument(type, func.getLoc());
    builder.setInsertionPointToStart(newBody);
    for (auto [index, original] : llvm::enumerate(inputArguments)) {
      Value argument = newBody->getArgument(index);
      mapping[body.getArgument(original)] = argument;
      // x and dy are token-major ([T, D]); the weights are not.
      StringRef name = nameOfArgument(original);
      if ((name == "x" || name == "dy") &&
          cast<MemRefType>(argument.getType()).getRank() == 2)
        tokenMajor.insert(argument);
    }
    Value saved =
        plan.saved.empty() ? Value() : newBody->getArgument(savedArgument);
    Value workspace = plan.workspace.empty()
                          ? Value()
                          : newBody->getArgument(workspaceArgument);
    for (auto [original, block] : plan.savedArguments)
      mapping[body.getArgument(original)] = columns(saved, plan.saved, block);
    for (unsigned index = 0; index < outputResults.size(); ++index)
      outputs[index] = newBody->getArgument(inputArguments.size() + index);

    for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
      if (failed(rebuildOperation(&op, saved, workspace)))
        return failure();
    func::ReturnOp::create(builder, func.getLoc());
    if (chunked)
      chunkKernels();

    body.erase();
    func.setFunctionType(builder.getFunctionType(argumentTypes, {}));
    func.setAllArgAttrs(argumentAttrs);
    func.setAllResultAttrs(ArrayRef<DictionaryAttr>{});
    func->setAttr("fmlp.saved_columns",
                  builder.getI64IntegerAttr(plan.saved.total().value_or(0)));
    func->setAttr(
        "fmlp.workspace_columns",
        builder.getI64IntegerAttr(plan.workspace.total().value_or(0)));
    func->setAttr("fmlp.chunk_tokens",
                  builder.getI64IntegerAttr(chunked ? chunkTokens : 0));
    return success();
  }

private:
  /// saved [T, its blocks' columns] and workspace [T or chunk, its
  /// blocks' columns] must have sizes a memref can hold: columns, and with
  /// static rows their bytes, within int64 (H >= 2^62 would otherwise wrap
  /// to negative extents).
  LogicalResult checkBufferSizes(int64_t tokens) {
    auto check = [&](StringRef name, const ColumnBlocks &blocks,
                     int64_t rows) {
      if (blocks.empty())
        return success();
      int64_t elementBytes =
          std::max<int64_t>(1, blocks.element.getIntOrFloatBitWidth() / 8);
      std::optional<int64_t> columns = blocks.total();
      std::optional<int64_t> bytes =
          columns ? llvm::checkedMul(*columns, elementBytes) : std::nullopt;
      if (bytes && !ShapedType::isDynamic(rows))
        bytes = llvm::checkedMul(*bytes, rows);
      if (bytes)
        return success();
      Operation *kernel = nullptr;
      func.walk([&](Operation *op) {
        if (!kernel && isKernelOp(op))
          kernel = op;
      });
      std::string widths;
      llvm::raw_string_ostream os(widths);
      llvm::interleave(blocks.widths, os, " + ");
      InFlightDiagnostic diagnostic =
          (kernel ? kernel : func.getOperation())->emitError()
          << "fmlp-plan-memory: the " << name << " buffer of "
          << blocks.widths.size() << " column block"
          << (blocks.widths.size() == 1 ? "" : "s") << " (" << widths
          << " columns)";
      if (!ShapedType::isDynamic(rows))
        diagnostic << " and " << rows << " rows";
      diagnostic << " is over 2^63 bytes";
      return failure();
    };
    bool chunked = chunkTokens > 0 && !plan.workspace.empty();
    return success(
        succeeded(check("saved", plan.saved, tokens)) &&
        succeeded(check("workspace", plan.workspace,
                        chunked ? chunkTokens : tokens)));
  }

  DictionaryAttr named(StringRef name) {
    return builder.getDictionaryAttr(
        builder.getNamedAttr("fmlp.name", builder.getStringAttr(name)));
  }

  /// The names fmlp-expand-training gave (x, gate, ..., dy; y, dx, ...).
  StringRef nameOfArgument(unsigned index) {
    auto name = func.getArgAttrOfType<StringAttr>(index, "fmlp.name");
    return name ? name.getValue() : "input";
  }
  StringRef nameOfResult(unsigned index) {
    auto name = func.getResultAttrOfType<StringAttr>(index, "fmlp.name");
    return name ? name.getValue() : "output";
  }

  std::string savedPolicyName() {
    return func->getAttrOfType<StringAttr>("fmlp.save").getValue().str();
  }

  /// T of the plan's 2-D token-major values (dynamic unless x's is static).
  int64_t tokenCount() {
    int64_t tokens = ShapedType::kDynamic;
    func.walk([&](Operation *op) {
      // Every kernel's first operand is token-major but a weight copy's.
      if (isKernelOp(op) && !isWeightCopyOp(op))
        tokens = cast<ShapedType>(op->getOperand(0).getType()).getDimSize(0);
    });
    return tokens;
  }

  /// The columns of column block `block` of `buffer` (laid out as
  /// `blocks`), all rows.
  Value columns(Value buffer, const ColumnBlocks &blocks, unsigned block) {
    Location loc = func.getLoc();
    OpFoldResult rows = memref::getMixedSize(builder, loc, buffer, 0);
    SmallVector<OpFoldResult> offsets = {
        builder.getIndexAttr(0), builder.getIndexAttr(blocks.offset(block))};
    SmallVector<OpFoldResult> sizes = {
        rows, builder.getIndexAttr(blocks.widths[block])};
    SmallVector<OpFoldResult> strides = {builder.getIndexAttr(1),
                                         builder.getIndexAttr(1)};
    Value view = memref::SubViewOp::create(builder, loc, buffer, offsets, sizes,
                                           strides);
    tokenMajor.insert(view);
    return view;
  }

  Value bufferOfFreshOut(OpOperand *init, Value saved, Value workspace) {
    const OutDestination &destination = plan.freshOuts.lookup(init);
    switch (destination.kind) {
    case OutDestination::Saved:
      return columns(saved, plan.saved, destination.index);
    case OutDestination::Workspace: {
      Value view = columns(workspace, plan.workspace, destination.index);
      workspaceViews.insert(view);
      return view;
    }
    case OutDestination::Output: {
      Value output = outputs.lookup(destination.index);
      auto type = cast<MemRefType>(output.getType());
      if (type.getRank() > 2) {
        // x had leading dimensions: the kernel writes the collapsed output.
        output = memref::CollapseShapeOp::create(
            builder, func.getLoc(), output,
            getTokenReassociation(type.getRank()));
      }
      if (!isa<GateUpWeightGradOp, DownWeightGradOp, BiasGradOp>(
              init->getOwner()))
        tokenMajor.insert(output);
      return output;
    }
    }
    llvm_unreachable("unknown destination");
  }

  LogicalResult rebuildOperation(Operation *op, Value saved, Value workspace) {
    Location loc = op->getLoc();
    if (isa<tensor::EmptyOp>(op))
      return success(); // each out it feeds gets its own buffer
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
      Value view = memref::CollapseShapeOp::create(
          builder, loc, mapping.lookup(collapse.getSrc()),
          collapse.getReassociationIndices());
      tokenMajor.insert(view);
      mapping[collapse] = view;
      return success();
    }
    // Outputs are written in place; sizes are read anew from the buffers.
    if (isa<tensor::ExpandShapeOp, tensor::DimOp, arith::ConstantOp>(op))
      return success();
    if (!isKernelOp(op))
      return op->emitOpError("is not part of a kernel plan");
    // Kernels on memrefs have no results; their outs carry what they write.
    OperationState state(loc, op->getName());
    for (OpOperand &operand : op->getOpOperands()) {
      Value buffer = plan.freshOuts.count(&operand)
                         ? bufferOfFreshOut(&operand, saved, workspace)
                         : mapping.lookup(operand.get());
      if (!buffer)
        return op->emitOpError("has an operand without a buffer");
      state.addOperands(buffer);
    }
    state.addAttributes(op->getAttrs());
    Operation *kernel = builder.create(state);
    auto dps = cast<DestinationStyleOpInterface>(op);
    for (OpResult result : op->getResults())
      mapping[result] =
          kernel->getOperand(dps.getTiedOpOperand(result)->getOperandNumber());
    kernels.push_back(kernel);
    return success();
  }

  /// Runs the kernels in a loop over token chunks: token-major buffers are
  /// read by rows [offset, offset + size), the workspace by rows [0, size);
  /// weight gradients accumulate, zeroed before the loop.
  void chunkKernels() {
    Location loc = func.getLoc();
    // The views a kernel reads (columns of saved and workspace, an output's
    // collapse_shape) were built just before it; they depend only on the
    // arguments and on each other, so they all move, in order, before the
    // first kernel, where the loop is built: then they dominate every
    // kernel in its body.
    Operation *first = kernels.front();
    for (Operation &op : llvm::make_early_inc_range(llvm::make_range(
             std::next(first->getIterator()), first->getBlock()->end())))
      if (!llvm::is_contained(kernels, &op) &&
          !op.hasTrait<OpTrait::IsTerminator>())
        op.moveBefore(first);
    builder.setInsertionPoint(first);
    // T: the rows of a [T, n] view (x, or saved columns), which dominates
    // here now; not of its root, whose dim 0 is a batch for x : [B, S, D].
    // (Every entry point has one: x or dy is read by a kernel.)
    Value anyTokenMajor;
    for (Operation *kernel : kernels)
      for (Value operand : kernel->getOperands())
        if (!anyTokenMajor && tokenMajor.contains(operand))
          anyTokenMajor = operand;
    Value tokens = memref::DimOp::create(builder, loc, anyTokenMajor, 0);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value step = arith::ConstantIndexOp::create(builder, loc, chunkTokens);
    for (Operation *kernel : kernels)
      if (isa<GateUpWeightGradOp, DownWeightGradOp, BiasGradOp>(kernel)) {
        for (Value out :
             cast<DestinationStyleOpInterface>(kernel).getDpsInits()) {
          Type element = getElementTypeOrSelf(out.getType());
          Value zeroValue = arith::ConstantOp::create(
              builder, loc, builder.getZeroAttr(element));
          linalg::FillOp::create(builder, loc, zeroValue, out);
        }
        kernel->setAttr("accumulate", builder.getUnitAttr());
      }
    auto loop = scf::ForOp::create(builder, loc, zero, tokens, step);
    builder.setInsertionPointToStart(loop.getBody());
    Value offset = loop.getInductionVar();
    Value remaining = arith::SubIOp::create(builder, loc, tokens, offset);
    Value size = arith::MinUIOp::create(builder, loc, remaining, step);
    for (Operation *kernel : kernels) {
      kernel->moveBefore(loop.getBody()->getTerminator());
      builder.setInsertionPoint(kernel);
      for (OpOperand &operand : kernel->getOpOperands()) {
        Value value = operand.get();
        if (workspaceViews.contains(value))
          operand.set(rows(value, zero, size));
        else if (tokenMajor.contains(value))
          operand.set(rows(value, offset, size));
      }
    }
  }

  Value rows(Value buffer, Value offset, Value size) {
    Location loc = func.getLoc();
    SmallVector<OpFoldResult> offsets = {offset, builder.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {
        size, memref::getMixedSize(builder, loc, buffer, 1)};
    SmallVector<OpFoldResult> strides = {builder.getIndexAttr(1),
                                         builder.getIndexAttr(1)};
    return memref::SubViewOp::create(builder, loc, buffer, offsets, sizes,
                                     strides);
  }

  func::FuncOp func;
  const EntryPlan &plan;
  int64_t chunkTokens;
  OpBuilder builder;
  DenseMap<Value, Value> mapping;
  DenseMap<unsigned, Value> outputs; // by output number
  llvm::DenseSet<Value> tokenMajor, workspaceViews;
  SmallVector<Operation *> kernels;
};

struct PlanMemoryPass : mlir::fmlp::impl::PlanMemoryPassBase<PlanMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    if (chunkTokens < 0) {
      getOperation().emitError("fmlp-plan-memory: chunk-tokens must be >= 0");
      return signalPassFailure();
    }
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>()) {
      if (!func->hasAttr("fmlp.entry"))
        continue;
      // An entry point on buffers was planned already (a second plan
      // pipeline over the first one's output).
      if (llvm::any_of(func.getArgumentTypes(), llvm::IsaPred<MemRefType>)) {
        func.emitError() << "fmlp-plan-memory: entry point @"
                         << func.getSymName()
                         << " takes buffers already: the module is planned "
                            "(run the plan pipeline once)";
        return signalPassFailure();
      }
      if (failed(verifyNoZeroExtents(func)) ||
          failed(verifyInPlaceWrites(func)))
        return signalPassFailure();
      FailureOr<EntryPlan> plan = planEntry(func);
      if (failed(plan) ||
          failed(EntryRebuilder(func, *plan, chunkTokens).rebuild()))
        return signalPassFailure();
    }
  }
};

} // namespace
