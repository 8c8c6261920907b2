//===- Activation.cpp - The gating activations as arith/math ops ----------===//

#include "codegen/Activation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

constexpr double kGeluCubic = 0.044715;

/// Builds scalar expressions of one type with short names.
struct Expr {
  OpBuilder &b;
  Location loc;
  Type type;
  const Primitives &primitives;

  Value constant(double value) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  /// x y + z, which a target may fuse into one rounding (contract).
  Value mulAdd(Value x, Value y, Value z) {
    auto contract = arith::FastMathFlags::contract;
    return arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, x, y, contract), z, contract);
  }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value tanh(Value x) { return math::TanhOp::create(b, loc, x); }
  /// e^x and 1 / x, approximate (Primitives).
  Value exp(Value x) {
    if (primitives.exp)
      return primitives.exp(b, loc, x);
    return math::ExpOp::create(b, loc, x, arith::FastMathFlags::afn);
  }
  Value reciprocal(Value x) {
    if (primitives.reciprocal)
      return primitives.reciprocal(b, loc, x);
    return arith::DivFOp::create(b, loc, constant(1.0), x,
                                 arith::FastMathFlags::afn);
  }

  /// 1 / (1 + e^-g). The bound allows for the approximate primitives
  /// (lib/Numerics: (8 + 2.5 |g|) u for silu, 10 u (1 + |g|) for its
  /// slope).
  Value sigmoid(Value g) { return reciprocal(add(constant(1.0), exp(neg(g)))); }
  /// tanh(k (g + c g^3)), the inner part of the tanh GELU.
  Value geluTanh(Value g) {
    Value cube = mul(mul(g, g), g);
    Value inner = add(g, mul(constant(kGeluCubic), cube));
    return tanh(mul(constant(std::sqrt(2.0 / M_PI)), inner));
  }
};

} // namespace

Value mlir::fmlp::buildActivation(OpBuilder &builder, Location loc,
                                  Activation activation, Value g,
                                  const Primitives &primitives) {
  Expr e{builder, loc, g.getType(), primitives};
  switch (activation) {
  case Activation::silu:
    return e.mul(g, e.sigmoid(g));
  case Activation::gelu_tanh:
    return e.mul(e.mul(e.constant(0.5), g),
                 e.add(e.constant(1.0), e.geluTanh(g)));
  case Activation::relu:
    return arith::MaximumFOp::create(builder, loc, g, e.constant(0.0));
  }
  llvm_unreachable("unknown activation");
}

Value mlir::fmlp::buildActivationDerivative(OpBuilder &builder, Location loc,
                                            Activation activation, Value g,
                                            const Primitives &primitives) {
  Expr e{builder, loc, g.getType(), primitives};
  switch (activation) {
  case Activation::silu: {
    // s (1 + g (1 - s)) = s + silu(g) (1 - s): silu(g) = g s is the
    // activation's own product (shared with it where both are built), and
    // the rest one multiply-add.
    Value s = e.sigmoid(g);
    return e.mulAdd(e.mul(g, s), e.sub(e.constant(1.0), s), s);
  }
  case Activation::gelu_tanh: {
    Value t = e.geluTanh(g);
    Value k = e.constant(std::sqrt(2.0 / M_PI));
    Value slope =
        e.mul(k, e.add(e.constant(1.0),
                       e.mul(e.constant(3.0 * kGeluCubic), e.mul(g, g))));
    Value outer = e.mul(e.constant(0.5), e.add(e.constant(1.0), t));
    Value inner = e.mul(
        e.mul(e.mul(e.constant(0.5), g), e.sub(e.constant(1.0), e.mul(t, t))),
        slope);
    return e.add(outer, inner);
  }
  case Activation::relu: {
    Value positive = arith::CmpFOp::create(
        builder, loc, arith::CmpFPredicate::OGT, g, e.constant(0.0));
    return arith::SelectOp::create(builder, loc, positive, e.constant(1.0),
                                   e.constant(0.0));
  }
  }
  llvm_unreachable("unknown activation");
}
