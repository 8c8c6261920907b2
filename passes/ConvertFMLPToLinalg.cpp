//===- ConvertFMLPToLinalg.cpp - The kernel plan on the CPU ---------------===//
//
// Implements convert-fmlp-to-linalg (see Passes.td). Every kernel is a
// contraction into an f32 accumulator followed by an elementwise epilogue
// that rounds once to the element type:
//
//   K1  G = mg (x Wg), U = x Wu      -> A = act(G) U [, G, U]
//   K2  Y = A Wd                     -> y = md Y
//   K3  dA = md (dY Wd^T)            -> dG = mg dA U act'(G), dU = dA act(G)
//   K4  dX = dG Wg^T + dU Wu^T       -> dx
//   K5  dWg = x^T dG, dWu = x^T dU   -> d_gate, d_up [+= when accumulating]
//   K6  dWd = md A^T dY              -> d_down (A = act(G) U recomputed when
//                                       G, U are given)
//
// bias_grad is a column sum, transpose a copy (linalg.transpose).
//
// Contractions are written over loops (i, j, k) with each operand's
// indexing map chosen by its role and weight layout.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/FMLP/FMLPOps.h"
#include "codegen/Activation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fmlp {
#define GEN_PASS_DEF_CONVERTFMLPTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

namespace {

/// Loop dimensions of a contraction C[i, j] = sum_k ...
enum Dim : unsigned { I = 0, J = 1, K = 2 };

class KernelLowering {
public:
  KernelLowering(OpBuilder &builder, Location loc)
      : b(builder), loc(loc), f32(builder.getF32Type()) {}

  Value toF32(Value v) {
    return v.getType() == f32 ? v : arith::ExtFOp::create(b, loc, f32, v);
  }
  Value fromF32(Value v, Type element) {
    return element == f32 ? v : arith::TruncFOp::create(b, loc, element, v);
  }
  Value constant(double value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  Value scale(Value v, std::optional<APFloat> multiplier) {
    return multiplier ? arith::MulFOp::create(
                            b, loc, v, constant(multiplier->convertToDouble()))
                      : v;
  }

  /// A zeroed f32 accumulator of `rows` x `columns`.
  Value accumulator(OpFoldResult rows, OpFoldResult columns) {
    SmallVector<OpFoldResult> sizes = {rows, columns};
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamic;
    for (OpFoldResult size : sizes) {
      if (std::optional<int64_t> value = getConstantIntValue(size)) {
        shape.push_back(*value);
      } else {
        shape.push_back(ShapedType::kDynamic);
        dynamic.push_back(cast<Value>(size));
      }
    }
    Value acc =
        memref::AllocOp::create(b, loc, MemRefType::get(shape, f32), dynamic);
    linalg::FillOp::create(b, loc, constant(0.0), acc);
    temporaries.push_back(acc);
    return acc;
  }
  OpFoldResult size(Value v, int64_t dim) {
    return memref::getMixedSize(b, loc, v, dim);
  }

  AffineMap map(Dim first, Dim second) {
    return AffineMap::get(
        3, 0, {b.getAffineDimExpr(first), b.getAffineDimExpr(second)},
        b.getContext());
  }
  /// How C[i, j] += lhs[i, k] w[.., ..] reads a weight stored in `layout`
  /// whose "in" extent is k: in_out [k, j], out_in [j, k]; `transposed`
  /// reads it as the transpose (in extent j).
  AffineMap weightMap(WeightLayout layout, bool transposed) {
    bool inFirst = layout == WeightLayout::in_out;
    if (transposed)
      inFirst = !inFirst;
    return inFirst ? map(K, J) : map(J, K);
  }

  /// acc[i, j] += product(ins at their maps), over (i, j, k).
  void contract(ValueRange ins, ArrayRef<AffineMap> maps, Value acc,
                function_ref<Value(ValueRange)> product) {
    SmallVector<AffineMap> allMaps(maps.begin(), maps.end());
    allMaps.push_back(map(I, J));
    SmallVector<utils::IteratorType> iterators = {
        utils::IteratorType::parallel, utils::IteratorType::parallel,
        utils::IteratorType::reduction};
    linalg::GenericOp::create(
        b, loc, ins, ValueRange{acc}, allMaps, iterators,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          SmallVector<Value> operands;
          for (Value arg : args.drop_back())
            operands.push_back(toF32(arg));
          Value sum =
              arith::AddFOp::create(b, loc, args.back(), product(operands));
          linalg::YieldOp::create(b, loc, sum);
        });
  }
  void contract(Value lhs, AffineMap lhsMap, Value rhs, AffineMap rhsMap,
                Value acc) {
    contract({lhs, rhs}, {lhsMap, rhsMap}, acc, [&](ValueRange v) -> Value {
      return arith::MulFOp::create(b, loc, v[0], v[1]);
    });
  }

