//===- Fuse.cpp - The fused kernel plan of each entry point ---------------===//
//
// Implements fmlp-fuse (see Passes.td): each entry point's fmlp.gated_mlp or
// fmlp.gated_mlp_grad becomes the kernels K1..K6 on 2-D token-major tensors
// ([T, D] with T = the product of x's leading dimensions), and the forward
// and backward agree on what is saved between them.
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
#define GEN_PASS_DEF_FUSEPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

namespace {

/// What the forward saves for the backward (Passes.td, fmlp-fuse).
enum class SavePolicy { AGU, GU, U, X };

std::optional<SavePolicy> parseSavePolicy(StringRef text) {
  return llvm::StringSwitch<std::optional<SavePolicy>>(text)
      .Case("agu", SavePolicy::AGU)
      .Case("gu", SavePolicy::GU)
      .Case("u", SavePolicy::U)
      .Case("x", SavePolicy::X)
      .Default(std::nullopt);
}

/// Builds kernels for one block, on 2-D token-major values.
class PlanBuilder {
public:
  template <typename BlockOp>
  PlanBuilder(OpBuilder &builder, BlockOp block)
      : builder(builder), loc(block.getLoc()),
        activation(block.getActivationAttr()),
        gateLayout(block.getGateLayoutAttr()),
        upLayout(block.getUpLayoutAttr()),
        downLayout(block.getDownLayoutAttr()),
        gateMultiplier(block.getGateMultiplierAttr()),
        downMultiplier(block.getDownMultiplierAttr()),
        precision(block.getPrecisionAttr()), gateBias(block.getGateBias()), upBias(block.getUpBias()),
        downBias(block.getDownBias()),
        hiddenWidth(block.getBlockShape().hiddenWidth) {}

  /// x [..., T, D] as [T, D].
  Value collapseTokens(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() == 2)
      return value;
    return tensor::CollapseShapeOp::create(
        builder, loc, value, getTokenReassociation(type.getRank()));
  }

