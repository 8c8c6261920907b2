//===- NumericsTest.cpp - The kernel plan against float64, on the CPU -----===//
//
// Compiles gated MLP blocks through fmlp-plan-pipeline and the CPU path,
// runs forward, backward and the no-grad forward on random inputs (outputs
// poisoned with NaN first), and judges y, dx, dWg, dWu, dWd by the
// error-bound method against an independent float64 reference: every
// element's |error| / bound must be <= 1. Each case prints its worst ratio
// per output. The negative controls show that the check can fail: a bf16
// block judged by f32's bounds, one output element moved by twice its
// bound, a second backward over the saved buffer the first consumed, and a
// block with adapters judged as if it had none.
//
//===----------------------------------------------------------------------===//

#include "lib/Execution/BlockRunner.h"
#include "lib/Execution/NumericalCheck.h"
#include "dialects/FMLP/FMLPAttrs.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

using namespace mlir;
using namespace mlir::fmlp;
using ::fmlp::numerics::BlockSpec;
using ::fmlp::numerics::Inputs;
using ::fmlp::numerics::Matrix;
using ::fmlp::numerics::Storage;

namespace {

struct Case {
  std::string element; // f32, bf16, f16
  int64_t tokens, model, hidden;
  std::string save;
  int64_t chunkTokens;
  std::string activation = "silu";
  double gateMultiplier = 1.0, downMultiplier = 1.0;
  bool inOut = false;  // weights stored [in, out] instead of nn.Linear's
  bool biases = false; // gate, up and down biases
  /// Low-rank adapters (docs/LoRA.md): the gate's and up's stacked rank R,
  /// the down projection's Rd; 0 without.
  int64_t loraRank = 0, downLoraRank = 0;

  std::string name() const {
    std::string text =
        llvm::formatv("{0}_T{1}_D{2}_H{3}_{4}_save_{5}_chunk{6}", element,
                      tokens, model, hidden, activation, save, chunkTokens);
    if (gateMultiplier != 1.0 || downMultiplier != 1.0)
      text += "_multipliers";
    if (inOut)
      text += "_in_out";
    if (biases)
      text += "_biases";
    if (loraRank)
      text += llvm::formatv("_lora{0}", loraRank);
    if (downLoraRank)
      text += llvm::formatv("_downlora{0}", downLoraRank);
    return text;
  }
};

/// The block as fmlp.gated_mlp, T dynamic.
std::string blockSource(const Case &c) {
  std::string x = llvm::formatv("tensor<?x{0}x{1}>", c.model, c.element);
  auto weight = [&](int64_t in, int64_t out) {
    return c.inOut
               ? llvm::formatv("tensor<{0}x{1}x{2}>", in, out, c.element).str()
               : llvm::formatv("tensor<{0}x{1}x{2}>", out, in, c.element).str();
  };
  std::string gate = weight(c.model, c.hidden),
              down = weight(c.hidden, c.model);
  std::string attributes;
  if (c.inOut)
    attributes += "gate_layout = #fmlp.layout<in_out>, up_layout = "
                  "#fmlp.layout<in_out>, down_layout = #fmlp.layout<in_out>";
  if (c.gateMultiplier != 1.0)
    attributes +=
        llvm::formatv("{0}gate_multiplier = {1} : f64",
                      attributes.empty() ? "" : ", ", c.gateMultiplier);
  if (c.downMultiplier != 1.0)
    attributes +=
        llvm::formatv("{0}down_multiplier = {1} : f64",
                      attributes.empty() ? "" : ", ", c.downMultiplier);
  if (!attributes.empty())
    attributes = "{" + attributes + "}";
  std::string hiddenBias =
      llvm::formatv("tensor<{0}x{1}>", c.hidden, c.element);
  std::string modelBias = llvm::formatv("tensor<{0}x{1}>", c.model, c.element);
  std::string optionalArguments, optionalOperands, optionalTypes;
  if (c.biases) {
    optionalArguments =
        llvm::formatv(", %bg: {0}, %bu: {0}, %bd: {1}", hiddenBias, modelBias);
    optionalOperands = " gate_bias %bg up_bias %bu down_bias %bd";
    optionalTypes = llvm::formatv(", {0}, {0}, {1}", hiddenBias, modelBias);
  }
  // Adapters are [out, in] whatever the weights' layout.
  auto matrix = [&](int64_t rows, int64_t cols) {
    return llvm::formatv("tensor<{0}x{1}x{2}>", rows, cols, c.element).str();
  };
  if (int64_t r = c.loraRank) {
    optionalArguments += llvm::formatv(", %la: {0}, %lbg: {1}, %lbu: {1}",
                                   matrix(r, c.model), matrix(c.hidden, r));
    optionalOperands += " lora(%la, %lbg, %lbu)";
    optionalTypes +=
        llvm::formatv(", {0}, {1}, {1}", matrix(r, c.model), matrix(c.hidden, r));
  }
  if (int64_t r = c.downLoraRank) {
    optionalArguments += llvm::formatv(", %lad: {0}, %lbd: {1}",
                                   matrix(r, c.hidden), matrix(c.model, r));
    optionalOperands += " down_lora(%lad, %lbd)";
    optionalTypes +=
        llvm::formatv(", {0}, {1}", matrix(r, c.hidden), matrix(c.model, r));
  }
  return llvm::formatv(R"mlir(
func.func @mlp(%x: {0}, %wg: {1}, %wu: {1}, %wd: {2}{5}) -> {0} {
  %y = fmlp.gated_mlp {3} %x, gate %wg, up %wu, down %wd{6} {4}
      : ({0}, {1}, {1}, {2}{7}) -> {0}
  return %y : {0}
}
)mlir",
                       x, gate, down, c.activation, attributes, optionalArguments,
                       optionalOperands, optionalTypes);
}