  /// outs[...][i, j] = epilogue(ins[i, j]...), elementwise over 2-D; an
  /// input may be read through another map (a bias: (i, j) -> (j)).
  void epilogue(ValueRange ins, ValueRange outs,
                function_ref<SmallVector<Value>(ValueRange)> body,
                ArrayRef<AffineMap> inputMaps = {}) {
    AffineMap identity = b.getMultiDimIdentityMap(2);
    SmallVector<AffineMap> maps(inputMaps.begin(), inputMaps.end());
    maps.resize(ins.size(), identity);
    maps.append(outs.size(), identity);
    SmallVector<utils::IteratorType> iterators(2,
                                               utils::IteratorType::parallel);
    linalg::GenericOp::create(
        b, loc, ins, outs, maps, iterators,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          SmallVector<Value> operands;
          // Ins and outs alike are passed as f32 (accumulating epilogues
          // read their outs).
          for (Value arg : args)
            operands.push_back(toF32(arg));
          SmallVector<Value> results = body(operands);
          SmallVector<Value> rounded;
          for (auto [result, out] : llvm::zip_equal(results, outs))
            rounded.push_back(fromF32(result, getElementTypeOrSelf(out)));
          linalg::YieldOp::create(b, loc, rounded);
        });
  }

  /// The map that reads a 1-D bias along the columns of a 2-D loop nest.
  AffineMap columnMap() {
    return AffineMap::get(2, 0, {b.getAffineDimExpr(1)}, b.getContext());
  }

  void releaseTemporaries() {
    for (Value temporary : temporaries)
      memref::DeallocOp::create(b, loc, temporary);
  }

  OpBuilder &b;
  Location loc;
  Type f32;
  SmallVector<Value> temporaries;
};

void lower(GateUpOp op, KernelLowering &k) {
  Value x = op.getX();
  ValueRange outs = op.getInits();
  OpFoldResult tokens = k.size(x, 0), hidden = k.size(outs[0], 1);
  Value g = k.accumulator(tokens, hidden), u = k.accumulator(tokens, hidden);
  k.contract(x, k.map(I, K), op.getGate(),
             k.weightMap(op.getGateLayout(), false), g);
  k.contract(x, k.map(I, K), op.getUp(), k.weightMap(op.getUpLayout(), false),
             u);
  // The adapters' terms, into the same sums: G += Z Bg^T, U += Z Bu^T.
  if (Value z = op.getLoraZ()) {
    k.contract(z, k.map(I, K), op.getGateLoraB(),
               k.weightMap(WeightLayout::out_in, false), g);
    k.contract(z, k.map(I, K), op.getUpLoraB(),
               k.weightMap(WeightLayout::out_in, false), u);
  }
  Activation activation = op.getActivation();
  std::optional<APFloat> mg = op.getGateMultiplier();
  // Epilogue inputs: the accumulators, then the biases that are given.
  SmallVector<Value> ins = {g, u};
  SmallVector<AffineMap> maps(2, k.b.getMultiDimIdentityMap(2));
  for (Value bias : {op.getGateBias(), op.getUpBias()})
    if (bias) {
      ins.push_back(bias);
      maps.push_back(k.columnMap());
    }
  bool hasGateBias = static_cast<bool>(op.getGateBias());
  bool hasUpBias = static_cast<bool>(op.getUpBias());
  k.epilogue(
      ins, outs,
      [&](ValueRange v) -> SmallVector<Value> {
        unsigned next = 2;
        Value gateSum = hasGateBias
                            ? arith::AddFOp::create(k.b, k.loc, v[0], v[next++])
                            : v[0];
        Value up = hasUpBias
                       ? arith::AddFOp::create(k.b, k.loc, v[1], v[next++])
                       : v[1];
        Value gate = k.scale(gateSum, mg);
        Value a = arith::MulFOp::create(
            k.b, k.loc, buildActivation(k.b, k.loc, activation, gate), up);
        if (outs.size() == 1)
          return {a};
        return {a, gate, up};
      },
      maps);
}

