//===- FMLPOps.cpp - fmlp operations --------------------------------------===//
//
// Verifiers of fmlp.gated_mlp and fmlp.gated_mlp_grad. Both operations share
// one signature (the backward one adds dy), so one function checks it; each
// operation then checks only its results.
//
// Invariant established here, relied on by every pass: x is [..., T, D] with D
// static; the gate and up weights map D -> H and the down weight H -> D, all
// static; biases are [H], [H], [D]; the adapters, when present, are static
// and [R, D], [H, R], [H, R] (all three) and [Rd, H], [D, Rd] (both);
// element types are uniform unless a precision attribute says how the
// contractions round them.
//
//===----------------------------------------------------------------------===//

#include "dialects/FMLP/FMLPOps.h"
#include "dialects/FMLP/ShapeFormat.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

/// A value that takes part in the block, with the name diagnostics use for it.
struct NamedOperand {
  StringRef name;
  Value value;
};

/// The operands and attributes common to both block operations.
struct BlockSignature {
  Value x, gate, up, down;
  Value gateBias, upBias, downBias;
  Value loraA, gateLoraB, upLoraB, downLoraA, downLoraB;
  WeightLayout gateLayout, upLayout, downLayout;
  std::optional<APFloat> gateMultiplier, downMultiplier;
  std::optional<Precision> precision;
  /// The optional operands present, in operand order, named as their
  /// gradients are.
  SmallVector<NamedOperand> optional;
};

template <typename OpT> BlockSignature getBlockSignature(OpT op) {
  BlockSignature signature{
      op.getX(),          op.getGate(),           op.getUp(),
      op.getDown(),       op.getGateBias(),       op.getUpBias(),
      op.getDownBias(),   op.getLoraA(),          op.getGateLoraB(),
      op.getUpLoraB(),    op.getDownLoraA(),      op.getDownLoraB(),
      op.getGateLayout(), op.getUpLayout(),       op.getDownLayout(),
      op.getGateMultiplier(), op.getDownMultiplier(), op.getPrecision(), {}};
  for (auto [name, value] : getOptionalOperands(op))
    if (value)
      signature.optional.push_back({name, value});
  return signature;
}

RankedTensorType tensorTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Checks that `weight` is a static 2-D tensor that maps `expected.in` to
/// `expected.out` features when read in `layout`.
LogicalResult verifyWeight(Operation *op, StringRef name, Value weight,
                           WeightLayout layout, ProjectionExtents expected) {
  RankedTensorType type = tensorTypeOf(weight);
  if (type.getRank() != 2)
    return op->emitOpError()
           << name << " weight must be 2-D, got rank " << type.getRank();
  if (!type.hasStaticShape())
    return op->emitOpError() << name << " weight must have a static shape, got "
                             << formatShape(type.getShape());
  ProjectionExtents actual = getProjectionExtents(layout, type.getShape());
  if (actual == expected)
    return success();
  return op->emitOpError() << name << " weight of shape "
                           << formatShape(type.getShape()) << " in layout "
                           << stringifyWeightLayout(layout) << " maps "
                           << actual.in << " -> " << actual.out
                           << " features, expected " << expected.in << " -> "
                           << expected.out;
}

/// Checks that an optional bias is a 1-D tensor of `extent` elements.
LogicalResult verifyBias(Operation *op, StringRef name, Value bias,
                         StringRef extentName, int64_t extent) {
  if (!bias)
    return success();
  RankedTensorType type = tensorTypeOf(bias);
  if (type.getRank() == 1 && type.getDimSize(0) == extent)
    return success();
  return op->emitOpError() << name << " bias must be 1-D with " << extentName
                           << " = " << extent << " elements, got " << type;
}

/// Checks one group of adapter operands: all present or all absent, each a
/// static 2-D tensor of the shape `expected` gives it for the group's rank
/// (the first operand's first extent: R of `A` [R, D], Rd of `Ad` [Rd, H];
/// -1 in `expected` stands for it).
LogicalResult verifyAdapters(Operation *op, StringRef group,
                             ArrayRef<NamedOperand> operands,
                             ArrayRef<SmallVector<int64_t, 2>> expected) {
  unsigned present = llvm::count_if(
      operands, [](const NamedOperand &operand) { return operand.value; });
  if (present == 0)
    return success();
  if (present != operands.size()) {
    std::string names;
    llvm::raw_string_ostream os(names);
    llvm::interleaveComma(operands, os,
                          [&](const NamedOperand &operand) { os << operand.name; });
    return op->emitOpError() << group << " takes its " << operands.size()
                             << " adapter operands together (" << names
                             << "), got " << present;
  }
  RankedTensorType first = tensorTypeOf(operands.front().value);
  int64_t rank = first.getRank() == 2 ? first.getDimSize(0)
                                      : ShapedType::kDynamic;
  for (auto [operand, shape] : llvm::zip_equal(operands, expected)) {
    SmallVector<int64_t, 2> wanted = llvm::map_to_vector(
        shape, [&](int64_t extent) { return extent == -1 ? rank : extent; });
    RankedTensorType type = tensorTypeOf(operand.value);
    if (!type.hasStaticShape() || type.getShape() != ArrayRef(wanted) ||
        rank < 1)
      return op->emitOpError()
             << operand.name << " must be a static " << formatShape(wanted)
             << " tensor (adapters are [out, in]), got " << type;
  }
  return success();
}