std::unique_ptr<BlockRunner> compileCase(const Case &c) {
  PipelineOptions options;
  options.save = c.save;
  options.chunkTokens = c.chunkTokens;
  std::string error;
  std::unique_ptr<BlockRunner> runner =
      BlockRunner::compile(blockSource(c), options, error);
  EXPECT_TRUE(runner) << error;
  return runner;
}

CheckReport check(BlockRunner &runner, const Case &c,
                  CheckOptions options = {}) {
  options.tokens = c.tokens;
  options.seed = 1000 + c.tokens;
  CheckReport report;
  std::string error;
  EXPECT_TRUE(checkBlock(runner, options, report, error)) << error;
  return report;
}

std::string formatReport(const CheckReport &report) {
  std::string text;
  for (const OutputCheck &output : report.outputs)
    text += llvm::formatv(
        " {0}={1:e2}", output.name,
        output.comparison.nonFinite ? INFINITY : output.comparison.worstRatio);
  return text;
}

class BlockNumerics : public ::testing::TestWithParam<Case> {};

TEST_P(BlockNumerics, WithinErrorBound) {
  const Case &c = GetParam();
  std::unique_ptr<BlockRunner> runner = compileCase(c);
  ASSERT_TRUE(runner);
  CheckReport report = check(*runner, c);
  // y, dx, dWg, dWu, dWd, the bias and adapter gradients, y no-grad.
  ASSERT_EQ(report.outputs.size(), 6u + (c.biases ? 3 : 0) +
                                       (c.loraRank ? 3 : 0) +
                                       (c.downLoraRank ? 2 : 0));
  std::cout << "worst error/bound  " << c.name() << ":" << formatReport(report)
            << "\n";
  for (const OutputCheck &output : report.outputs)
    EXPECT_TRUE(output.comparison.passed())
        << output.name << ": worst ratio " << output.comparison.worstRatio
        << ", " << output.comparison.nonFinite << " non-finite";
}