  /// [T, D] back to the shape of `like`, [..., T, D].
  Value expandTokens(Value value, Value like) {
    auto type = cast<RankedTensorType>(like.getType());
    if (type.getRank() == 2)
      return value;
    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0; i < type.getRank(); ++i)
      sizes.push_back(tensor::getMixedSize(builder, loc, like, i));
    return tensor::ExpandShapeOp::create(builder, loc, type, value,
                                         getTokenReassociation(type.getRank()),
                                         sizes);
  }

  /// An empty [T, columns] tensor with `tokens`' T and element type.
  Value emptyTokenMajor(Value tokens, int64_t columns) {
    auto type = cast<RankedTensorType>(tokens.getType());
    SmallVector<OpFoldResult> sizes = {
        tensor::getMixedSize(builder, loc, tokens, 0),
        builder.getIndexAttr(columns)};
    return tensor::EmptyOp::create(builder, loc, sizes, type.getElementType());
  }

  Value emptyLike(Value weight) {
    auto type = cast<RankedTensorType>(weight.getType());
    return tensor::EmptyOp::create(builder, loc, type.getShape(),
                                   type.getElementType());
  }

  /// K1: A only (nograd) or A, G, U.
  SmallVector<Value> gateUp(Value x, Value gate, Value up, bool keepGU) {
    SmallVector<Value> inits = {emptyTokenMajor(x, hiddenWidth)};
    if (keepGU) {
      inits.push_back(emptyTokenMajor(x, hiddenWidth));
      inits.push_back(emptyTokenMajor(x, hiddenWidth));
    }
    auto op = GateUpOp::create(builder, loc, ValueRange(inits).getTypes(), x,
                               gate, up, gateBias, upBias, inits, activation,
                               gateLayout, upLayout, gateMultiplier, precision);
    return SmallVector<Value>(op->getResults());
  }

  /// K2.
  Value down(Value a, Value down, Value x) {
    Value init =
        emptyTokenMajor(x, cast<ShapedType>(x.getType()).getDimSize(1));
    return DownOp::create(builder, loc, TypeRange{init.getType()}, a, down,
                          downBias, ValueRange{init}, downLayout,
                          downMultiplier, precision)
        ->getResult(0);
  }

  /// G alone (save=u's backward): K1's gate projection.
  Value gateAlone(Value x, Value gate) {
    Value init = emptyTokenMajor(x, hiddenWidth);
    return GateOp::create(builder, loc, TypeRange{init.getType()}, x, gate,
                          gateBias, ValueRange{init}, gateLayout,
                          gateMultiplier, precision)
        ->getResult(0);
  }

  /// Where K3 writes dG, dU and, when A is not saved, A: dG and dU over G
  /// and U, A into a buffer of its own.
  SmallVector<Value> overGU(Value g, Value u, bool recomputeA) {
    SmallVector<Value> inits = {g, u};
    if (recomputeA)
      inits.push_back(emptyTokenMajor(g, hiddenWidth));
    return inits;
  }

  /// Where save=u's K3 writes: dG over the recomputed G, dU into a buffer
  /// of its own placed after it (K4 and K5 read [dG dU] as one operand),
  /// A over the saved U (each element after K3 has read it).
  SmallVector<Value> overGThenU(Value g, Value u) {
    return {g, emptyTokenMajor(g, hiddenWidth), u};
  }

  /// K3, K6, K4, K5 over G and U, writing dG, dU (and A, when it was not
  /// saved, for K6) into `inits` (overGU, overGThenU).
  SmallVector<Value> backward(Value x, Value gate, Value up, Value down,
                              Value dy, Value savedA, Value g, Value u,
                              ValueRange inits) {
    assert((inits.size() == 3) == !savedA &&
           "K3 stores A exactly when it was not saved");
    auto grads = DownGradOp::create(builder, loc, ValueRange(inits).getTypes(),
                                    dy, down, g, u, inits, activation,
                                    downLayout, gateMultiplier, downMultiplier,
                                    precision);
    Value dg = grads->getResult(0), du = grads->getResult(1);
    Value a = savedA ? savedA : grads->getResult(2);
    Value dDownInit = emptyLike(down);
    auto dDown = DownWeightGradOp::create(
        builder, loc, TypeRange{dDownInit.getType()}, dy, a,
        ValueRange{dDownInit}, downLayout, downMultiplier,
        /*accumulate=*/nullptr, precision);
    Value dxInit =
        emptyTokenMajor(dy, cast<ShapedType>(dy.getType()).getDimSize(1));
    auto dx =
        InputGradOp::create(builder, loc, TypeRange{dxInit.getType()}, dg, du,
                            gate, up, ValueRange{dxInit}, gateLayout, upLayout,
                            precision);
    Value dGateInit = emptyLike(gate), dUpInit = emptyLike(up);
    auto dWeights = GateUpWeightGradOp::create(
        builder, loc, TypeRange{dGateInit.getType(), dUpInit.getType()}, x, dg,
        du, ValueRange{dGateInit, dUpInit}, gateLayout, upLayout,
        /*accumulate=*/nullptr, precision);
    SmallVector<Value> results = {dx->getResult(0), dWeights->getResult(0),
                                  dWeights->getResult(1), dDown->getResult(0)};
    // Bias gradients, in the order gate, up, down: sums over the tokens.
    if (gateBias)
      results.push_back(biasGradient(dg, gateBias, FloatAttr()));
    if (upBias)
      results.push_back(biasGradient(du, upBias, FloatAttr()));
    if (downBias)
      results.push_back(biasGradient(dy, downBias, downMultiplier));
    return results;
  }

  Value biasGradient(Value grad, Value bias, FloatAttr scale) {
    Value init = emptyLike(bias);
    return BiasGradOp::create(builder, loc, TypeRange{init.getType()}, grad,
                              ValueRange{init}, scale, /*accumulate=*/nullptr)
        ->getResult(0);
  }

