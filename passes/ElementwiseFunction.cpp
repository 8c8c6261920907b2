//===- ElementwiseFunction.cpp - Elementwise IR read as a function --------===//
//
// Implements ElementwiseFunction: a post-order walk that collects the
// elementwise operations computing a value, and an interpreter that runs them
// on doubles. Only operations whose scalar meaning is listed in
// applyScalarOperation are read; anything else ends the walk as a leaf (at
// the tensor level) or makes the read fail (inside a linalg payload).
//
//===----------------------------------------------------------------------===//

#include "passes/ElementwiseFunction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

/// A splat constant: its value and, for a floating-point one, its element
/// type. Integer constants (the exponent of math.fpowi) are exact: they have
/// no float type and carry no rounding.
struct SplatConstant {
  double value;
  FloatType type;
};

std::optional<SplatConstant> getSplatFloat(Attribute attr) {
  if (auto floatAttr = dyn_cast_or_null<FloatAttr>(attr))
    return SplatConstant{floatAttr.getValueAsDouble(),
                         cast<FloatType>(floatAttr.getType())};
  if (auto intAttr = dyn_cast_or_null<IntegerAttr>(attr);
      intAttr && isa<IntegerType>(intAttr.getType()))
    return SplatConstant{double(intAttr.getValue().getSExtValue()), nullptr};
  if (auto elements = dyn_cast_or_null<DenseIntElementsAttr>(attr);
      elements && elements.isSplat() &&
      isa<IntegerType>(elements.getElementType()))
    return SplatConstant{
        double(elements.getSplatValue<APInt>().getSExtValue()), nullptr};
  auto elements = dyn_cast_or_null<DenseFPElementsAttr>(attr);
  if (!elements || !elements.isSplat())
    return std::nullopt;
  return SplatConstant{elements.getSplatValue<APFloat>().convertToDouble(),
                       cast<FloatType>(elements.getElementType())};
}

/// The value of `value` if it is a splat constant: an arith.constant, a
/// tosa.const, a linalg.fill of a constant, or a broadcast of one (JAX's
/// dynamic shapes broadcast a rank-0 1.0 to the activation's shape).
std::optional<SplatConstant> getSplatConstant(Value value) {
  Attribute attr;
  if (matchPattern(value, m_Constant(&attr)))
    return getSplatFloat(attr);
  if (auto fill = value.getDefiningOp<linalg::FillOp>())
    return getSplatConstant(fill.getInputs().front());
  if (std::optional<BroadcastView> broadcast = getBroadcastSource(value))
    return getSplatConstant(broadcast->source);
  return std::nullopt;
}

/// A linalg operation maps elements one to one when all its loops are
/// parallel and each operand is read at the output's index (or is a scalar).
bool isElementwiseLinalg(linalg::LinalgOp op) {
  if (op.getNumLoops() != op.getNumParallelLoops() || op->getNumResults() != 1)
    return false;
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isIdentity() && map.getNumResults() != 0)
      return false;
  // An input that is a broadcast of a smaller tensor (a bias) does not map
  // elements one to one either.
  for (Value input : op.getDpsInputs())
    if (getBroadcastSource(input) && !getSplatConstant(input))
      return false;
  // The payload must not read the initial value of its output.
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingBlockArgument(&init).use_empty())
      return false;
  return true;
}

bool isTensorLevelElementwise(Operation *op) {
  return isa<
      arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::NegFOp,
      arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp, arith::MinNumFOp,
      arith::ExtFOp, arith::TruncFOp, math::ExpOp, math::TanhOp, math::SqrtOp,
      math::RsqrtOp, math::AbsFOp, math::PowFOp, math::FPowIOp, math::IPowIOp,
      math::FmaOp, math::ErfOp,
      tosa::AddOp, tosa::SubOp, tosa::MulOp, tosa::NegateOp, tosa::ReciprocalOp,
      tosa::ExpOp, tosa::TanhOp, tosa::SigmoidOp, tosa::ClampOp,
      tosa::MaximumOp, tosa::MinimumOp, tosa::PowOp, tosa::CastOp, tosa::ErfOp>(
      op);
}

/// The operands of an elementwise operation that carry its data; TOSA's
/// zero points and shifts do not (they are zero for floating-point types).
OperandRange getDataOperands(Operation *op) {
  if (isa<tosa::MulOp>(op))
    return op->getOperands().take_front(2);
  if (isa<tosa::NegateOp>(op))
    return op->getOperands().take_front(1);
  return op->getOperands();
}

bool isErf(Operation *op) { return isa<math::ErfOp, tosa::ErfOp>(op); }

bool isScalarPayloadOperation(Operation *op) {
  return isa<arith::ConstantOp, arith::CmpFOp, arith::SelectOp,
             linalg::YieldOp>(op) ||
         (isTensorLevelElementwise(op) &&
          !isa<tosa::TosaDialect>(op->getDialect()));
}