/// A multiplier scales fp32 accumulators: finite, and finite as an f32.
LogicalResult verifyMultiplier(Operation *op, StringRef name,
                               const std::optional<APFloat> &multiplier) {
  if (!multiplier)
    return success();
  if (!multiplier->isFinite())
    return op->emitOpError() << name << " must be a finite number, got "
                             << multiplier->convertToDouble();
  APFloat single = *multiplier;
  bool losesInfo = false;
  (void)single.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                       &losesInfo);
  if (single.isFinite())
    return success();
  return op->emitOpError() << name << " must be finite as an f32 (the "
                           << "kernels scale fp32 sums by it), got "
                           << multiplier->convertToDouble();
}

/// Checks the element types of `operands` against the precision rule: one
/// element type for all, unless `precision` is set; f32 only for the fp32
/// formats.
LogicalResult verifyElementTypes(Operation *op, ArrayRef<NamedOperand> operands,
                                 std::optional<Precision> precision) {
  const NamedOperand &first = operands.front();
  Type firstElementType = tensorTypeOf(first.value).getElementType();
  for (const NamedOperand &operand : operands) {
    Type elementType = tensorTypeOf(operand.value).getElementType();
    if (!precision) {
      if (elementType == firstElementType)
        continue;
      return op->emitOpError()
             << "operands mix element types (" << first.name << " is "
             << firstElementType << ", " << operand.name << " is "
             << elementType
             << "); a 'precision' attribute must say how the contractions "
                "round them";
    }
    if (isFloat32Precision(*precision) && !elementType.isF32())
      return op->emitOpError()
             << "precision '" << stringifyPrecision(*precision)
             << "' takes f32 operands, but " << operand.name << " is "
             << elementType;
  }
  return success();
}

/// Checks the signature shared by the forward and the backward operation;
/// `extraOperands` are further operands (dy) that obey the element-type rule.
FailureOr<BlockShape>
verifyBlockSignature(Operation *op, const BlockSignature &block,
                     ArrayRef<NamedOperand> extraOperands) {
  RankedTensorType xType = tensorTypeOf(block.x);
  if (xType.getRank() < 2)
    return op->emitOpError("x must have rank >= 2 ([..., T, D]), got rank ")
           << xType.getRank();
  int64_t modelWidth = xType.getShape().back();
  if (ShapedType::isDynamic(modelWidth))
    return op->emitOpError(
        "model width D (the last dimension of x) must be static");

  // The gate weight defines H; it must read D features.
  RankedTensorType gateType = tensorTypeOf(block.gate);
  int64_t hiddenWidth =
      gateType.getRank() == 2 && gateType.hasStaticShape()
          ? getProjectionExtents(block.gateLayout, gateType.getShape()).out
          : ShapedType::kDynamic;
  if (failed(verifyWeight(op, "gate", block.gate, block.gateLayout,
                          {modelWidth, hiddenWidth})) ||
      failed(verifyWeight(op, "up", block.up, block.upLayout,
                          {modelWidth, hiddenWidth})) ||
      failed(verifyWeight(op, "down", block.down, block.downLayout,
                          {hiddenWidth, modelWidth})))
    return failure();

  if (failed(verifyBias(op, "gate", block.gateBias, "H", hiddenWidth)) ||
      failed(verifyBias(op, "up", block.upBias, "H", hiddenWidth)) ||
      failed(verifyBias(op, "down", block.downBias, "D", modelWidth)))
    return failure();

  if (failed(verifyAdapters(
          op, "lora",
          {{"lora_a", block.loraA},
           {"gate_lora_b", block.gateLoraB},
           {"up_lora_b", block.upLoraB}},
          {{-1, modelWidth}, {hiddenWidth, -1}, {hiddenWidth, -1}})) ||
      failed(verifyAdapters(
          op, "down_lora",
          {{"down_lora_a", block.downLoraA}, {"down_lora_b", block.downLoraB}},
          {{-1, hiddenWidth}, {modelWidth, -1}})))
    return failure();

  if (failed(verifyMultiplier(op, "gate_multiplier", block.gateMultiplier)) ||
      failed(verifyMultiplier(op, "down_multiplier", block.downMultiplier)))
    return failure();

  SmallVector<NamedOperand> operands = {{"x", block.x},
                                        {"the gate weight", block.gate},
                                        {"the up weight", block.up},
                                        {"the down weight", block.down}};
  llvm::append_range(operands, extraOperands);
  llvm::append_range(operands, block.optional);
  if (failed(verifyElementTypes(op, operands, block.precision)))
    return failure();

  return BlockShape{modelWidth, hiddenWidth};
}

