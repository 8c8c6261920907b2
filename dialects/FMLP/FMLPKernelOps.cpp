//===- FMLPKernelOps.cpp - The fused kernel plan's operations -------------===//
//
// Verifiers and memory effects of the kernel operations (K1..K6). Each
// verifier reads D and H off the weights (in their layouts) and checks every
// operand's shape against them; T is shared by all token-major operands.
// On memrefs, inputs are read and outs read and written, like linalg.
//
//===----------------------------------------------------------------------===//

#include "dialects/FMLP/FMLPOps.h"
#include "dialects/FMLP/ShapeFormat.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fmlp;

std::string mlir::fmlp::formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(shape, os, [&](int64_t extent) {
    if (ShapedType::isDynamic(extent))
      os << '?';
    else
      os << extent;
  });
  os << ']';
  return text;
}

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

/// Operands all tensors or all memrefs, and as many outs as `initNames`.
LogicalResult verifyKernelForm(Operation *op, ArrayRef<StringRef> initNames) {
  bool tensors = isa<RankedTensorType>(op->getOperand(0).getType());
  for (Value operand : op->getOperands())
    if (isa<RankedTensorType>(operand.getType()) != tensors ||
        !(isa<RankedTensorType>(operand.getType()) ||
          isa<MemRefType>(operand.getType())))
      return op->emitOpError(
          "operands must be all ranked tensors or all memrefs");
  auto kernel = cast<DestinationStyleOpInterface>(op);
  if (static_cast<size_t>(kernel.getNumDpsInits()) == initNames.size())
    return success();
  std::string names;
  llvm::raw_string_ostream os(names);
  llvm::interleaveComma(initNames, os);
  return op->emitOpError() << "expected " << initNames.size() << " outs ("
                           << names << "), got " << kernel.getNumDpsInits();
}

/// Checks `value`'s shape against `expected`; dynamic extents on either side
/// match anything.
LogicalResult expectShape(Operation *op, StringRef name, Value value,
                          ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> shape = shapeOf(value);
  bool compatible =
      shape.size() == expected.size() &&
      llvm::all_of(llvm::zip_equal(shape, expected), [](auto pair) {
        auto [actual, wanted] = pair;
        return ShapedType::isDynamic(actual) || ShapedType::isDynamic(wanted) ||
               actual == wanted;
      });
  if (compatible)
    return success();
  return op->emitOpError() << name << " has shape " << formatShape(shape)
                           << ", expected " << formatShape(expected);
}

/// An operand and the shape the kernel expects of it.
struct ExpectedShape {
  StringRef name;
  Value value;
  SmallVector<int64_t, 2> shape;
};

/// Checks each operand of `expected` in order; the first mismatch is the
/// error.
LogicalResult expectShapes(Operation *op, ArrayRef<ExpectedShape> expected) {
  for (const ExpectedShape &operand : expected)
    if (failed(expectShape(op, operand.name, operand.value, operand.shape)))
      return failure();
  return success();
}

/// The extents of a 2-D weight read in `layout`, or a failure if it is not
/// 2-D.
FailureOr<ProjectionExtents> weightExtents(Operation *op, StringRef name,
                                           Value weight, WeightLayout layout) {
  if (shapeOf(weight).size() != 2)
    return op->emitOpError()
           << name << " has shape " << formatShape(shapeOf(weight))
           << ", expected a 2-D weight";
  return getProjectionExtents(layout, shapeOf(weight));
}

/// The token count T, read off the first token-major operand.
int64_t tokensOf(Value tokenMajor) {
  ArrayRef<int64_t> shape = shapeOf(tokenMajor);
  return shape.empty() ? ShapedType::kDynamic : shape.front();
}