bool compare(arith::CmpFPredicate predicate, double lhs, double rhs) {
  using P = arith::CmpFPredicate;
  switch (predicate) {
  case P::OEQ:
  case P::UEQ:
    return lhs == rhs;
  case P::ONE:
  case P::UNE:
    return lhs != rhs;
  case P::OGT:
  case P::UGT:
    return lhs > rhs;
  case P::OGE:
  case P::UGE:
    return lhs >= rhs;
  case P::OLT:
  case P::ULT:
    return lhs < rhs;
  case P::OLE:
  case P::ULE:
    return lhs <= rhs;
  case P::AlwaysTrue:
    return true;
  case P::AlwaysFalse:
  case P::ORD:
  case P::UNO:
    return predicate == P::ORD;
  }
  return false;
}

double sigmoid(double value) { return 1.0 / (1.0 + std::exp(-value)); }

/// The scalar meaning of each operation ElementwiseFunction reads, applied to
/// its data operands' values.
double applyScalarOperation(Operation *op, ArrayRef<double> args) {
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case<arith::AddFOp, tosa::AddOp>([&](auto) { return args[0] + args[1]; })
      .Case<arith::SubFOp, tosa::SubOp>([&](auto) { return args[0] - args[1]; })
      .Case<arith::MulFOp, tosa::MulOp>([&](auto) { return args[0] * args[1]; })
      .Case<arith::DivFOp>([&](auto) { return args[0] / args[1]; })
      .Case<arith::NegFOp, tosa::NegateOp>([&](auto) { return -args[0]; })
      .Case<arith::MaximumFOp, arith::MaxNumFOp, tosa::MaximumOp>(
          [&](auto) { return std::max(args[0], args[1]); })
      .Case<arith::MinimumFOp, arith::MinNumFOp, tosa::MinimumOp>(
          [&](auto) { return std::min(args[0], args[1]); })
      .Case<arith::ExtFOp, arith::TruncFOp, tosa::CastOp>(
          [&](auto) { return args[0]; })
      .Case<math::ExpOp, tosa::ExpOp>([&](auto) { return std::exp(args[0]); })
      .Case<math::TanhOp, tosa::TanhOp>(
          [&](auto) { return std::tanh(args[0]); })
      .Case<math::SqrtOp>([&](auto) { return std::sqrt(args[0]); })
      .Case<math::RsqrtOp>([&](auto) { return 1.0 / std::sqrt(args[0]); })
      .Case<math::AbsFOp>([&](auto) { return std::fabs(args[0]); })
      // x^n for an integral n (fpowi, ipowi, or powf with an integral
      // exponent): std::pow is exact in sign for a negative base there.
      .Case<math::PowFOp, math::FPowIOp, math::IPowIOp, tosa::PowOp>(
          [&](auto) { return std::pow(args[0], args[1]); })
      .Case<math::FmaOp>([&](auto) { return args[0] * args[1] + args[2]; })
      .Case<tosa::ReciprocalOp>([&](auto) { return 1.0 / args[0]; })
      .Case<tosa::SigmoidOp>([&](auto) { return sigmoid(args[0]); })
      .Case<tosa::ClampOp>([&](tosa::ClampOp clamp) {
        auto bound = [](Attribute attr) {
          return cast<FloatAttr>(attr).getValueAsDouble();
        };
        return std::clamp(args[0], bound(clamp.getMinValAttr()),
                          bound(clamp.getMaxValAttr()));
      })
      .Case<arith::CmpFOp>([&](arith::CmpFOp cmp) {
        return compare(cmp.getPredicate(), args[0], args[1]) ? 1.0 : 0.0;
      })
      .Case<arith::SelectOp>(
          [&](auto) { return args[0] != 0.0 ? args[1] : args[2]; })
      .Default([](Operation *) -> double {
        llvm_unreachable("operation not read by ElementwiseFunction");
      });
}

/// Collects the DAG in post order.
class Reader {
public:
  Reader(llvm::SetVector<Value> &leaves,
         llvm::SetVector<Operation *> &operations, double &constantRoundoff,
         std::string &reason)
      : leaves(leaves), operations(operations),
        constantRoundoff(constantRoundoff), reason(reason) {}

  LogicalResult visit(Value value) {
    if (!visited.insert(value).second)
      return success();
    if (std::optional<SplatConstant> constant = getSplatConstant(value)) {
      if (constant->type)
        noteConstant(constant->type);
      return success();
    }
    Operation *def = value.getDefiningOp();
    if (auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(def);
        linalgOp && isElementwiseLinalg(linalgOp))
      return visitLinalg(linalgOp);
    if (def && isTensorLevelElementwise(def) && hasNoBroadcast(def))
      return visitTensorLevel(def);
    leaves.insert(value);
    return success();
  }

private:
  void noteConstant(FloatType type) {
    double roundoff = std::ldexp(1.0, -int(type.getFPMantissaWidth()));
    constantRoundoff = std::max(constantRoundoff, roundoff);
  }

