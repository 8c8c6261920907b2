//===- Recognize.cpp - Find gated MLP blocks in linalg and TOSA IR --------===//
//
// Implements fmlp-recognize (see Passes.td for what it recognizes). Each
// contraction is tried as the down projection of a block, from the last to
// the first, and the block is read backwards:
//
//   y_out = c * y                      (optional linear tail: down multiplier)
//   y     = A Wd (+ bd)                (matchProjection)
//   A     = f(P0, P1)                  (ElementwiseFunction with two leaves)
//   P0, P1 = x W0 (+ b0), x W1 (+ b1)  (matchProjection, one shared x)
//
// and f is identified as act(m * g) * u for one assignment of {P0, P1} to
// {g, u}. A match is rewritten only if none of its intermediate values
// escapes and the resulting fmlp.gated_mlp verifies.
//
//===----------------------------------------------------------------------===//

#include "passes/ElementwiseFunction.h"
#include "passes/Passes.h"
#include "passes/Projection.h"

#include "dialects/FMLP/FMLPOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>

namespace mlir::fmlp {
#define GEN_PASS_DEF_RECOGNIZEPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

namespace {

//===----------------------------------------------------------------------===//
// Activation identification
//===----------------------------------------------------------------------===//

double applyActivation(Activation activation, double z) {
  switch (activation) {
  case Activation::silu:
    return z / (1.0 + std::exp(-z));
  case Activation::gelu_tanh: {
    const double k = std::sqrt(2.0 / llvm::numbers::pi);
    return 0.5 * z * (1.0 + std::tanh(k * (z + 0.044715 * z * z * z)));
  }
  case Activation::relu:
    return std::max(z, 0.0);
  }
  llvm_unreachable("unknown activation");
}

/// Points (g, u) at which an activation product is compared with each
/// template: g spans the activations' curved region and both tails.
constexpr std::pair<double, double> kSamplePoints[] = {
    {-6.0, 1.7}, {-4.5, -0.8}, {-3.0, 0.45},  {-2.0, -2.3}, {-1.5, 1.1},
    {-1.0, 1.7}, {-0.5, -0.8}, {-0.25, 0.45}, {0.1, -2.3},  {0.3, 1.1},
    {0.7, 1.7},  {1.0, -0.8},  {1.3, 0.45},   {2.0, -2.3},  {2.5, 1.1},
    {3.5, 1.7},  {5.0, -0.8},  {6.0, 0.45}};

/// Multipliers in the IR are f32 (or narrower) constants; the estimate of
/// one carries double-precision rounding. Returns the nearest f32 when it is
/// that close, so that 0.578125 is not stored as 0.57812500000000011.
double snapToFloat(double value) {
  double nearest = static_cast<float>(value);
  return std::fabs(nearest - value) <= 1e-12 * std::fabs(value) ? nearest
                                                                : value;
}

struct ActivationProduct {
  unsigned gateLeaf; // which leaf of the function is g; the other is u
  Activation activation;
  double gateMultiplier;
};

/// Identifies `function`, of two leaves, as act(m * g) * u.
FailureOr<ActivationProduct>
identifyActivationProduct(const ElementwiseFunction &function,
                          std::string &reason) {
  // Constants rounded to a narrow type move the function by about a tenth of
  // their unit roundoff (bf16 GELU constants: 3e-4 relative); allow a
  // quarter. 1e-12 covers double-precision evaluation. Frontends also write
  // constants to fewer digits than their type holds: torch-mlir (IREE 3.13)
  // writes GELU-tanh's sqrt(2/pi) = 0.7978846 as 0.797724, 2e-4 relative,
  // which moves the function by up to 2.3e-5 of the scale below; the floor
  // kFrontendConstantTolerance accepts that, and stays 2.6x below the
  // nearest other GELU (erf's, 1.3e-4 away from gelu_tanh on this scale).
  constexpr double kFrontendConstantTolerance = 5e-5;
  double tolerance =
      std::max(kFrontendConstantTolerance,
               1e-12 + 0.25 * function.getConstantRoundoff());
  for (unsigned gateLeaf : {0u, 1u}) {
    auto evaluate = [&](double g, double u) {
      double values[2];
      values[gateLeaf] = g;
      values[1 - gateLeaf] = u;
      return function.evaluate(values);
    };
    // act(z) - act(-z) = z for silu, gelu_tanh and relu.
    double multiplier = evaluate(1.0, 1.0) - evaluate(-1.0, 1.0);
    if (!std::isfinite(multiplier) || multiplier == 0.0)
      continue;
    multiplier = snapToFloat(multiplier);
    for (Activation activation :
         {Activation::silu, Activation::gelu_tanh, Activation::relu}) {
      bool agrees = llvm::all_of(kSamplePoints, [&](auto point) {
        auto [g, u] = point;
        double expected = applyActivation(activation, multiplier * g) * u;
        double scale = std::fabs(u) * (1.0 + std::fabs(multiplier * g));
        return std::fabs(evaluate(g, u) - expected) <= tolerance * scale;
      });
      if (agrees)
        return ActivationProduct{gateLeaf, activation, multiplier};
    }
  }
  reason = "the activation product is none of silu(g)*u, gelu_tanh(g)*u, "
           "relu(g)*u (with a gate multiplier), for either operand as g";
  return failure();
}

bool isOne(double multiplier) { return std::fabs(multiplier - 1.0) < 1e-12; }

//===----------------------------------------------------------------------===//
// Block matching
//===----------------------------------------------------------------------===//

struct BlockMatch {
  Projection gate, up, down;
  ActivationProduct product;
  SmallVector<Operation *> activationOps;
  /// Linear operations after the down projection, folded into the block.
  SmallVector<Operation *> tailOps;
  double downMultiplier = 1.0;
  /// The value the fused operation replaces.
  Value output;
};

/// Two values denote the same tensor: the same value, or results of two
/// identical side-effect-free operations on the same operands (e.g. two
/// reshapes of x that CSE has not merged yet).
bool isSameTensor(Value a, Value b) {
  if (a == b)
    return true;
  Operation *defA = a.getDefiningOp(), *defB = b.getDefiningOp();
  return defA && defB && isPure(defA) &&
         cast<OpResult>(a).getResultNumber() ==
             cast<OpResult>(b).getResultNumber() &&
         OperationEquivalence::isEquivalentTo(
             defA, defB, OperationEquivalence::exactValueMatch,
             /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

/// Extends the block past `match.down` through single-use elementwise
/// operations that compute c * y, stopping at the last value whose type is
/// x's (the type the fused operation must produce).
void matchLinearTail(BlockMatch &match, Type outputType) {
  Value value = match.down.result;
  SmallVector<Operation *> tail;
  double multiplier = 1.0;
  if (value.getType() == outputType)
    match.output = value;
  while (value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    if (user->getNumResults() != 1)
      break;
    std::string ignored;
    FailureOr<ElementwiseFunction> function =
        ElementwiseFunction::read(user->getResult(0), ignored);
    if (failed(function) || function->getLeaves().size() != 1 ||
        function->getLeaves().front() != value)
      break;
    double c = snapToFloat(function->evaluate({1.0}));
    bool linear =
        std::isfinite(c) &&
        llvm::all_of(std::initializer_list<double>{-2.5, 0.75, 3.0},
                     [&](double y) {
                       return std::fabs(function->evaluate({y}) - c * y) <=
                              1e-12 * std::fabs(c * y);
                     });
    if (!linear)
      break;
    llvm::append_range(tail, function->getOperations());
    multiplier *= c;
    value = user->getResult(0);
    if (value.getType() == outputType) {
      match.output = value;
      match.tailOps = tail;
      match.downMultiplier = multiplier;
    }
  }
}

/// Reads the block whose down projection is `down`.
FailureOr<BlockMatch> matchGatedMlp(const Projection &down,
                                    std::string &reason) {
  BlockMatch match;
  std::string why;
  match.down = down;

  FailureOr<ElementwiseFunction> activation =
      ElementwiseFunction::read(match.down.input, why);
  if (failed(activation)) {
    reason = "the projected tensor is not an activation product: " + why;
    return failure();
  }
  if (activation->getOperations().empty()) {
    reason = "the projected tensor is not computed by elementwise operations, "
             "so this is no down projection";
    return failure();
  }
  if (activation->getLeaves().size() != 2) {
    reason = "the projected tensor is an elementwise function of " +
             std::to_string(activation->getLeaves().size()) +
             " tensors, not of a gate and an up projection";
    return failure();
  }
  match.activationOps.assign(activation->getOperations().begin(),
                             activation->getOperations().end());

  Projection projections[2];
  ArrayRef<Value> leaves = activation->getLeaves();
  if (llvm::all_of(leaves, [](Value leaf) {
        return leaf.getDefiningOp<tensor::ExtractSliceOp>();
      })) {
    // Both operands are slices: the two halves of one fused gate_up
    // projection (Phi3), or no block.
    FailureOr<std::pair<Projection, Projection>> halves =
        matchProjectionHalves(leaves[0], leaves[1], why);
    if (failed(halves)) {
      reason = "the operands of the activation product are slices, but not "
               "the two halves of one projection: " +
               why;
      return failure();
    }
    std::tie(projections[0], projections[1]) = *halves;
  } else {
    for (unsigned i = 0; i < 2; ++i) {
      FailureOr<Projection> projection = matchProjection(leaves[i], why);
      if (failed(projection)) {
        reason = "operand " + std::to_string(i) +
                 " of the activation product is not a projection: " + why;
        return failure();
      }
      projections[i] = *projection;
    }
  }
  if (!isSameTensor(projections[0].input, projections[1].input)) {
    reason = "the gate and up projections read different tensors";
    return failure();
  }

  FailureOr<ActivationProduct> product =
      identifyActivationProduct(*activation, reason);
  if (failed(product))
    return failure();
  match.product = *product;
  match.gate = projections[product->gateLeaf];
  match.up = projections[1 - product->gateLeaf];

  matchLinearTail(match, match.gate.input.getType());
  if (!match.output) {
    reason = "the down projection's result never has x's type " +
             llvm::formatv("{0}", match.gate.input.getType()).str();
    return failure();
  }
  return match;
}

/// The operations whose values live only inside the block.
llvm::SetVector<Operation *> getBlockInterior(const BlockMatch &match) {
  llvm::SetVector<Operation *> interior;
  for (const Projection *projection : {&match.gate, &match.up, &match.down})
    interior.insert(projection->dataPath.begin(), projection->dataPath.end());
  interior.insert(match.down.inputViews.begin(), match.down.inputViews.end());
  interior.insert(match.activationOps.begin(), match.activationOps.end());
  interior.insert(match.tailOps.begin(), match.tailOps.end());
  return interior;
}

/// No value computed inside the block may be used outside it, except the
/// output; and the block must lie in one basic block.
LogicalResult verifyNothingEscapes(const BlockMatch &match,
                                   const llvm::SetVector<Operation *> &interior,
                                   std::string &reason) {
  Block *block = match.output.getDefiningOp()->getBlock();
  for (Operation *op : interior) {
    if (op->getBlock() != block) {
      reason = "the block spans several regions";
      return failure();
    }
    for (Value result : op->getResults()) {
      if (result == match.output)
        continue;
      for (Operation *user : result.getUsers()) {
        if (interior.contains(user))
          continue;
        reason = "an intermediate value (" +
                 op->getName().getStringRef().str() +
                 ") is also used outside the block";
        return failure();
      }
    }
  }
  return success();
}

/// Builds the fused operation; returns null, with the verifier's message in
/// `reason`, if it does not verify.
GatedMlpOp buildGatedMlp(const BlockMatch &match, std::string &reason) {
  Operation *outputOp = match.output.getDefiningOp();
  OpBuilder builder(outputOp);
  MLIRContext *context = builder.getContext();
  SmallVector<Location> locations;
  for (const Projection *projection : {&match.gate, &match.up, &match.down})
    locations.push_back(projection->dataPath.back()->getLoc());
  locations.push_back(outputOp->getLoc());

  auto optionalMultiplier = [&](double value) -> FloatAttr {
    return isOne(value) ? FloatAttr() : builder.getF64FloatAttr(value);
  };
  auto layout = [&](WeightLayout value) {
    return WeightLayoutAttr::get(context, value);
  };
  // Halves of a fused gate_up projection take views of its weight and bias
  // (tensor.extract_slice, built here): operands, never copies.
  Location loc = builder.getFusedLoc(locations);
  SmallVector<Value> operands;
  for (const Projection *projection : {&match.gate, &match.up, &match.down})
    operands.push_back(getWeightOperand(builder, loc, *projection));
  for (const Projection *projection : {&match.gate, &match.up, &match.down})
    operands.push_back(getBiasOperand(builder, loc, *projection));
  auto op = GatedMlpOp::create(
      builder, loc, match.output.getType(), match.gate.input, operands[0],
      operands[1], operands[2], operands[3], operands[4], operands[5],
      /*lora_a=*/Value(), /*gate_lora_b=*/Value(), /*up_lora_b=*/Value(),
      /*down_lora_a=*/Value(), /*down_lora_b=*/Value(),
      ActivationAttr::get(context, match.product.activation),
      layout(match.gate.layout), layout(match.up.layout),
      layout(match.down.layout),
      optionalMultiplier(match.product.gateMultiplier),
      optionalMultiplier(match.downMultiplier), PrecisionAttr());

  ScopedDiagnosticHandler captureVerifierMessage(
      context, [&](Diagnostic &diagnostic) {
        reason = "the fused operation would not verify: " + diagnostic.str();
        return success();
      });
  if (succeeded(op.verifyInvariants()))
    return op;
  op->erase();
  // Erase the views built above, and only those.
  const Projection *projections[] = {&match.gate, &match.up, &match.down};
  for (auto [index, projection] : llvm::enumerate(projections)) {
    if (!projection->outputSlice)
      continue;
    for (Value view : {operands[index], operands[3 + index]})
      if (view)
        view.getDefiningOp()->erase();
  }
  return nullptr;
}

/// Erases the operations of `candidates` that are dead once the block is
/// replaced, and then the producers (empty tensors, constants) that they
/// leave dead.
void eraseDeadOperations(ArrayRef<Operation *> candidates,
                         DenseSet<Operation *> &erased) {
  SmallVector<Operation *> worklist(candidates.begin(), candidates.end());
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned i = 0; i < worklist.size(); ++i) {
      Operation *op = worklist[i];
      if (erased.contains(op) || !isOpTriviallyDead(op))
        continue;
      llvm::SetVector<Value> used(op->getOperands().begin(),
                                  op->getOperands().end());
      getUsedValuesDefinedAbove(op->getRegions(), used);
      for (Value value : used)
        if (Operation *producer = value.getDefiningOp())
          worklist.push_back(producer);
      erased.insert(op);
      op->erase();
      changed = true;
    }
  }
}

/// The values at which a projection computed by `contraction` may end: its
/// result, then each single use of the kinds a projection can include after
/// its contraction (a bias add, TOSA's reshape and cast).
SmallVector<Value> getProjectionEnds(Operation *contraction) {
  SmallVector<Value> ends = {contraction->getResult(0)};
  while (ends.back().hasOneUse() && ends.size() <= 5) {
    Operation *user = *ends.back().getUsers().begin();
    if (user->getNumResults() != 1 ||
        !isa<linalg::LinalgOp, tensor::ExpandShapeOp,
             tensor::CollapseShapeOp, tosa::AddOp,
             tosa::ReshapeOp, tosa::CastOp>(user))
      break;
    ends.push_back(user->getResult(0));
  }
  return ends;
}

bool isContraction(Operation *op) {
  if (isa<tosa::MatMulOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}

struct RecognizePass : mlir::fmlp::impl::RecognizePassBase<RecognizePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> contractions;
    getOperation()->walk([&](Operation *op) {
      if (isContraction(op))
        contractions.push_back(op);
    });

    // Last first: a block's down projection follows its gate and up
    // projections, so each block is tried from its end.
    DenseSet<Operation *> erased;
    for (Operation *contraction : llvm::reverse(contractions)) {
      if (erased.contains(contraction))
        continue;
      std::string reason;
      if (succeeded(fuseBlockWithDownProjection(contraction, erased, reason)))
        continue;
      if (explainMisses)
        contraction->emitRemark("not fused into fmlp.gated_mlp: ") << reason;
    }
  }