/// What the verifiers of the projecting kernels start from: the kernel's
/// form, the extents of the weight that fixes D and H, and T.
struct KernelDims {
  ProjectionExtents weight;
  int64_t tokens;
};
FailureOr<KernelDims> readKernelDims(Operation *op,
                                     ArrayRef<StringRef> initNames,
                                     StringRef weightName, Value weight,
                                     WeightLayout layout, Value tokenMajor) {
  if (failed(verifyKernelForm(op, initNames)))
    return failure();
  // The block's rule (FMLPOps.cpp): fp32 formats take f32 operands.
  if (auto precision = op->getAttrOfType<PrecisionAttr>("precision");
      precision && isFloat32Precision(precision.getValue()))
    for (auto [index, operand] : llvm::enumerate(op->getOperands()))
      if (Type element = getElementTypeOrSelf(operand.getType());
          !element.isF32())
        return op->emitOpError()
               << "precision '" << stringifyPrecision(precision.getValue())
               << "' takes f32 operands, but operand #" << index << " is "
               << element;
  FailureOr<ProjectionExtents> extents =
      weightExtents(op, weightName, weight, layout);
  if (failed(extents))
    return failure();
  return KernelDims{*extents, tokensOf(tokenMajor)};
}

/// A kernel's adapter term (docs/LoRA.md): its adapter operands, in
/// operand order with the token-major one [T, R] first, are all given or
/// none. Appends their expected shapes to `expected`: [T, R] and, for
/// each adapter matrix, `matrixShape` of R (the token-major operand's
/// columns).
LogicalResult expectLora(
    Operation *op, int64_t tokens, ArrayRef<std::pair<StringRef, Value>> lora,
    function_ref<SmallVector<int64_t, 2>(int64_t rank)> matrixShape,
    SmallVectorImpl<ExpectedShape> &expected) {
  unsigned given = llvm::count_if(
      lora, [](const std::pair<StringRef, Value> &operand) {
        return operand.second;
      });
  if (given == 0)
    return success();
  if (given != lora.size())
    return op->emitOpError() << "takes its " << lora.size()
                             << " adapter operands together, got " << given;
  ArrayRef<int64_t> tokenMajor =
      cast<ShapedType>(lora.front().second.getType()).getShape();
  int64_t rank = tokenMajor.size() == 2 ? tokenMajor[1] : ShapedType::kDynamic;
  if (ShapedType::isDynamic(rank) || rank < 1)
    return op->emitOpError()
           << lora.front().first << " must be [T, R] with a static R >= 1, got "
           << formatShape(tokenMajor);
  expected.push_back({lora.front().first, lora.front().second, {tokens, rank}});
  for (auto [name, value] : lora.drop_front())
    expected.push_back({name, value, matrixShape(rank)});
  return success();
}

void addKernelEffects(
    Operation *op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  auto kernel = cast<DestinationStyleOpInterface>(op);
  for (OpOperand *input : kernel.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), input);
  for (OpOperand &init : kernel.getDpsInitsMutable()) {
    if (!isa<MemRefType>(init.get().getType()))
      continue;
    effects.emplace_back(MemoryEffects::Read::get(), &init);
    effects.emplace_back(MemoryEffects::Write::get(), &init);
  }
}

} // namespace

#define FMLP_KERNEL_EFFECTS(OpClass)                                           \
  void OpClass::getEffects(                                                    \
      SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>      \
          &effects) {                                                          \
    addKernelEffects(*this, effects);                                          \
  }
FMLP_KERNEL_EFFECTS(GateUpOp)
FMLP_KERNEL_EFFECTS(DownOp)
FMLP_KERNEL_EFFECTS(GateOp)
FMLP_KERNEL_EFFECTS(DownGradOp)
FMLP_KERNEL_EFFECTS(InputGradOp)
FMLP_KERNEL_EFFECTS(GateUpWeightGradOp)
FMLP_KERNEL_EFFECTS(DownWeightGradOp)
FMLP_KERNEL_EFFECTS(BiasGradOp)
FMLP_KERNEL_EFFECTS(TransposeOp)
FMLP_KERNEL_EFFECTS(RoundToTf32Op)
#undef FMLP_KERNEL_EFFECTS