  /// Every data operand is shaped like the result, or is a splat constant:
  /// an operation that broadcasts a tensor (a bias) starts a leaf instead.
  bool hasNoBroadcast(Operation *op) {
    Type resultType = op->getResult(0).getType();
    return llvm::all_of(getDataOperands(op), [&](Value operand) {
      return getSplatConstant(operand).has_value() ||
             cast<ShapedType>(operand.getType()).getShape() ==
                 cast<ShapedType>(resultType).getShape();
    });
  }

  LogicalResult failOn(Operation *op, StringRef why) {
    reason = (op->getName().getStringRef() + ": " + why).str();
    return failure();
  }

  LogicalResult visitTensorLevel(Operation *op) {
    if (isErf(op))
      return failOn(op, "erf (exact GELU) is not a supported activation; "
                        "only its tanh approximation is");
    for (Value operand : getDataOperands(op))
      if (failed(visit(operand)))
        return failure();
    operations.insert(op);
    return success();
  }

  LogicalResult visitLinalg(linalg::LinalgOp op) {
    for (OpOperand *input : op.getDpsInputOperands())
      if (!op.getMatchingBlockArgument(input).use_empty() &&
          failed(visit(input->get())))
        return failure();
    for (Operation &payload : op.getBlock()->getOperations()) {
      if (isErf(&payload))
        return failOn(&payload, "erf (exact GELU) is not a supported "
                                "activation; only its tanh approximation is");
      if (!isScalarPayloadOperation(&payload))
        return failOn(&payload, "cannot be read as a scalar function");
      if (auto constant = dyn_cast<arith::ConstantOp>(payload)) {
        std::optional<SplatConstant> value = getSplatFloat(constant.getValue());
        if (!value)
          return failOn(&payload, "is not a numeric constant");
        if (value->type)
          noteConstant(value->type);
      }
      // Values captured from above the payload are scalars of the function.
      for (Value operand : payload.getOperands())
        if (operand.getParentRegion() != &op->getRegion(0) &&
            failed(visit(operand)))
          return failure();
    }
    operations.insert(op);
    return success();
  }

  llvm::SetVector<Value> &leaves;
  llvm::SetVector<Operation *> &operations;
  double &constantRoundoff;
  std::string &reason;
  llvm::DenseSet<Value> visited;
};

/// Runs the collected operations on doubles.
class Interpreter {
public:
  explicit Interpreter(DenseMap<Value, double> leafValues)
      : values(std::move(leafValues)) {}

  /// The payload's value once its inputs' block arguments are in `values`.
  double runPayloadOf(linalg::LinalgOp op) { return runScalarPayload(op); }

  double valueOf(Value value) {
    if (auto it = values.find(value); it != values.end())
      return it->second;
    if (std::optional<SplatConstant> constant = getSplatConstant(value))
      return values[value] = constant->value;
    Operation *def = value.getDefiningOp();
    assert(def && "a value the reader did not collect");
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(def))
      return values[value] = runPayload(linalgOp);
    return values[value] = apply(def);
  }

private:
  double apply(Operation *op) {
    SmallVector<double, 3> args;
    for (Value operand : getDataOperands(op))
      args.push_back(valueOf(operand));
    return applyScalarOperation(op, args);
  }

  double runPayload(linalg::LinalgOp op) {
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument argument = op.getMatchingBlockArgument(input);
      if (!argument.use_empty())
        values[argument] = valueOf(input->get());
    }
    return runScalarPayload(op);
  }

  double runScalarPayload(linalg::LinalgOp op) {
    for (Operation &payload : op.getBlock()->getOperations()) {
      if (auto yield = dyn_cast<linalg::YieldOp>(payload))
        return valueOf(yield.getValues().front());
      if (isa<arith::ConstantOp>(payload))
        continue; // read through getSplatConstant on use
      values[payload.getResult(0)] = apply(&payload);
    }
    llvm_unreachable("a linalg payload ends in linalg.yield");
  }

  DenseMap<Value, double> values;
};

} // namespace

std::optional<double> mlir::fmlp::getSplatFloatValue(Value value) {
  if (std::optional<SplatConstant> constant = getSplatConstant(value);
      constant && constant->type)
    return constant->value;
  return std::nullopt;
}

