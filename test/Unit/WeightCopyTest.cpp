//===- WeightCopyTest.cpp - The weight copies' CPU lowering, run ----------===//
//
// fmlp.round_to_tf32 and fmlp.transpose (with and without round_to_tf32)
// lowered by fmlp-cpu-pipeline and run: each element must be the input's
// rounded to tf32 as cvt.rna.tf32.f32 rounds (to nearest, ties away from
// zero; computed here from the value's binade, not from its bits), or the
// input itself where nothing rounds. The inputs are random values over
// many binades (never zero) and the edges: exact ties either side, a carry
// into the exponent, the largest finite fp32 (rounds to infinity),
// infinities, NaNs (those the bit form of rounding would turn into zero or
// infinity among them), subnormals. The outputs are poisoned first. Negative
// control: truncation (toward zero, what a tensor core does to raw fp32
// bits) must disagree with the rounded copies on many elements.
//
//===----------------------------------------------------------------------===//

#include "fmlp/InitAll.h"
#include "fmlp/Pipeline.h"
#include "lib/Execution/CpuRunner.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/bit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

constexpr int64_t kRows = 37, kCols = 45;

constexpr const char *kModule = R"mlir(
func.func @copies(%w: memref<37x45xf32>, %rounded: memref<37x45xf32>,
                  %rounded_t: memref<45x37xf32>, %exact_t: memref<45x37xf32>)
    attributes {fmlp.entry} {
  fmlp.round_to_tf32 ins(%w : memref<37x45xf32>) outs(%rounded : memref<37x45xf32>)
  fmlp.transpose ins(%w : memref<37x45xf32>) outs(%rounded_t : memref<45x37xf32>) {round_to_tf32}
  fmlp.transpose ins(%w : memref<37x45xf32>) outs(%exact_t : memref<45x37xf32>)
  return
}
)mlir";

/// tf32's unit in the last place at `x` (finite): 10 fraction bits below
/// x's leading bit, and no finer than 2^-136 (fp32's subnormal spacing
/// 2^-149 times the 2^13 that tf32 drops).
double tf32Ulp(double x) {
  int exponent = 0;
  std::frexp(x, &exponent); // |x| = m 2^exponent, m in [0.5, 1)
  return std::max(std::ldexp(1.0, exponent - 11), std::ldexp(1.0, -136));
}

/// x rounded to tf32, to nearest, ties away from zero; past tf32's largest
/// finite value, infinity (as fp32 rounds it).
float roundTf32(float x) {
  if (!std::isfinite(x))
    return x;
  double ulp = tf32Ulp(x);
  double magnitude = std::floor(std::fabs(double(x)) / ulp + 0.5) * ulp;
  if (magnitude > std::numeric_limits<float>::max())
    magnitude = std::numeric_limits<double>::infinity();
  return static_cast<float>(std::copysign(magnitude, double(x)));
}

/// x truncated to tf32 (toward zero): the negative control.
float truncateTf32(float x) {
  if (!std::isfinite(x))
    return x;
  double ulp = tf32Ulp(x);
  double magnitude = std::floor(std::fabs(double(x)) / ulp) * ulp;
  return static_cast<float>(std::copysign(magnitude, double(x)));
}

float fromBits(uint32_t bits) { return llvm::bit_cast<float>(bits); }