private:
  OpBuilder &builder;
  Location loc;
  ActivationAttr activation;
  WeightLayoutAttr gateLayout, upLayout, downLayout;
  FloatAttr gateMultiplier, downMultiplier;
  /// The block's, on every GEMM kernel (null: the operands' own format).
  PrecisionAttr precision;
  Value gateBias, upBias, downBias;
  int64_t hiddenWidth;
};

/// Replaces `func`'s body ending in `return values` and updates its type;
/// `savedNames` name trailing results or arguments.
void setResults(func::FuncOp func, ValueRange results,
                ArrayRef<StringRef> savedNames) {
  Operation *terminator = func.getBody().front().getTerminator();
  OpBuilder builder(terminator);
  func::ReturnOp::create(builder, terminator->getLoc(), results);
  terminator->erase();
  SmallVector<DictionaryAttr> resultAttrs;
  func.getAllResultAttrs(resultAttrs);
  for (StringRef name : savedNames)
    resultAttrs.push_back(builder.getDictionaryAttr(
        builder.getNamedAttr("fmlp.saved", builder.getStringAttr(name))));
  func.setFunctionType(
      builder.getFunctionType(func.getArgumentTypes(), results.getTypes()));
  func.setAllResultAttrs(resultAttrs);
}

LogicalResult fuseForward(func::FuncOp func, GatedMlpOp block,
                          std::optional<SavePolicy> save) {
  OpBuilder builder(block);
  PlanBuilder plan(builder, block);
  Value x = plan.collapseTokens(block.getX());
  bool keepGU = save && *save != SavePolicy::X;
  SmallVector<Value> k1 =
      plan.gateUp(x, block.getGate(), block.getUp(), keepGU);
  Value y =
      plan.expandTokens(plan.down(k1[0], block.getDown(), x), block.getX());

  SmallVector<Value> results = {y};
  SmallVector<StringRef> savedNames;
  if (save == SavePolicy::AGU) {
    results.append({k1[0], k1[1], k1[2]});
    savedNames = {"a", "g", "u"};
  } else if (save == SavePolicy::GU) {
    results.append({k1[1], k1[2]});
    savedNames = {"g", "u"};
  } else if (save == SavePolicy::U) {
    // K1 still stores G, into workspace.
    results.push_back(k1[2]);
    savedNames = {"u"};
  }
  block.getY().replaceAllUsesWith(y);
  block.erase();
  if (!savedNames.empty())
    setResults(func, results, savedNames);
  return success();
}

LogicalResult fuseBackward(func::FuncOp func, GatedMlpGradOp block,
                           SavePolicy save) {
  OpBuilder builder(block);
  PlanBuilder plan(builder, block);
  Value x = plan.collapseTokens(block.getX());
  Value dy = plan.collapseTokens(block.getDy());

  // Saved activations arrive as trailing [T, H] arguments.
  auto xType = cast<RankedTensorType>(x.getType());
  Type savedType = RankedTensorType::get(
      {xType.getDimSize(0), block.getBlockShape().hiddenWidth},
      xType.getElementType());
  auto addSaved = [&](StringRef name) -> Value {
    Type type = savedType;
    unsigned index = func.getNumArguments();
    (void)func.insertArgument(index, type,
                              builder.getDictionaryAttr(builder.getNamedAttr(
                                  "fmlp.saved", builder.getStringAttr(name))),
                              func.getLoc());
    return func.getArgument(index);
  };
  SmallVector<Value> grads;
  switch (save) {
  case SavePolicy::AGU: {
    Value a = addSaved("a"), g = addSaved("g"), u = addSaved("u");
    grads = plan.backward(x, block.getGate(), block.getUp(), block.getDown(),
                          dy, a, g, u, plan.overGU(g, u, false));
    break;
  }
  case SavePolicy::GU: {
    Value g = addSaved("g"), u = addSaved("u");
    grads = plan.backward(x, block.getGate(), block.getUp(), block.getDown(),
                          dy, /*savedA=*/Value(), g, u,
                          plan.overGU(g, u, true));
    break;
  }
  case SavePolicy::U: {
    Value u = addSaved("u");
    Value g = plan.gateAlone(x, block.getGate());
    grads = plan.backward(x, block.getGate(), block.getUp(), block.getDown(),
                          dy, /*savedA=*/Value(), g, u,
                          plan.overGThenU(g, u));
    break;
  }
  case SavePolicy::X: {
    SmallVector<Value> k1 =
        plan.gateUp(x, block.getGate(), block.getUp(), /*keepGU=*/true);
    grads = plan.backward(x, block.getGate(), block.getUp(), block.getDown(),
                          dy, k1[0], k1[1], k1[2],
                          plan.overGU(k1[1], k1[2], false));
    break;
  }
  }
  grads[0] = plan.expandTokens(grads[0], block.getX());
  for (auto [result, grad] : llvm::zip_equal(block->getResults(), grads))
    result.replaceAllUsesWith(grad);
  block.erase();
  return success();
}