std::vector<Case> makeCases() {
  std::vector<Case> cases;
  // Shapes that are multiples of nothing, every precision, policy, chunking.
  for (const char *element : {"f32", "bf16", "f16"})
    for (const char *save : {"agu", "gu", "u", "x"})
      for (int64_t chunk : {0, 16})
        cases.push_back({element, 37, 96, 200, save, chunk});
  // The other activations, multipliers and [in, out] weights.
  for (const char *element : {"f32", "bf16"}) {
    Case geglu{element, 37, 96, 200, "agu", 0, "gelu_tanh", 0.5, 2.0};
    Case reglu{element, 37, 96, 200, "gu", 16, "relu", 1.0, 0.25, true};
    cases.push_back(geglu);
    cases.push_back(reglu);
  }
  // Biases (Qwen-style, and with multipliers, [in, out] weights, chunks).
  for (const char *element : {"f32", "bf16"}) {
    Case biased{element, 37, 96, 200, "agu", 0};
    biased.biases = true;
    Case biasedChunked{element, 37,          96,  200, "x",
                       16,      "gelu_tanh", 0.5, 2.0, true};
    biasedChunked.biases = true;
    // save=u's recomputed G carries the gate bias and multiplier and reads
    // an [in, out] gate weight.
    Case biasedRecomputedGate{element, 37,          96,  200, "u",
                              16,      "gelu_tanh", 0.5, 2.0, true};
    biasedRecomputedGate.biases = true;
    cases.push_back(biased);
    cases.push_back(biasedChunked);
    cases.push_back(biasedRecomputedGate);
  }
  // A bigger block.
  for (const char *element : {"f32", "bf16", "f16"}) {
    cases.push_back({element, 512, 256, 704, "agu", 0});
    cases.push_back({element, 512, 256, 704, "x", 128});
  }
  // Adapters (R = 16: gate's and up's of rank 8 stacked; Rd = 8) under
  // every policy, chunked, and each group alone.
  for (const char *element : {"f32", "bf16", "f16"}) {
    for (const char *save : {"agu", "gu", "u", "x"}) {
      Case lora{element, 37, 96, 200, save, 0};
      lora.loraRank = 16, lora.downLoraRank = 8;
      cases.push_back(lora);
    }
    Case chunked{element, 37, 96, 200, "u", 16};
    chunked.loraRank = 16, chunked.downLoraRank = 8;
    cases.push_back(chunked);
  }
  for (const char *element : {"f32", "bf16"}) {
    Case gateUpOnly{element, 37, 96, 200, "agu", 0};
    gateUpOnly.loraRank = 8;
    Case downOnly{element, 37, 96, 200, "x", 16};
    downOnly.downLoraRank = 4;
    // With biases, multipliers and [in, out] weights.
    Case everything{element, 37,          96,  200, "gu",
                    16,      "gelu_tanh", 0.5, 2.0, true};
    everything.biases = true;
    everything.loraRank = 16, everything.downLoraRank = 8;
    cases.push_back(gateUpOnly);
    cases.push_back(downOnly);
    cases.push_back(everything);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(CpuPlan, BlockNumerics,
                         ::testing::ValuesIn(makeCases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return info.param.name();
                         });

//===----------------------------------------------------------------------===//
// Negative controls
//===----------------------------------------------------------------------===//

/// Compiles `c` and checks it with the negative control `options` asks for.
CheckReport checkControl(const Case &c, const CheckOptions &options) {
  std::unique_ptr<BlockRunner> runner = compileCase(c);
  if (!runner)
    return {};
  return check(*runner, c, options);
}

TEST(BlockNumericsControls, Bf16ResultsFailTheF32Bound) {
  CheckOptions options;
  options.judgeAs = Storage::F32;
  CheckReport report = checkControl({"bf16", 37, 96, 200, "agu", 0}, options);
  std::cout << "bf16 judged by f32 bounds:" << formatReport(report) << "\n";
  ASSERT_EQ(report.outputs.size(), 6u);
  for (const OutputCheck &output : report.outputs)
    EXPECT_FALSE(output.comparison.passed()) << output.name;
}

TEST(BlockNumericsControls, OneWrongElementFails) {
  CheckOptions options;
  options.perturbOneElement = true;
  CheckReport report = checkControl({"f32", 37, 96, 200, "agu", 0}, options);
  ASSERT_EQ(report.outputs.size(), 6u);
  ASSERT_EQ(report.outputs.front().name, "y");
  EXPECT_FALSE(report.outputs.front().comparison.passed());
  EXPECT_EQ(report.outputs.front().comparison.worstIndex, 0);
  EXPECT_FALSE(report.passed());
}

/// A bf16 block with both groups of adapters and multipliers.
Case loraControlCase() {
  Case c{"bf16", 37, 96, 200, "agu", 0, "silu", 0.5, 2.0};
  c.loraRank = 16, c.downLoraRank = 8;
  return c;
}

TEST(BlockNumericsControls, AdaptersLeftOutFail) {
  // The adapters' terms weigh as much as the base projections' (their B
  // drawn, not zero): a block judged as if it had none must fail in y, dx
  // and the weight gradients.
  CheckOptions options;
  options.judgeOther = [](BlockSpec &spec, Inputs &inputs) {
    spec.loraRank = spec.downLoraRank = 0;
    for (Matrix *adapter : {&inputs.loraA, &inputs.gateLoraB, &inputs.upLoraB,
                            &inputs.downLoraA, &inputs.downLoraB})
      *adapter = Matrix();
  };
  CheckReport report = checkControl(loraControlCase(), options);
  std::cout << "adapters left out:" << formatReport(report) << "\n";
  ASSERT_EQ(report.outputs.size(), 6u);
  for (const OutputCheck &output : report.outputs)
    EXPECT_FALSE(output.comparison.passed()) << output.name;
}

TEST(BlockNumericsControls, SwappedAdaptersFail) {
  // The gate's and up's B swapped: every output, the adapters' gradients
  // included, must fail.
  CheckOptions options;
  options.judgeOther = [](BlockSpec &, Inputs &inputs) {
    std::swap(inputs.gateLoraB, inputs.upLoraB);
  };
  CheckReport report = checkControl(loraControlCase(), options);
  std::cout << "adapters swapped:" << formatReport(report) << "\n";
  ASSERT_EQ(report.outputs.size(), 11u);
  for (const OutputCheck &output : report.outputs)
    EXPECT_FALSE(output.comparison.passed()) << output.name;
}

TEST(BlockNumericsControls, SecondBackwardOverConsumedSavedBufferIsWrong) {
  // The backward writes dG, dU over G, U: a second backward over the same
  // saved buffer reads gradients as activations. This is why the plan marks
  // the buffer consumed and the runtime must refuse a second backward.
  CheckOptions options;
  options.secondBackward = true;
  CheckReport report = checkControl({"f32", 37, 96, 200, "agu", 0}, options);
  std::cout << "second backward:" << formatReport(report) << "\n";
  ASSERT_EQ(report.outputs.size(), 6u);
  for (const OutputCheck &output : report.outputs) {
    if (output.name == "dx" || output.name == "d_gate" ||
        output.name == "d_up") {
      EXPECT_FALSE(output.comparison.passed()) << output.name;
    }
  }
}

} // namespace

// Sampling a block (Reference.h, selectTokens / selectHiddenUnits) gives the
// full block's exact values and bounds at the sampled tokens and units.
TEST(BlockNumericsSampling, RestrictionsMatchTheFullBlock) {
  using namespace ::fmlp::numerics;
  BlockSpec spec{24, 32, 48};
  spec.storage = Storage::BF16;
  spec.activation = ActivationKind::GeluTanh;
  spec.gateMultiplier = 0.5;
  spec.gateBias = spec.upBias = spec.downBias = true;
  Inputs in = drawInputs(spec, 7);
  Exact full = computeExact(spec, in);
  Bounds fullBounds = computeBounds(spec, in, full);

  std::vector<int64_t> rows = {0, 5, 23}, units = {1, 17, 47};
  BlockSpec tokenSpec = spec;
  tokenSpec.tokens = static_cast<int64_t>(rows.size());
  Inputs tokenInputs = selectTokens(in, rows);
  Exact tokens = computeExact(tokenSpec, tokenInputs);
  Bounds tokenBounds = computeBounds(tokenSpec, tokenInputs, tokens);
  BlockSpec unitSpec = spec;
  unitSpec.hidden = static_cast<int64_t>(units.size());
  Inputs unitInputs = selectHiddenUnits(in, units);
  Exact hidden = computeExact(unitSpec, unitInputs);
  Bounds unitBounds = computeBounds(unitSpec, unitInputs, hidden);

  auto same = [](double sampled, double whole) {
    EXPECT_NEAR(sampled, whole, 1e-12 * (1 + std::fabs(whole)));
  };
  for (size_t i = 0; i < rows.size(); ++i)
    for (int64_t d = 0; d < spec.model; ++d) {
      int64_t r = static_cast<int64_t>(i);
      same(tokens.y(r, d), full.y(rows[i], d));
      same(tokens.dx(r, d), full.dx(rows[i], d));
      same(tokenBounds.y(r, d), fullBounds.y(rows[i], d));
      same(tokenBounds.dx(r, d), fullBounds.dx(rows[i], d));
    }
  for (size_t j = 0; j < units.size(); ++j) {
    int64_t c = static_cast<int64_t>(j), h = units[j];
    for (int64_t d = 0; d < spec.model; ++d) {
      same(hidden.dGate(d, c), full.dGate(d, h));
      same(hidden.dUp(d, c), full.dUp(d, h));
      same(hidden.dDown(c, d), full.dDown(h, d));
      same(unitBounds.dGate(d, c), fullBounds.dGate(d, h));
      same(unitBounds.dUpChunk(d, c), fullBounds.dUpChunk(d, h));
      same(unitBounds.dDown(c, d), fullBounds.dDown(h, d));
    }
    same(hidden.dGateBias(0, c), full.dGateBias(0, h));
    same(unitBounds.dUpBias(0, c), fullBounds.dUpBias(0, h));
  }
  // And the restriction is not the whole: another unit's gradient differs.
  EXPECT_GT(std::fabs(hidden.dGate(0, 0) - full.dGate(0, units[0] + 1)), 0.0);
}

namespace {
// Precision `highest` takes tf32x3 products for a contraction of at least
// getHighestTf32x3MinTerms(g) terms where its kernel sums g k8 steps from
// zero on the tensor core (FMLPAttrs.h). That is sound only if tf32x3's
// bound for groups of up to g steps (lib/Numerics) is within IEEE fp32's
// from there on, and each constant is the least such n: one term fewer
// must exceed it.
TEST(HighestPrecision, Tf32x3WithinIeeeBoundExactlyFromTheThreshold) {
  using ::fmlp::numerics::BlockSpec;
  using ::fmlp::numerics::Contraction;
  for (int64_t group : {1, 2, 4}) {
    auto bound = [&](Contraction contraction, int64_t n) {
      BlockSpec spec{1, 1, 1};
      spec.storage = Storage::F32;
      spec.contraction = contraction;
      spec.tf32x3GroupK8s = group;
      return ::fmlp::numerics::contractionError(spec, n);
    };
    const int64_t first = getHighestTf32x3MinTerms(group);
    EXPECT_GT(bound(Contraction::Tf32x3, first - 1),
              bound(Contraction::Ieee, first - 1))
        << "groups of " << group;
    for (int64_t n = first; n <= (int64_t(1) << 22); n += 1 + n / 64)
      ASSERT_LE(bound(Contraction::Tf32x3, n), bound(Contraction::Ieee, n))
          << n << " terms, groups of " << group;
  }
  EXPECT_EQ(kHighestTf32x3MinTerms, getHighestTf32x3MinTerms(1));
}
} // namespace

namespace {
// Every tf32 kernel rounds its operands to nearest (2^-11 each), and the
// tf32 bound takes that; a tensor core given the fp32 bits truncates them
// to tf32 (toward zero: up to one unit of tf32's last place, 2^-10; bench/
// wgmma_tf32_operands.cu), which only the truncated bound covers. One
// product of operands just below 1 + 2^-10, both truncated to 1, errs by
// almost 2^-9 of itself: past the rounded bound (a kernel that forgot to
// round fails it), within the truncated one; rounded, the same product is
// within the rounded bound.
TEST(Tf32Precision, BoundTakesRoundedOperands) {
  using ::fmlp::numerics::BlockSpec;
  using ::fmlp::numerics::Contraction;
  BlockSpec spec{1, 1, 1};
  spec.storage = Storage::F32;
  spec.contraction = Contraction::Tf32;
  const double rounded = ::fmlp::numerics::contractionError(spec, 1);
  spec.tf32Truncated = true;
  const double truncatedBound = ::fmlp::numerics::contractionError(spec, 1);
  const double a = 1 + 0x1p-10 - 0x1p-23; // fp32: truncated to 1 as tf32,
                                          // rounded to 1 + 2^-10
  const double exact = a * a;
  const double truncatedError = std::fabs(exact - 1.0) / exact;
  const double roundedValue = (1 + 0x1p-10) * (1 + 0x1p-10);
  const double roundedError = std::fabs(exact - roundedValue) / exact;
  EXPECT_LE(roundedError, rounded);
  EXPECT_GT(truncatedError, rounded); // the negative control
  EXPECT_LE(truncatedError, truncatedBound);
  EXPECT_EQ(::fmlp::numerics::kTf32OperandError, 0x1p-11);
}
} // namespace