LogicalResult GateUpOp::verify() {
  bool training = getInits().size() == 3;
  FailureOr<KernelDims> dims = readKernelDims(
      *this,
      training ? ArrayRef<StringRef>{"a", "g", "u"} : ArrayRef<StringRef>{"a"},
      "gate", getGate(), getGateLayout(), getX());
  if (failed(dims))
    return failure();
  auto [d, h] = dims->weight;
  int64_t t = dims->tokens;
  SmallVector<ExpectedShape> expected = {
      {"x", getX(), {t, d}},
      {"up", getUp(), getWeightShape(getUpLayout(), {d, h})}};
  if (getGateBias())
    expected.push_back({"gate_bias", getGateBias(), {h}});
  if (getUpBias())
    expected.push_back({"up_bias", getUpBias(), {h}});
  for (Value init : getInits())
    expected.push_back({"out", init, {t, h}});
  // G += Z Bg^T, U += Z Bu^T: Bg, Bu [H, R].
  if (failed(expectLora(
          *this, t,
          {{"lora_z", getLoraZ()},
           {"gate_lora_b", getGateLoraB()},
           {"up_lora_b", getUpLoraB()}},
          [&](int64_t r) { return SmallVector<int64_t, 2>{h, r}; },
          expected)))
    return failure();
  return expectShapes(*this, expected);
}

/// A projection kernel, out = in W (+ bias) with W of extents in -> out:
/// `input` [T, in], the one out [T, out], the bias (when given) [out]. Each
/// named as the op's messages name it.
struct ProjectionOperands {
  StringRef inputName;
  Value input;
  StringRef weightName;
  Value weight;
  WeightLayout layout;
  StringRef outName, biasName;
  Value bias;
  /// out += Z B^T: Z [T, R], B [out, R] (B named as the op names it).
  Value loraZ;
  StringRef loraBName;
  Value loraB;
};
LogicalResult verifyProjection(Operation *op, const ProjectionOperands &p) {
  FailureOr<KernelDims> dims = readKernelDims(op, {p.outName}, p.weightName,
                                              p.weight, p.layout, p.input);
  if (failed(dims))
    return failure();
  auto [in, out] = dims->weight;
  int64_t t = dims->tokens;
  Value init = cast<DestinationStyleOpInterface>(op).getDpsInits().front();
  SmallVector<ExpectedShape> expected = {{p.inputName, p.input, {t, in}},
                                         {p.outName, init, {t, out}}};
  if (p.bias)
    expected.push_back({p.biasName, p.bias, {out}});
  if (failed(expectLora(
          op, t, {{"lora_z", p.loraZ}, {p.loraBName, p.loraB}},
          [&](int64_t r) { return SmallVector<int64_t, 2>{out, r}; },
          expected)))
    return failure();
  return expectShapes(op, expected);
}

LogicalResult DownOp::verify() {
  return verifyProjection(*this, {"a", getA(), "down", getDown(),
                                  getDownLayout(), "y", "down_bias",
                                  getDownBias(), getLoraZ(), "lora_b",
                                  getLoraB()});
}

LogicalResult GateOp::verify() {
  return verifyProjection(*this, {"x", getX(), "gate", getGate(),
                                  getGateLayout(), "g", "gate_bias",
                                  getGateBias(), getLoraZ(), "gate_lora_b",
                                  getGateLoraB()});
}

LogicalResult BiasGradOp::verify() {
  if (failed(verifyKernelForm(*this, {"bias gradient"})))
    return failure();
  ArrayRef<int64_t> grad = shapeOf(getGrad());
  if (grad.size() != 2)
    return emitOpError("grad must be 2-D ([T, N]), got ") << formatShape(grad);
  return expectShape(*this, "bias gradient", getInits().front(), {grad[1]});
}

/// The checks both weight copies share: a 2-D input, an out of its element
/// type and of `shape`, and f32 elements where they round to tf32.
static LogicalResult verifyWeightCopy(Operation *op, StringRef name,
                                      Value input, Value out, bool roundsToTf32,
                                      ArrayRef<int64_t> shape) {
  if (shapeOf(input).size() != 2)
    return op->emitOpError("input must be 2-D, got ")
           << formatShape(shapeOf(input));
  Type element = getElementTypeOrSelf(input);
  if (getElementTypeOrSelf(out) != element)
    return op->emitOpError("out must have the input's element type ")
           << element << ", got " << getElementTypeOrSelf(out);
  if (roundsToTf32 && !element.isF32())
    return op->emitOpError("rounds to tf32, which takes f32 elements, got ")
           << element;
  return expectShape(op, name, out, shape);
}