/// Gives every fp32 block of `func` without a precision `precision`
/// (tf32, tf32x3; ieee, the format of fp32 itself, stays implicit), and
/// records on `func` the format its blocks contract in (fmlp.precision, for
/// the bundle's manifest): that of the precision attribute, else of the
/// element type; "mixed" when its blocks differ.
template <typename BlockOp>
void applyFp32Precision(func::FuncOp func, Precision precision) {
  for (BlockOp block : func.getOps<BlockOp>()) {
    Type element = getElementTypeOrSelf(block.getX().getType());
    if (!block.getPrecisionAttr() && element.isF32() &&
        precision != Precision::ieee)
      block.setPrecisionAttr(
          PrecisionAttr::get(block.getContext(), precision));
    StringRef format = stringifyPrecision(
        block.getPrecision().value_or(getElementPrecision(element)));
    auto recorded = func->getAttrOfType<StringAttr>("fmlp.precision");
    func->setAttr("fmlp.precision",
                  StringAttr::get(func.getContext(),
                                  !recorded || recorded.getValue() == format
                                      ? format
                                      : StringRef("mixed")));
  }
}

struct FusePass : mlir::fmlp::impl::FusePassBase<FusePass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<SavePolicy> policy = parseSavePolicy(save);
    if (!policy) {
      getOperation().emitError("fmlp-fuse: save must be agu, gu, u or x, got '")
          << save << "'";
      return signalPassFailure();
    }
    std::optional<Precision> fp32 = symbolizePrecision(fp32Precision);
    if (!fp32 || !isFloat32Precision(*fp32)) {
      getOperation().emitError(
          "fmlp-fuse: fp32-precision must be ieee, highest, tf32 or tf32x3, "
          "got '")
          << fp32Precision << "'";
      return signalPassFailure();
    }
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>()) {
      auto entry = func->getAttrOfType<StringAttr>("fmlp.entry");
      if (!entry)
        continue;
      applyFp32Precision<GatedMlpOp>(func, *fp32);
      applyFp32Precision<GatedMlpGradOp>(func, *fp32);
      LogicalResult fused = success();
      std::optional<EntryKind> kind = entryKindNamed(entry.getValue());
      if (kind == EntryKind::forward_nograd)
        for (GatedMlpOp block :
             llvm::make_early_inc_range(func.getOps<GatedMlpOp>()))
          fused = fuseForward(func, block, std::nullopt);
      else if (kind == EntryKind::forward)
        for (GatedMlpOp block :
             llvm::make_early_inc_range(func.getOps<GatedMlpOp>()))
          fused = fuseForward(func, block, *policy);
      else if (kind == EntryKind::backward)
        for (GatedMlpGradOp block :
             llvm::make_early_inc_range(func.getOps<GatedMlpGradOp>()))
          fused = fuseBackward(func, block, *policy);
      if (failed(fused))
        return signalPassFailure();
      if (kind != EntryKind::forward_nograd)
        func->setAttr("fmlp.save", StringAttr::get(&getContext(), save));
    }
  }
};

} // namespace