/// y = multiplier (a W + z B^T + bias), W read in `layout`, B [out, R]
/// (when z is given): K2, and gate.
void lowerProjection(Value a, Value weight, WeightLayout layout, Value bias,
                     std::optional<APFloat> multiplier, Value y,
                     KernelLowering &k, Value z = Value(),
                     Value loraB = Value()) {
  Value acc = k.accumulator(k.size(y, 0), k.size(y, 1));
  k.contract(a, k.map(I, K), weight, k.weightMap(layout, false), acc);
  if (z)
    k.contract(z, k.map(I, K), loraB,
               k.weightMap(WeightLayout::out_in, false), acc);
  if (!bias) {
    k.epilogue({acc}, {y}, [&](ValueRange v) -> SmallVector<Value> {
      return {k.scale(v[0], multiplier)};
    });
    return;
  }
  k.epilogue({acc, bias}, {y},
             [&](ValueRange v) -> SmallVector<Value> {
               return {k.scale(arith::AddFOp::create(k.b, k.loc, v[0], v[1]),
                               multiplier)};
             },
             {k.b.getMultiDimIdentityMap(2), k.columnMap()});
}

void lower(DownOp op, KernelLowering &k) {
  lowerProjection(op.getA(), op.getDown(), op.getDownLayout(),
                  op.getDownBias(), op.getDownMultiplier(), op.getInits()[0],
                  k, op.getLoraZ(), op.getLoraB());
}

void lower(GateOp op, KernelLowering &k) {
  lowerProjection(op.getX(), op.getGate(), op.getGateLayout(),
                  op.getGateBias(), op.getGateMultiplier(), op.getInits()[0],
                  k, op.getLoraZ(), op.getGateLoraB());
}

void lower(DownGradOp op, KernelLowering &k) {
  ValueRange outs = op.getInits();
  Value dA = k.accumulator(k.size(op.getG(), 0), k.size(op.getG(), 1));
  // dA[t, h] = sum_d dY[t, d] Wd[h -> d]: the down weight read transposed.
  k.contract(op.getDy(), k.map(I, K), op.getDown(),
             k.weightMap(op.getDownLayout(), true), dA);
  // The down adapter's term: dA[t, h] += sum_r dZd[t, r] Ad[r, h].
  if (Value dzd = op.getLoraDz())
    k.contract(dzd, k.map(I, K), op.getLoraA(), k.map(K, J), dA);
  Activation activation = op.getActivation();
  std::optional<APFloat> mg = op.getGateMultiplier(),
                         md = op.getDownMultiplier();
  k.epilogue(
      {dA, op.getG(), op.getU()}, outs,
      [&](ValueRange v) -> SmallVector<Value> {
        Value da = k.scale(v[0], md), g = v[1], u = v[2];
        Value slope = buildActivationDerivative(k.b, k.loc, activation, g);
        Value dg = k.scale(
            arith::MulFOp::create(
                k.b, k.loc, arith::MulFOp::create(k.b, k.loc, da, u), slope),
            mg);
        Value ag = buildActivation(k.b, k.loc, activation, g);
        Value du = arith::MulFOp::create(k.b, k.loc, da, ag);
        if (outs.size() == 2)
          return {dg, du};
        // A for K6 (save=gu), from the same G and U.
        return {dg, du, arith::MulFOp::create(k.b, k.loc, ag, u)};
      });
}

void lower(InputGradOp op, KernelLowering &k) {
  Value dx = op.getInits()[0];
  Value acc = k.accumulator(k.size(dx, 0), k.size(dx, 1));
  // dX[t, d] = sum_h dG[t, h] Wg[d -> h] + dU[t, h] Wu[d -> h]: K = 2H.
  k.contract(op.getDg(), k.map(I, K), op.getGate(),
             k.weightMap(op.getGateLayout(), true), acc);
  k.contract(op.getDu(), k.map(I, K), op.getUp(),
             k.weightMap(op.getUpLayout(), true), acc);
  // The adapters' term: dX[t, d] += sum_r dZ[t, r] A[r, d].
  if (Value dz = op.getLoraDz())
    k.contract(dz, k.map(I, K), op.getLoraA(), k.map(K, J), acc);
  k.epilogue({acc}, {dx},
             [](ValueRange v) -> SmallVector<Value> { return {v[0]}; });
}