LogicalResult TransposeOp::verify() {
  if (failed(verifyKernelForm(*this, {"transpose"})))
    return failure();
  ArrayRef<int64_t> input = shapeOf(getInput());
  SmallVector<int64_t, 2> swapped(input.rbegin(), input.rend());
  return verifyWeightCopy(*this, "transpose", getInput(), getInits().front(),
                          getRoundToTf32(), swapped);
}

LogicalResult RoundToTf32Op::verify() {
  if (failed(verifyKernelForm(*this, {"copy"})))
    return failure();
  return verifyWeightCopy(*this, "copy", getInput(), getInits().front(),
                          /*roundsToTf32=*/true, shapeOf(getInput()));
}

LogicalResult DownGradOp::verify() {
  bool recomputesA = getInits().size() == 3;
  FailureOr<KernelDims> dims = readKernelDims(
      *this,
      recomputesA ? ArrayRef<StringRef>{"dg", "du", "a"}
                  : ArrayRef<StringRef>{"dg", "du"},
      "down", getDown(), getDownLayout(), getDy());
  if (failed(dims))
    return failure();
  auto [h, d] = dims->weight;
  int64_t t = dims->tokens;
  SmallVector<ExpectedShape> expected = {{"dy", getDy(), {t, d}},
                                         {"g", getG(), {t, h}},
                                         {"u", getU(), {t, h}},
                                         {"dg", getInits()[0], {t, h}},
                                         {"du", getInits()[1], {t, h}}};
  if (recomputesA)
    expected.push_back({"a", getInits()[2], {t, h}});
  // dA += md dZd Ad: Ad [R, H].
  if (failed(expectLora(
          *this, t, {{"lora_dz", getLoraDz()}, {"lora_a", getLoraA()}},
          [&](int64_t r) { return SmallVector<int64_t, 2>{r, h}; },
          expected)))
    return failure();
  return expectShapes(*this, expected);
}

LogicalResult InputGradOp::verify() {
  FailureOr<KernelDims> dims = readKernelDims(*this, {"dx"}, "gate", getGate(),
                                              getGateLayout(), getDg());
  if (failed(dims))
    return failure();
  auto [d, h] = dims->weight;
  int64_t t = dims->tokens;
  SmallVector<ExpectedShape> expected = {
      {"up", getUp(), getWeightShape(getUpLayout(), {d, h})},
      {"dg", getDg(), {t, h}},
      {"du", getDu(), {t, h}},
      {"dx", getInits().front(), {t, d}}};
  // dx += dZ A: A [R, D].
  if (failed(expectLora(
          *this, t, {{"lora_dz", getLoraDz()}, {"lora_a", getLoraA()}},
          [&](int64_t r) { return SmallVector<int64_t, 2>{r, d}; },
          expected)))
    return failure();
  return expectShapes(*this, expected);
}

LogicalResult GateUpWeightGradOp::verify() {
  if (failed(verifyKernelForm(*this, {"d_gate", "d_up"})))
    return failure();
  int64_t t = tokensOf(getX());
  if (shapeOf(getX()).size() != 2 || shapeOf(getDg()).size() != 2)
    return emitOpError("x and dg must be 2-D ([T, D] and [T, H])");
  int64_t d = shapeOf(getX())[1], h = shapeOf(getDg())[1];
  return expectShapes(
      *this,
      {{"dg", getDg(), {t, h}},
       {"du", getDu(), {t, h}},
       {"d_gate", getInits()[0], getWeightShape(getGateLayout(), {d, h})},
       {"d_up", getInits()[1], getWeightShape(getUpLayout(), {d, h})}});
}

LogicalResult DownWeightGradOp::verify() {
  if (failed(verifyKernelForm(*this, {"d_down"})))
    return failure();
  if (shapeOf(getDy()).size() != 2 || shapeOf(getA()).size() != 2)
    return emitOpError("dy and a must be 2-D ([T, D] and [T, H])");
  int64_t t = tokensOf(getDy());
  int64_t d = shapeOf(getDy())[1], h = shapeOf(getA())[1];
  return expectShapes(
      *this, {{"a", getA(), {t, h}},
              {"d_down", getInits().front(),
               getWeightShape(getDownLayout(), {h, d})}});
}