  /// Tries the ends of `contraction`, outermost first, as the down
  /// projection of a block. On failure, `reason` says why the outermost end
  /// (the most complete candidate) did not fuse.
  LogicalResult fuseBlockWithDownProjection(Operation *contraction,
                                            DenseSet<Operation *> &erased,
                                            std::string &reason) {
    for (Value end : llvm::reverse(getProjectionEnds(contraction))) {
      // Only ends at which `contraction` is a projection's contraction.
      std::string why;
      FailureOr<Projection> projection = matchProjection(end, why);
      if (failed(projection) ||
          !llvm::is_contained(projection->dataPath, contraction)) {
        if (end == contraction->getResult(0) && reason.empty())
          reason = "not a projection: " + why;
        continue;
      }
      if (succeeded(fuseBlockAt(*projection, erased, why)))
        return success();
      if (reason.empty())
        reason = why;
    }
    return failure();
  }

  /// Fuses the block whose down projection ends at `end`, if there is one
  /// and nothing in it escapes.
  LogicalResult fuseBlockAt(const Projection &down,
                            DenseSet<Operation *> &erased,
                            std::string &reason) {
    FailureOr<BlockMatch> match = matchGatedMlp(down, reason);
    if (failed(match))
      return failure();
    llvm::SetVector<Operation *> interior = getBlockInterior(*match);
    if (failed(verifyNothingEscapes(*match, interior, reason)))
      return failure();
    GatedMlpOp fused = buildGatedMlp(*match, reason);
    if (!fused)
      return failure();
    match->output.replaceAllUsesWith(fused.getY());
    SmallVector<Operation *> dead(interior.begin(), interior.end());
    for (const Projection *projection :
         {&match->gate, &match->up, &match->down}) {
      llvm::append_range(dead, projection->inputViews);
      llvm::append_range(dead, projection->operandPreparation);
    }
    eraseDeadOperations(dead, erased);
    return success();
  }
};

} // namespace
