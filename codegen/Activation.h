//===- Activation.h - The gating activations as arith/math ops --*- C++ -*-===//
//
// act(g) and act'(g) of each activation, emitted on f32 scalars or vectors.
// Every code generator (the CPU lowering of the plan, the GPU epilogues)
// builds them here, so the math is written once.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_CODEGEN_ACTIVATION_H
#define FMLP_CODEGEN_ACTIVATION_H

#include "dialects/FMLP/FMLPAttrs.h"

#include "mlir/IR/Builders.h"

#include <functional>

namespace mlir::fmlp {

/// The primitives of the sigmoid, e^x and 1 / x, as a target evaluates
/// them. Unset: math.exp and arith.divf with afn, which any target lowers.
/// The GPU epilogues set them (ConvertFMLPToNVVM.cpp): single NVVM
/// instructions for 16-bit kernels, libdevice's expf and a correctly
/// rounded division for float32 ones. lib/Numerics's bound allows e^x
/// within (2 + 1.173 |x|) ulp and 1 / x within 1 ulp, results below 2^-126
/// flushed to zero (test/Unit/ActivationBoundTest.cpp emulates both).
struct Primitives {
  std::function<Value(OpBuilder &, Location, Value)> exp, reciprocal;
};

/// silu(g) = g / (1 + exp(-g)); gelu_tanh(g) = g/2 (1 + tanh(k (g + c g^3)))
/// with k = sqrt(2 / pi), c = 0.044715; relu(g) = max(g, 0).
Value buildActivation(OpBuilder &builder, Location loc, Activation activation,
                      Value g, const Primitives &primitives = {});

/// The derivative: silu' = s (1 + g (1 - s)) = s + g s (1 - s) with
/// s = sigmoid(g);
/// gelu_tanh' = (1 + t) / 2 + g/2 (1 - t^2) k (1 + 3 c g^2) with
/// t = tanh(k (g + c g^3)); relu' = 1 where g > 0, else 0.
Value buildActivationDerivative(OpBuilder &builder, Location loc,
                                Activation activation, Value g,
                                const Primitives &primitives = {});

} // namespace mlir::fmlp

#endif // FMLP_CODEGEN_ACTIVATION_H
