//===- ContractionBoundTest.cpp - tf32 and tf32x3 bounds, emulated --------===//
//
// lib/Numerics bounds a contraction by how its products are formed
// (Contraction: ieee, tf32, tf32x3) and summed (fp32 FMA, or a tensor
// core's truncating sums). Here the products are emulated in double: each
// operand rounded to tf32 (to nearest, ties away, as cvt.rna does in the
// kernels) or truncated to it (as a tensor core takes fp32 bits: the
// truncated bound, BlockSpec::tf32Truncated), or split into tf32 high and low
// parts with lo lo' dropped; the float64 block on such operands must stay
// within its own format's bound. The negative control: tf32 products judged by
// tf32x3's bound must fail, rounded or truncated. tf32x3's products (3 2^-22
// each) are within IEEE fp32's bound (gamma_n, n 2^-24) already at D = 64: what
// sets tf32x3 apart from strict fp32 is the tensor core's truncating sums
// (docs/precision.md), which no emulation here has.
//
//===----------------------------------------------------------------------===//

#include "lib/Numerics/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>

using namespace fmlp::numerics;

namespace {

/// x rounded to tf32 (10 fraction bits) to nearest, ties away from zero.
double roundTf32(double value) {
  float x = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits = (bits + (1u << 12)) & ~((1u << 13) - 1);
  std::memcpy(&x, &bits, 4);
  return x;
}

/// x truncated to tf32 (its 13 low bits dropped: toward zero).
double truncateTf32(double value) {
  float x = static_cast<float>(value);
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bits &= ~((1u << 13) - 1);
  std::memcpy(&x, &bits, 4);
  return x;
}

/// G = x Wg as a tf32 (or tf32x3) contraction computes its products,
/// summed exactly: the products' error alone. tf32 operands rounded to
/// nearest, or truncated (`truncated`).
Matrix gateProducts(const Matrix &x, const Matrix &gate, bool threePass,
                    bool truncated = false) {
  Matrix g(x.rows, gate.cols);
  for (int64_t t = 0; t < x.rows; ++t)
    for (int64_t h = 0; h < gate.cols; ++h) {
      double sum = 0;
      for (int64_t d = 0; d < x.cols; ++d) {
        double a = x(t, d), b = gate(d, h);
        double aHi = truncated ? truncateTf32(a) : roundTf32(a),
               bHi = truncated ? truncateTf32(b) : roundTf32(b);
        sum += aHi * bHi;
        if (threePass)
          sum += aHi * roundTf32(b - bHi) + roundTf32(a - aHi) * bHi;
      }
      g(t, h) = sum;
    }
  return g;
}

/// The worst |computed - exact| / bound of G's bound under `contraction`
/// (the bound of K1's contraction alone: gamma-like term times |x| |Wg|).
double worstRatio(const Matrix &computed, const Exact &exact,
                  const BlockSpec &spec, const Inputs &in) {
  double worst = 0;
  double e = contractionError(spec, spec.model);
  for (int64_t t = 0; t < in.x.rows; ++t)
    for (int64_t h = 0; h < in.gate.cols; ++h) {
      double magnitude = 0;
      for (int64_t d = 0; d < in.x.cols; ++d)
        magnitude += std::fabs(in.x(t, d) * in.gate(d, h));
      worst = std::max(worst, std::fabs(computed(t, h) - exact.g(t, h)) /
                                  (e * magnitude));
    }
  return worst;
}

TEST(ContractionBound, EachFormatWithinItsOwnBoundAndNotATighterOne) {
  BlockSpec spec{16, 64, 96};
  spec.storage = Storage::F32;
  Inputs in = drawInputs(spec, 3);
  Exact exact = computeExact(spec, in);
  Matrix tf32 = gateProducts(in.x, in.gate, /*threePass=*/false);
  Matrix truncated =
      gateProducts(in.x, in.gate, /*threePass=*/false, /*truncated=*/true);
  Matrix tf32x3 = gateProducts(in.x, in.gate, /*threePass=*/true);
  auto ratio = [&](const Matrix &computed, Contraction judgedAs,
                   bool truncatedBound = false) {
    BlockSpec judged = spec;
    judged.contraction = judgedAs;
    judged.tf32Truncated = truncatedBound;
    return worstRatio(computed, exact, judged, in);
  };
  double tf32Own = ratio(tf32, Contraction::Tf32),
         tf32AsX3 = ratio(tf32, Contraction::Tf32x3),
         truncatedOwn = ratio(truncated, Contraction::Tf32, true),
         truncatedAsRounded = ratio(truncated, Contraction::Tf32),
         truncatedAsX3 = ratio(truncated, Contraction::Tf32x3),
         x3Own = ratio(tf32x3, Contraction::Tf32x3),
         x3AsIeee = ratio(tf32x3, Contraction::Ieee);
  std::cout << "G's worst error / bound: tf32 " << tf32Own
            << " (by tf32x3's bound " << tf32AsX3 << "), tf32 truncated "
            << truncatedOwn << " (by the rounded bound " << truncatedAsRounded
            << ", by tf32x3's " << truncatedAsX3 << "), tf32x3 " << x3Own
            << " (by IEEE fp32's " << x3AsIeee << ")\n";
  EXPECT_LE(tf32Own, 1.0);
  EXPECT_LE(truncatedOwn, 1.0);
  EXPECT_LE(x3Own, 1.0);
  // The negative controls.
  EXPECT_GT(tf32AsX3, 1.0);
  EXPECT_GT(truncatedAsX3, 1.0);
  // Measured, not a control: the splits' error is within fp32's bound.
  EXPECT_LE(x3AsIeee, 1.0);
}

TEST(ContractionBound, BoundsOrderedByFormat) {
  for (int64_t n : {1, 8, 64, 83, 84, 96, 261, 262, 4096, 11008}) {
    BlockSpec spec{1, 1, 1};
    double ieee = contractionError(spec, n);
    spec.storage = Storage::BF16; // 16-bit products on tensor cores
    double tensorCore = contractionError(spec, n);
    spec.storage = Storage::F32;
    spec.contraction = Contraction::Tf32x3;
    double x3 = contractionError(spec, n); // groups of up to 4 k8 steps
    spec.tf32x3GroupK8s = 1;
    double x3Steps = contractionError(spec, n);
    spec.contraction = Contraction::Tf32;
    double tf32 = contractionError(spec, n);
    EXPECT_LT(ieee, tensorCore) << n;
    EXPECT_LT(x3, tf32) << n;
    EXPECT_LE(x3Steps, x3) << n;
    // tf32x3's sums are fp32's over ceil(n / 8 g) group sums, each within
    // 30 g 2^-23 of its magnitude: about (12 + 60 g + n / 8 g) 2^-24
    // against fp32's n 2^-24, below it from n = 84 on for g = 1 and from
    // 262 on for g up to 4.
    EXPECT_EQ(x3Steps < ieee, n >= 84) << n;
    EXPECT_EQ(x3 < ieee, n >= 262) << n;
    // tf32's products alone: 2^-10 + 2^-22 (operands rounded: 2^-11).
    EXPECT_GT(tf32, 0x1p-10) << n;
  }
}

} // namespace