/// out = acc (or out + acc when accumulating), rounded once.
void storeWeightGradient(KernelLowering &k, Value acc, Value out,
                         bool accumulate) {
  k.epilogue({acc}, {out}, [&](ValueRange v) -> SmallVector<Value> {
    if (!accumulate)
      return {v[0]};
    return {arith::AddFOp::create(k.b, k.loc, v[1], v[0])};
  });
}

/// The weight gradient of a projection `in -> out` stored in `layout`:
/// dW[in -> out] = sum_t input[t, in] grad[t, out].
void weightGradient(KernelLowering &k, Value input, Value grad,
                    WeightLayout layout, Value out, bool accumulate) {
  Value acc = k.accumulator(k.size(out, 0), k.size(out, 1));
  // in_out: dW[i = in, j = out]; out_in: dW[i = out, j = in].
  bool inFirst = layout == WeightLayout::in_out;
  AffineMap inputMap = inFirst ? k.map(K, I) : k.map(K, J);
  AffineMap gradMap = inFirst ? k.map(K, J) : k.map(K, I);
  k.contract(input, inputMap, grad, gradMap, acc);
  storeWeightGradient(k, acc, out, accumulate);
}

void lower(GateUpWeightGradOp op, KernelLowering &k) {
  weightGradient(k, op.getX(), op.getDg(), op.getGateLayout(), op.getInits()[0],
                 op.getAccumulate());
  weightGradient(k, op.getX(), op.getDu(), op.getUpLayout(), op.getInits()[1],
                 op.getAccumulate());
}

void lower(DownWeightGradOp op, KernelLowering &k) {
  Value out = op.getInits()[0];
  Value acc = k.accumulator(k.size(out, 0), k.size(out, 1));
  // dWd[h -> d] = sum_t A[t, h] dY[t, d].
  bool inFirst = op.getDownLayout() == WeightLayout::in_out;
  k.contract(op.getA(), inFirst ? k.map(K, I) : k.map(K, J), op.getDy(),
             inFirst ? k.map(K, J) : k.map(K, I), acc);
  std::optional<APFloat> md = op.getDownMultiplier();
  k.epilogue({acc}, {out}, [&](ValueRange v) -> SmallVector<Value> {
    Value grad = k.scale(v[0], md);
    if (!op.getAccumulate())
      return {grad};
    return {arith::AddFOp::create(k.b, k.loc, v[1], grad)};
  });
}

void lower(BiasGradOp op, KernelLowering &k) {
  Value out = op.getInits()[0];
  // acc[n] = sum_t grad[t, n], in f32.
  auto type =
      MemRefType::get(cast<MemRefType>(out.getType()).getShape(), k.f32);
  Value acc = memref::AllocOp::create(k.b, k.loc, type);
  linalg::FillOp::create(k.b, k.loc, k.constant(0.0), acc);
  k.temporaries.push_back(acc);
  AffineMap rows = k.b.getMultiDimIdentityMap(2);
  AffineMap columns =
      AffineMap::get(2, 0, {k.b.getAffineDimExpr(1)}, k.b.getContext());
  linalg::GenericOp::create(
      k.b, k.loc, ValueRange{op.getGrad()}, ValueRange{acc},
      ArrayRef<AffineMap>{rows, columns},
      ArrayRef<utils::IteratorType>{utils::IteratorType::reduction,
                                    utils::IteratorType::parallel},
      [&](OpBuilder &, Location, ValueRange args) {
        Value sum =
            arith::AddFOp::create(k.b, k.loc, args[1], k.toF32(args[0]));
        linalg::YieldOp::create(k.b, k.loc, sum);
      });
  // out = scale acc (+ out when accumulating), rounded once.
  std::optional<APFloat> scale = op.getScale();
  bool accumulate = op.getAccumulate();
  AffineMap identity = k.b.getMultiDimIdentityMap(1);
  linalg::GenericOp::create(
      k.b, k.loc, ValueRange{acc}, ValueRange{out},
      ArrayRef<AffineMap>{identity, identity},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &, Location, ValueRange args) {
        Value grad = k.scale(args[0], scale);
        if (accumulate)
          grad = arith::AddFOp::create(k.b, k.loc, k.toF32(args[1]), grad);
        linalg::YieldOp::create(k.b, k.loc,
                                k.fromF32(grad, getElementTypeOrSelf(out)));
      });
}