/// Checks that `value` has exactly the type of `reference`.
LogicalResult verifyTypeMatches(Operation *op, StringRef name, Value value,
                                StringRef referenceName, Value reference) {
  if (value.getType() == reference.getType())
    return success();
  return op->emitOpError() << name << " must have " << referenceName
                           << "'s type " << reference.getType() << ", got "
                           << value.getType();
}

BlockShape getVerifiedBlockShape(Value x, Value gate, WeightLayout layout) {
  return {tensorTypeOf(x).getShape().back(),
          getProjectionExtents(layout, tensorTypeOf(gate).getShape()).out};
}

} // namespace

//===----------------------------------------------------------------------===//
// Custom syntax: the activation as a bare keyword (`fmlp.gated_mlp silu ...`)
//===----------------------------------------------------------------------===//

static ParseResult parseActivationKeyword(OpAsmParser &parser,
                                          ActivationAttr &activation) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Activation> value = symbolizeActivation(keyword);
  if (!value)
    return parser.emitError(loc, "unknown activation '")
           << keyword << "', expected silu, gelu_tanh or relu";
  activation = ActivationAttr::get(parser.getContext(), *value);
  return success();
}

static void printActivationKeyword(OpAsmPrinter &printer, Operation *,
                                   ActivationAttr activation) {
  printer << stringifyActivation(activation.getValue());
}

SmallVector<SmallVector<int64_t, 2>, 2>
mlir::fmlp::getTokenReassociation(int64_t rank) {
  SmallVector<SmallVector<int64_t, 2>, 2> groups(2);
  for (int64_t i = 0; i + 1 < rank; ++i)
    groups[0].push_back(i);
  groups[1].push_back(rank - 1);
  return groups;
}

//===----------------------------------------------------------------------===//
// GatedMlpOp
//===----------------------------------------------------------------------===//

LogicalResult GatedMlpOp::verify() {
  if (failed(verifyBlockSignature(*this, getBlockSignature(*this), {})))
    return failure();
  return verifyTypeMatches(*this, "y", getY(), "x", getX());
}

BlockShape GatedMlpOp::getBlockShape() {
  return getVerifiedBlockShape(getX(), getGate(), getGateLayout());
}

//===----------------------------------------------------------------------===//
// GatedMlpGradOp
//===----------------------------------------------------------------------===//

LogicalResult GatedMlpGradOp::verify() {
  if (failed(verifyBlockSignature(*this, getBlockSignature(*this),
                                  {{"dy", getDy()}})))
    return failure();
  if (failed(verifyTypeMatches(*this, "dy", getDy(), "x", getX())) ||
      failed(verifyTypeMatches(*this, "dx", getDx(), "x", getX())) ||
      failed(
          verifyTypeMatches(*this, "d_gate", getDGate(), "gate", getGate())) ||
      failed(verifyTypeMatches(*this, "d_up", getDUp(), "up", getUp())) ||
      failed(verifyTypeMatches(*this, "d_down", getDDown(), "down", getDown())))
    return failure();

  SmallVector<NamedOperand> optional = getBlockSignature(*this).optional;
  if (getOptionalGrads().size() != optional.size())
    return emitOpError() << "expected " << optional.size()
                         << " gradients of optional operands (one per bias "
                            "and adapter operand), got "
                         << getOptionalGrads().size();
  for (auto [operand, grad] : llvm::zip_equal(optional, getOptionalGrads()))
    if (failed(verifyTypeMatches(*this, "the gradient of " + operand.name.str(),
                                 grad, operand.name, operand.value)))
      return failure();
  return success();
}

BlockShape GatedMlpGradOp::getBlockShape() {
  return getVerifiedBlockShape(getX(), getGate(), getGateLayout());
}

#define GET_OP_CLASSES
#include "dialects/FMLP/FMLPOps.cpp.inc"
