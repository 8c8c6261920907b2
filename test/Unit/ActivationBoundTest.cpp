//===- ActivationBoundTest.cpp - The SiLU allowance against the GPU's math ===//
//
// The 16-bit kernels' epilogues evaluate SiLU's sigmoid with two
// approximate instructions (ConvertFMLPToNVVM.cpp): e^-g =
// ex2.approx.ftz(-g log2 e), within 2 ulp plus the exponent's rounding, and
// 1 / (1 + e) by rcp.approx.ftz, within 1 ulp; both flush results below
// 2^-126 to zero. The float32 kernels' use libdevice's expf (within 2 ulp of
// e^-g itself) and a correctly rounded division. The slope's multiply-add
// is emulated both fused and rounded twice. Here each evaluation is
// emulated in fp32 with each instruction's error at either extreme, over g
// in [-90, 90], and lib/Numerics's allowance for silu(g) and silu'(g) must
// cover every outcome. The negative control: the allowance without its
// 2.5 |g| u term (the exponent's error, which the 6 u before the fast
// exponential did not have) must not cover the approximate evaluation; the
// accurate one needs no such term, and is held to that tighter allowance.
//
//===----------------------------------------------------------------------===//

#include "lib/Numerics/Reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>

using namespace fmlp::numerics;

namespace {

constexpr float kMinNormal = std::numeric_limits<float>::min(); // 2^-126
constexpr double kUlp1 = 0x1p-23; // one ulp of 1, the relative worst case

/// An approximate instruction's fp32 result: `exact` off by `ulps` ulp
/// (relative, at the worst case 2^-23 per ulp), rounded, flushed to zero.
float approximate(double exact, double ulps) {
  float r = static_cast<float>(exact * (1 + ulps * kUlp1));
  return std::fabs(r) < kMinNormal ? 0.0f : r;
}

/// A double (here the exact product or sum of two floats) rounded to fp32,
/// as one fp32 operation would round it: written so, no compiler fuses two
/// operations the GPU rounds apart (it emits mul.rn and add.rn).
float rounded(double exact) { return static_cast<float>(exact); }

/// The sigmoid 1 / (1 + e^-g) as a kernel evaluates it, its exponential
/// `expUlps` ulp off and (where approximate) its reciprocal `rcpUlps`.
using Sigmoid = float (*)(float g, double expUlps, double rcpUlps);

/// 16-bit kernels: ex2.approx.ftz(-g log2 e) and rcp.approx.ftz.
float approximateSigmoid(float g, double expUlps, double rcpUlps) {
  float p = -g * static_cast<float>(M_LOG2E); // rounded: the exponent's error
  float e = approximate(std::exp2(static_cast<double>(p)), expUlps);
  return approximate(1.0 / static_cast<double>(1.0f + e), rcpUlps);
}

/// float32 kernels: libdevice's expf of -g (exact), then a correctly
/// rounded 1 / (1 + e); nothing flushed.
float accurateSigmoid(float g, double expUlps, double /*rcpUlps*/) {
  float e =
      rounded(std::exp(-static_cast<double>(g)) * (1 + expUlps * kUlp1));
  return rounded(1.0 / static_cast<double>(1.0f + e));
}

/// The silu allowance without its |g| term: the exponent's error, which
/// only the approximate evaluation has.
double allowanceWithoutGTerm(double g) {
  double a = std::fabs(activation(ActivationKind::Silu, g));
  return 8 * unitRoundoff(Storage::F32) * a + std::fabs(g) * 0x1p-125;
}

struct Worst {
  double silu = 0, slope = 0; // |error| / allowance
};

/// Every extreme of `sigmoid`'s evaluation at g; `siluAllowance` replaces
/// the silu allowance where given.
Worst judge(float g, Sigmoid sigmoid,
            double (*siluAllowance)(double) = nullptr) {
  Worst worst;
  for (double expUlps : {-2.0, 2.0})
    for (double rcpUlps : {-1.0, 1.0}) {
      float s = sigmoid(g, expUlps, rcpUlps);
      float silu = g * s;
      // silu' = s + silu (1 - s) (Activation.cpp): fused where the target
      // contracts it (NVPTX), rounded twice where it does not.
      float oneMinusS = 1.0f - s;
      float fused = std::fma(silu, oneMinusS, s);
      float split = rounded(rounded(double(silu) * oneMinusS) + double(s));
      double allowed = siluAllowance
                           ? siluAllowance(g)
                           : activationEvaluationError(ActivationKind::Silu, g);
      double siluError = std::fabs(silu - activation(ActivationKind::Silu, g));
      double exactSlope = activationDerivative(ActivationKind::Silu, g);
      double slopeError = std::max(std::fabs(fused - exactSlope),
                                   std::fabs(split - exactSlope));
      worst.silu = std::max(worst.silu, siluError / allowed);
      worst.slope = std::max(
          worst.slope,
          slopeError / derivativeEvaluationError(ActivationKind::Silu, g));
    }
  return worst;
}

template <typename F> Worst overRange(F judgeAt) {
  Worst worst;
  for (int i = -90000; i <= 90000; ++i) {
    Worst w = judgeAt(static_cast<float>(i * 1e-3));
    worst.silu = std::max(worst.silu, w.silu);
    worst.slope = std::max(worst.slope, w.slope);
  }
  return worst;
}

TEST(SiluAllowance, CoversTheApproximateSigmoid) {
  Worst worst =
      overRange([](float g) { return judge(g, approximateSigmoid); });
  std::cout << "worst |error| / allowance: silu " << worst.silu << ", slope "
            << worst.slope << "\n";
  EXPECT_LE(worst.silu, 1.0);
  EXPECT_LE(worst.slope, 1.0);
}

TEST(SiluAllowance, ControlWithoutTheGTermFails) {
  Worst worst = overRange([](float g) {
    return judge(g, approximateSigmoid, allowanceWithoutGTerm);
  });
  std::cout << "worst |error| / allowance without 2.5 |g| u: " << worst.silu
            << "\n";
  EXPECT_GT(worst.silu, 1.0);
}

TEST(SiluAllowance, AccurateSigmoidNeedsNoGTerm) {
  Worst worst = overRange([](float g) {
    return judge(g, accurateSigmoid, allowanceWithoutGTerm);
  });
  std::cout << "float32 kernels' sigmoid, worst |error| / allowance without "
               "2.5 |g| u: silu "
            << worst.silu << ", slope " << worst.slope << "\n";
  EXPECT_LE(worst.silu, 1.0);
  EXPECT_LE(worst.slope, 1.0);
}

} // namespace