/// `x` (f32) rounded to the nearest tf32 value, ties away from zero (what
/// cvt.rna.tf32.f32 computes): half of tf32's last place (bit 12) added to
/// the magnitude's bits, then the 13 bits below tf32's mantissa cleared. A
/// carry out of the mantissa steps the exponent (to infinity past tf32's
/// largest finite value). NaN is passed as it is: its carry could reach
/// the sign (0x7FFFFFFF would become -0) or clear its mantissa (0x7F800001
/// would become infinity).
Value roundToTf32(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  auto constant = [&](uint32_t bits) {
    return arith::ConstantIntOp::create(b, loc, i32, bits);
  };
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  bits = arith::AddIOp::create(b, loc, bits, constant(0x1000));
  bits = arith::AndIOp::create(b, loc, bits, constant(0xFFFFE000u));
  Value rounded = arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
  Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
  return arith::SelectOp::create(b, loc, isNan, x, rounded);
}

/// out = in (transposed: out[j, i] = in[i, j]), each element rounded to
/// tf32 where `roundsToTf32`, else the same value.
void copyWeight(KernelLowering &k, Value in, Value out, bool transpose,
                bool roundsToTf32) {
  assert((transpose || roundsToTf32) && "a copy that changes nothing");
  if (!roundsToTf32) {
    linalg::TransposeOp::create(k.b, k.loc, in, out, ArrayRef<int64_t>{1, 0});
    return;
  }
  MLIRContext *context = k.b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, context);
  AffineMap read =
      transpose
          ? AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, context)
          : identity;
  linalg::GenericOp::create(
      k.b, k.loc, ValueRange{in}, ValueRange{out},
      ArrayRef<AffineMap>{read, identity},
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, roundToTf32(b, loc, args[0]));
      });
}

void lower(TransposeOp op, KernelLowering &k) {
  copyWeight(k, op.getInput(), op.getInits()[0], /*transpose=*/true,
             op.getRoundToTf32());
}

void lower(RoundToTf32Op op, KernelLowering &k) {
  copyWeight(k, op.getInput(), op.getInits()[0], /*transpose=*/false,
             /*roundsToTf32=*/true);
}

struct ConvertFMLPToLinalgPass
    : mlir::fmlp::impl::ConvertFMLPToLinalgPassBase<ConvertFMLPToLinalgPass> {
  void runOnOperation() override {
    SmallVector<Operation *> kernels;
    WalkResult walk = getOperation().walk([&](Operation *op) {
      if (isa<GatedMlpOp, GatedMlpGradOp>(op)) {
        op->emitOpError(
            "is not part of a kernel plan: run fmlp-expand-training "
            "and fmlp-fuse first (fmlp-plan-pipeline)");
        return WalkResult::interrupt();
      }
      if (isKernelOp(op)) {
        if (op->getNumResults() != 0) {
          op->emitOpError("works on tensors: run fmlp-plan-memory first");
          return WalkResult::interrupt();
        }
        kernels.push_back(op);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    // Hosts call entry points with memref descriptors (fmlp-run).
    getOperation().walk([](func::FuncOp func) {
      if (func->hasAttr("fmlp.entry"))
        func->setAttr("llvm.emit_c_interface",
                      UnitAttr::get(func.getContext()));
    });
    for (Operation *op : kernels) {
      OpBuilder builder(op);
      KernelLowering k(builder, op->getLoc());
      llvm::TypeSwitch<Operation *>(op)
          .Case<GateUpOp, DownOp, GateOp, DownGradOp, InputGradOp,
                GateUpWeightGradOp, DownWeightGradOp, BiasGradOp, TransposeOp,
                RoundToTf32Op>([&](auto kernel) { lower(kernel, k); });
      k.releaseTemporaries();
      op->erase();
    }
  }
};

} // namespace