/// Random values over 2^-30 .. 2^30 of either sign, then the edges.
std::vector<float> weightValues() {
  std::mt19937 engine(20261205);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-30, 30);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> values(kRows * kCols);
  for (float &v : values)
    v = static_cast<float>((negative(engine) ? -1 : 1) *
                           std::ldexp(mantissa(engine), exponent(engine)));
  const float edges[] = {
      fromBits(0x3F801000), // 1 + half a tf32 ulp: a tie, away -> up
      fromBits(0xBF801000), // its negative: away -> down
      fromBits(0x3F800FFF), // just below the tie: down
      fromBits(0x3F803000), // 1 + 1.5 ulp: a tie, away -> 1 + 2 ulp
      fromBits(0x3FFFF000), // the mantissa's last tie: carries to 2
      std::numeric_limits<float>::max(), // past tf32's largest: infinity
      fromBits(0x7F7FE000),              // tf32's largest finite: kept
      std::numeric_limits<float>::infinity(),
      -std::numeric_limits<float>::infinity(),
      std::numeric_limits<float>::quiet_NaN(),
      fromBits(0x00001000), // subnormal tie: rounds to 2^-136
      fromBits(0x007FF000), // the largest subnormal's tie: to 2^-126
      fromBits(0x00000FFF), // below the smallest tf32 subnormal's half: 0
      fromBits(0x7FFFFFFF), // NaN whose carry would reach the sign
      fromBits(0xFFFFFFFF), // and its negative
      fromBits(0x7F800001), // NaN whose mantissa the mask would clear
  };
  std::copy(std::begin(edges), std::end(edges), values.begin());
  return values;
}

/// Whether two floats are the same value (NaN equal to NaN; zeros by sign).
bool same(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) ||
         llvm::bit_cast<uint32_t>(a) == llvm::bit_cast<uint32_t>(b);
}

TEST(WeightCopy, RoundsToNearestTiesAwayAndTransposes) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModule, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  buildCpuPipeline(pm);
  ASSERT_TRUE(succeeded(pm.run(*module)));
  std::string error;
  std::unique_ptr<CpuModule> compiled = CpuModule::compile(*module, error);
  ASSERT_TRUE(compiled) << error;

  std::vector<float> values = weightValues();
  HostTensor w(HostElement::F32, kRows, kCols);
  for (int64_t i = 0; i < w.size(); ++i)
    w.set(i, values[i]);
  HostTensor rounded(HostElement::F32, kRows, kCols);
  HostTensor roundedT(HostElement::F32, kCols, kRows);
  HostTensor exactT(HostElement::F32, kCols, kRows);
  for (HostTensor *out : {&rounded, &roundedT, &exactT})
    out->poison();
  ASSERT_TRUE(
      compiled->call("copies", {&w, &rounded, &roundedT, &exactT}, error))
      << error;

  int64_t wrong = 0, truncationAgrees = 0, changed = 0;
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < kCols; ++j) {
      float x = values[i * kCols + j], expected = roundTf32(x);
      float copy = static_cast<float>(rounded.get(i * kCols + j));
      float copyT = static_cast<float>(roundedT.get(j * kRows + i));
      float exact = static_cast<float>(exactT.get(j * kRows + i));
      if (!same(copy, expected) || !same(copyT, expected) || !same(exact, x)) {
        ++wrong;
        ADD_FAILURE() << "element (" << i << ", " << j << ") = " << x
                      << " (bits 0x" << std::hex << llvm::bit_cast<uint32_t>(x)
                      << std::dec << "): rounded " << copy << ", transposed "
                      << copyT << ", expected " << expected
                      << "; exact transpose " << exact;
      }
      truncationAgrees += same(copy, truncateTf32(x));
      changed += !same(expected, x);
    }
  EXPECT_EQ(wrong, 0);
  // The edges as stated: a tie goes away from zero, the carry reaches the
  // exponent, fp32's largest finite value becomes infinity.
  EXPECT_EQ(llvm::bit_cast<uint32_t>(float(rounded.get(0))), 0x3F802000u);
  EXPECT_EQ(llvm::bit_cast<uint32_t>(float(rounded.get(1))), 0xBF802000u);
  EXPECT_EQ(llvm::bit_cast<uint32_t>(float(rounded.get(4))), 0x40000000u);
  EXPECT_TRUE(std::isinf(float(rounded.get(5))));
  // Negative control: truncation is another rounding on about half of the
  // random elements (those whose dropped bits are at least half an ulp).
  EXPECT_LT(truncationAgrees, kRows * kCols * 3 / 4);
  EXPECT_GT(changed, kRows * kCols * 9 / 10);
}

} // namespace
