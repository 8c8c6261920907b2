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
        precision(block.getPrecisionAttr()), gateBias(block.getGateBias()),
        upBias(block.getUpBias()), downBias(block.getDownBias()),
        loraA(block.getLoraA()), gateLoraB(block.getGateLoraB()),
        upLoraB(block.getUpLoraB()), downLoraA(block.getDownLoraA()),
        downLoraB(block.getDownLoraB()),
        hiddenWidth(block.getBlockShape().hiddenWidth) {}

  /// Whether the block has the gate/up adapters (lora) and the down one.
  bool hasLora() const { return static_cast<bool>(loraA); }
  bool hasDownLora() const { return static_cast<bool>(downLoraA); }

  /// `input W^T` for an adapter matrix W in [out, in] layout (or `input W`
  /// for one read as [in, out]): Z = x A^T, Zd = A Ad^T, dZd = dY Bd.
  Value project(Value input, Value weight, WeightLayout layout) {
    auto shape = cast<ShapedType>(weight.getType()).getShape();
    Value init = emptyTokenMajor(
        input, layout == WeightLayout::out_in ? shape[0] : shape[1]);
    return DownOp::create(builder, loc, TypeRange{init.getType()}, input,
                          weight, /*down_bias=*/Value(), /*lora_z=*/Value(),
                          /*lora_b=*/Value(), ValueRange{init},
                          WeightLayoutAttr::get(builder.getContext(), layout),
                          /*down_multiplier=*/FloatAttr(), precision)
        ->getResult(0);
  }

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

  /// Z = x A^T, the gate's and up's adapters' inner values (null without
  /// them).
  Value loraInput(Value x) {
    return hasLora() ? project(x, loraA, WeightLayout::out_in) : Value();
  }
  /// Zd = A Ad^T (null without the down adapter).
  Value downLoraInput(Value a) {
    return hasDownLora() ? project(a, downLoraA, WeightLayout::out_in)
                         : Value();
  }

  /// K1: A only (nograd) or A, G, U; with the adapters' Z (loraInput).
  SmallVector<Value> gateUp(Value x, Value gate, Value up, bool keepGU,
                            Value z) {
    SmallVector<Value> inits = {emptyTokenMajor(x, hiddenWidth)};
    if (keepGU) {
      inits.push_back(emptyTokenMajor(x, hiddenWidth));
      inits.push_back(emptyTokenMajor(x, hiddenWidth));
    }
    auto op = GateUpOp::create(
        builder, loc, ValueRange(inits).getTypes(), x, gate, up, gateBias,
        upBias, z, z ? gateLoraB : Value(), z ? upLoraB : Value(), inits,
        activation, gateLayout, upLayout, gateMultiplier, precision);
    return SmallVector<Value>(op->getResults());
  }

  /// K2; with the down adapter's Zd (downLoraInput).
  Value down(Value a, Value down, Value x, Value zd) {
    Value init =
        emptyTokenMajor(x, cast<ShapedType>(x.getType()).getDimSize(1));
    return DownOp::create(builder, loc, TypeRange{init.getType()}, a, down,
                          downBias, zd, zd ? downLoraB : Value(),
                          ValueRange{init}, downLayout, downMultiplier,
                          precision)
        ->getResult(0);
  }

  /// G alone (save=u's backward): K1's gate projection.
  Value gateAlone(Value x, Value gate, Value z) {
    Value init = emptyTokenMajor(x, hiddenWidth);
    return GateOp::create(builder, loc, TypeRange{init.getType()}, x, gate,
                          gateBias, z, z ? gateLoraB : Value(),
                          ValueRange{init}, gateLayout, gateMultiplier,
                          precision)
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
  /// saved, for K6) into `inits` (overGU, overGThenU); with the adapters'
  /// Z and Zd (saved or recomputed), their gradients too. Returns the
  /// gradients in the backward's order: dx, the weights', the biases', the
  /// adapters'.
  SmallVector<Value> backward(Value x, Value gate, Value up, Value down,
                              Value dy, Value savedA, Value g, Value u,
                              ValueRange inits, Value z, Value zd) {
    assert((inits.size() == 3) == !savedA &&
           "K3 stores A exactly when it was not saved");
    // dZd = dY Bd (Bd [D, Rd] read as [in, out]), for K3's dA += md dZd Ad.
    Value dzd = hasDownLora() ? project(dy, downLoraB, WeightLayout::in_out)
                              : Value();
    auto grads = DownGradOp::create(
        builder, loc, ValueRange(inits).getTypes(), dy, down, g, u, dzd,
        dzd ? downLoraA : Value(), inits, activation, downLayout,
        gateMultiplier, downMultiplier, precision);
    Value dg = grads->getResult(0), du = grads->getResult(1);
    Value a = savedA ? savedA : grads->getResult(2);
    Value dDown = downWeightGradient(dy, a, down, downLayout, downMultiplier);
    // dZ = dG Bg + dU Bu (Bg, Bu [H, R]: K4's form), for dx += dZ A.
    Value dz = hasLora() ? inputGradient(dg, du, gateLoraB, upLoraB,
                                         WeightLayoutAttr(), WeightLayoutAttr(),
                                         Value(), Value())
                         : Value();
    Value dx = inputGradient(dg, du, gate, up, gateLayout, upLayout, dz,
                             dz ? loraA : Value());
    SmallVector<Value> dGateUp = gateUpWeightGradients(x, dg, du, gate, up,
                                                       gateLayout, upLayout);
    SmallVector<Value> results = {dx, dGateUp[0], dGateUp[1], dDown};
    // Bias gradients, in the order gate, up, down: sums over the tokens.
    if (gateBias)
      results.push_back(biasGradient(dg, gateBias, FloatAttr()));
    if (upBias)
      results.push_back(biasGradient(du, upBias, FloatAttr()));
    if (downBias)
      results.push_back(biasGradient(dy, downBias, downMultiplier));
    // Adapter gradients, in operand order: dA = dZ^T x, [dBg dBu] =
    // [dG dU]^T Z, dAd = md dZd^T A, dBd = md dY^T Zd (each a weight
    // gradient kernel on the adapter's operands).
    if (hasLora()) {
      results.push_back(
          downWeightGradient(dz, x, loraA, WeightLayoutAttr(), FloatAttr()));
      llvm::append_range(results,
                         gateUpWeightGradients(z, dg, du, gateLoraB, upLoraB,
                                               WeightLayoutAttr(),
                                               WeightLayoutAttr()));
    }
    if (hasDownLora()) {
      results.push_back(downWeightGradient(dzd, a, downLoraA,
                                           WeightLayoutAttr(), downMultiplier));
      results.push_back(downWeightGradient(dy, zd, downLoraB,
                                           WeightLayoutAttr(), downMultiplier));
    }
    return results;
  }

  /// K4's form: [dG dU] [Wg Wu]^T (+ lora_dz lora_a), over K = 2H (+ R).
  /// Null layouts are [out, in].
  Value inputGradient(Value dg, Value du, Value first, Value second,
                      WeightLayoutAttr firstLayout,
                      WeightLayoutAttr secondLayout, Value loraDz,
                      Value loraAOperand) {
    auto shape = cast<ShapedType>(first.getType()).getShape();
    bool outIn =
        !firstLayout || firstLayout.getValue() == WeightLayout::out_in;
    Value init = emptyTokenMajor(dg, outIn ? shape[1] : shape[0]);
    return InputGradOp::create(builder, loc, TypeRange{init.getType()}, dg, du,
                               first, second, loraDz, loraAOperand,
                               ValueRange{init}, firstLayout, secondLayout,
                               precision)
        ->getResult(0);
  }

  /// K6's form: md A^T dY stored like `weight` (null layout: [out, in]).
  Value downWeightGradient(Value dy, Value a, Value weight,
                           WeightLayoutAttr layout, FloatAttr multiplier) {
    Value init = emptyLike(weight);
    return DownWeightGradOp::create(builder, loc, TypeRange{init.getType()},
                                    dy, a, ValueRange{init}, layout,
                                    multiplier, /*accumulate=*/nullptr,
                                    precision)
        ->getResult(0);
  }

  /// K5's form: x^T [dG dU] stored like `gate` and `up`.
  SmallVector<Value> gateUpWeightGradients(Value x, Value dg, Value du,
                                           Value first, Value second,
                                           WeightLayoutAttr firstLayout,
                                           WeightLayoutAttr secondLayout) {
    Value dFirstInit = emptyLike(first), dSecondInit = emptyLike(second);
    auto op = GateUpWeightGradOp::create(
        builder, loc, TypeRange{dFirstInit.getType(), dSecondInit.getType()},
        x, dg, du, ValueRange{dFirstInit, dSecondInit}, firstLayout,
        secondLayout, /*accumulate=*/nullptr, precision);
    return SmallVector<Value>(op->getResults());
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
  /// The adapters (docs/LoRA.md): A [R, D], Bg, Bu [H, R]; Ad [Rd, H],
  /// Bd [D, Rd]; null without them.
  Value loraA, gateLoraB, upLoraB, downLoraA, downLoraB;
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
  Value z = plan.loraInput(x);
  SmallVector<Value> k1 =
      plan.gateUp(x, block.getGate(), block.getUp(), keepGU, z);
  Value zd = plan.downLoraInput(k1[0]);
  Value y = plan.expandTokens(plan.down(k1[0], block.getDown(), x, zd),
                              block.getX());

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
  // The adapters' Z and Zd ([T, R], [T, Rd]) are kept beside them, except
  // by save=x, whose backward runs the forward's kernels again.
  if (save && *save != SavePolicy::X) {
    if (z) {
      results.push_back(z);
      savedNames.push_back("z");
    }
    if (zd) {
      results.push_back(zd);
      savedNames.push_back("zd");
    }
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

  // Saved activations arrive as trailing [T, columns] arguments, in the
  // order the forward returned them.
  auto xType = cast<RankedTensorType>(x.getType());
  auto addSaved = [&](StringRef name, int64_t columns) -> Value {
    Type type = RankedTensorType::get({xType.getDimSize(0), columns},
                                      xType.getElementType());
    unsigned index = func.getNumArguments();
    (void)func.insertArgument(index, type,
                              builder.getDictionaryAttr(builder.getNamedAttr(
                                  "fmlp.saved", builder.getStringAttr(name))),
                              func.getLoc());
    return func.getArgument(index);
  };
  int64_t hidden = block.getBlockShape().hiddenWidth;
  auto rowsOf = [](Value adapter) {
    return cast<ShapedType>(adapter.getType()).getDimSize(0);
  };
  Value a, g, u;
  switch (save) {
  case SavePolicy::AGU:
    a = addSaved("a", hidden), g = addSaved("g", hidden),
    u = addSaved("u", hidden);
    break;
  case SavePolicy::GU:
    g = addSaved("g", hidden), u = addSaved("u", hidden);
    break;
  case SavePolicy::U:
    u = addSaved("u", hidden);
    break;
  case SavePolicy::X:
    break;
  }
  Value z, zd;
  if (save != SavePolicy::X) {
    if (plan.hasLora())
      z = addSaved("z", rowsOf(block.getLoraA()));
    if (plan.hasDownLora())
      zd = addSaved("zd", rowsOf(block.getDownLoraA()));
  }
  SmallVector<Value> grads;
  auto backward = [&](Value savedA, ValueRange inits) {
    return plan.backward(x, block.getGate(), block.getUp(), block.getDown(),
                         dy, savedA, g, u, inits, z, zd);
  };
  switch (save) {
  case SavePolicy::AGU:
    grads = backward(a, plan.overGU(g, u, false));
    break;
  case SavePolicy::GU:
    grads = backward(/*savedA=*/Value(), plan.overGU(g, u, true));
    break;
  case SavePolicy::U:
    g = plan.gateAlone(x, block.getGate(), z);
    grads = backward(/*savedA=*/Value(), plan.overGThenU(g, u));
    break;
  case SavePolicy::X: {
    z = plan.loraInput(x);
    SmallVector<Value> k1 =
        plan.gateUp(x, block.getGate(), block.getUp(), /*keepGU=*/true, z);
    zd = plan.downLoraInput(k1[0]);
    g = k1[1], u = k1[2];
    grads = backward(k1[0], plan.overGU(g, u, false));
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