std::optional<double>
mlir::fmlp::evaluatePayload(linalg::LinalgOp op,
                            ArrayRef<double> inputValues) {
  if (static_cast<int64_t>(inputValues.size()) != op.getNumDpsInputs())
    return std::nullopt;
  Region &region = op->getRegion(0);
  DenseMap<Value, double> values;
  for (OpOperand *input : op.getDpsInputOperands())
    values[op.getMatchingBlockArgument(input)] =
        inputValues[input->getOperandNumber()];
  // Only scalar operations whose meaning is known, on the inputs' block
  // arguments (never the output's), payload values and splat constants.
  for (Operation &payload : op.getBlock()->getOperations()) {
    if (!isScalarPayloadOperation(&payload) || isErf(&payload))
      return std::nullopt;
    if (auto constant = dyn_cast<arith::ConstantOp>(payload)) {
      if (!getSplatFloat(constant.getValue()))
        return std::nullopt;
      continue;
    }
    for (Value operand : payload.getOperands()) {
      if (values.count(operand) || getSplatConstant(operand))
        continue;
      if (operand.getParentRegion() == &region &&
          !isa<BlockArgument>(operand))
        continue; // a payload result, in values once computed
      return std::nullopt;
    }
  }
  return Interpreter(std::move(values)).runPayloadOf(op);
}

bool mlir::fmlp::isCopyPayload(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getBlock()->getOperations().size() != 1)
    return false;
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  return yield.getValues().size() == 1 &&
         yield.getValues()[0] ==
             op.getMatchingBlockArgument(op.getDpsInputOperand(0));
}

bool mlir::fmlp::isElementwiseCast(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 1 ||
      linalgOp.getNumDpsInits() != 1 || linalgOp->getNumResults() != 1 ||
      linalgOp.getNumLoops() != linalgOp.getNumParallelLoops() ||
      !llvm::all_of(linalgOp.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  // The payload is a chain of extf/truncf from the input to the yield.
  Value value = linalgOp.getMatchingBlockArgument(
      linalgOp.getDpsInputOperand(0));
  for (Operation &payload : linalgOp.getBlock()->without_terminator()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(payload) ||
        payload.getOperand(0) != value)
      return false;
    value = payload.getResult(0);
  }
  auto yield = cast<linalg::YieldOp>(linalgOp.getBlock()->getTerminator());
  return yield.getValues().size() == 1 && yield.getValues()[0] == value &&
         !linalgOp.getBlock()->without_terminator().empty();
}

std::optional<BroadcastView> mlir::fmlp::getBroadcastSource(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto broadcast = dyn_cast_or_null<linalg::BroadcastOp>(def))
    return BroadcastView{broadcast.getInput(),
                         SmallVector<int64_t>(broadcast.getDimensions()), def};
  // A generic that copies its one input into a larger output: the output is
  // indexed by all loops in order, the input by a strictly increasing subset
  // of them; the loops it does not read are the added dimensions.
  auto generic = dyn_cast_or_null<linalg::GenericOp>(def);
  if (!generic || !isCopyPayload(generic) ||
      generic.getNumLoops() != generic.getNumParallelLoops())
    return std::nullopt;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (!maps[1].isIdentity() ||
      maps[0].getNumResults() > maps[1].getNumResults())
    return std::nullopt;
  SmallVector<int64_t> added;
  int64_t next = 0;
  ArrayRef<int64_t> sourceShape =
      cast<ShapedType>(generic.getDpsInputs()[0].getType()).getShape();
  for (auto [index, result] : llvm::enumerate(maps[0].getResults())) {
    // A unit dimension of the source read at 0 is broadcast too (JAX:
    // [1, N] -> [T, N] with the map (d0, d1) -> (0, d1)).
    if (auto constant = dyn_cast<AffineConstantExpr>(result);
        constant && constant.getValue() == 0 && sourceShape[index] == 1)
      continue;
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim)
      return std::nullopt;
    int64_t position = dim.getPosition();
    if (position < next)
      return std::nullopt; // a transpose as well
    for (; next < position; ++next)
      added.push_back(next);
    next = position + 1;
  }
  for (; next < int64_t(generic.getNumLoops()); ++next)
    added.push_back(next);
  if (added.empty())
    return std::nullopt; // a copy
  return BroadcastView{generic.getDpsInputs()[0], added, def};
}

FailureOr<ElementwiseFunction> ElementwiseFunction::read(Value root,
                                                         std::string &reason) {
  ElementwiseFunction function(root);
  Reader reader(function.leaves, function.operations, function.constantRoundoff,
                reason);
  if (failed(reader.visit(root)))
    return failure();
  return function;
}

double ElementwiseFunction::evaluate(ArrayRef<double> leafValues) const {
  assert(leafValues.size() == leaves.size() && "one value per leaf");
  DenseMap<Value, double> values;
  for (auto [leaf, value] : llvm::zip_equal(leaves, leafValues))
    values[leaf] = value;
  return Interpreter(std::move(values)).valueOf(root);
}
