//===- JudgeTest.cpp - The error-bound judge's C API ----------------------===//
//
// fmlp_judge_reference (lib/Numerics/Judge.h) gives the Python tests the
// reference values and error bounds: the same as Reference.h's, positive
// and finite; the reference rounded to the storage type passes by them, one
// element moved by twice its bound fails (the control); bad arguments are
// reported.
//
//===----------------------------------------------------------------------===//

#include "lib/Numerics/Judge.h"
#include "lib/Numerics/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace fmlp::numerics;

namespace {

struct JudgeCase : ::testing::Test {
  BlockSpec spec;
  Inputs in;
  fmlp_judge_block block{};
  std::vector<std::vector<double>> exact, bound;

  void SetUp() override {
    spec.tokens = 9;
    spec.model = 16;
    spec.hidden = 24;
    spec.storage = Storage::BF16;
    spec.gateBias = spec.upBias = spec.downBias = true;
    spec.gateMultiplier = 0.5;
    in = drawInputs(spec, 7);
    block = {spec.tokens, spec.model,      spec.hidden, FMLP_JUDGE_SILU,
             FMLP_JUDGE_BF16, 1, spec.gateMultiplier, spec.downMultiplier};
    const int64_t t = spec.tokens, d = spec.model, h = spec.hidden;
    for (int64_t size : {t * d, t * d, d * h, d * h, h * d, h, h, d}) {
      exact.emplace_back(size, NAN);
      bound.emplace_back(size, NAN);
    }
  }

  int reference(std::string *message) {
    const double *inputs[FMLP_JUDGE_INPUTS] = {
        in.x.values.data(),        in.gate.values.data(),
        in.up.values.data(),       in.down.values.data(),
        in.dy.values.data(),       in.gateBias.values.data(),
        in.upBias.values.data(),   in.downBias.values.data()};
    double *exactOut[FMLP_JUDGE_OUTPUTS], *boundOut[FMLP_JUDGE_OUTPUTS];
    for (int i = 0; i < FMLP_JUDGE_OUTPUTS; ++i) {
      exactOut[i] = exact[i].data();
      boundOut[i] = bound[i].data();
    }
    char error[256] = "";
    int status = fmlp_judge_reference(&block, inputs, nullptr, nullptr,
                                      exactOut, boundOut, error, sizeof error);
    *message = error;
    return status;
  }

  /// The worst |computed - exact| / bound, as Reference.h's compare does it.
  Comparison judge(int output, const std::vector<double> &computed) {
    Matrix e(1, exact[output].size()), b(1, bound[output].size());
    e.values = exact[output];
    b.values = bound[output];
    return compare(computed, e, b);
  }
};

TEST_F(JudgeCase, SameValuesAndBoundsAsTheCppReference) {
  std::string message;
  ASSERT_EQ(reference(&message), 0) << message;
  Exact e = computeExact(spec, in);
  Bounds b = computeBounds(spec, in, e);
  EXPECT_EQ(exact[FMLP_JUDGE_DX], e.dx.values);
  EXPECT_EQ(exact[FMLP_JUDGE_D_DOWN_BIAS], e.dDownBias.values);
  EXPECT_EQ(bound[FMLP_JUDGE_Y], b.y.values);
  for (size_t i = 0; i < b.dGate.values.size(); ++i)
    ASSERT_EQ(bound[FMLP_JUDGE_D_GATE][i],
              b.dGate.values[i] + b.dGateChunk.values[i]);
  for (const auto &values : bound)
    for (double v : values)
      ASSERT_TRUE(std::isfinite(v) && v > 0) << v;
}

TEST_F(JudgeCase, ReferenceRoundedToStoragePassesAndAMovedElementFails) {
  std::string message;
  ASSERT_EQ(reference(&message), 0) << message;
  for (int i = 0; i < FMLP_JUDGE_OUTPUTS; ++i) {
    std::vector<double> stored;
    for (double v : exact[i])
      stored.push_back(roundTo(spec.storage, v));
    EXPECT_TRUE(judge(i, stored).passed()) << "output " << i;
    // Control: one element moved by twice its bound.
    stored[3] = exact[i][3] + 2 * bound[i][3];
    EXPECT_FALSE(judge(i, stored).passed()) << "output " << i;
  }
}

TEST_F(JudgeCase, BadArgumentsAreReported) {
  std::string message;
  block.hidden = 0;
  EXPECT_EQ(reference(&message), -1);
  EXPECT_NE(message.find("must be positive"), std::string::npos) << message;
  block.hidden = spec.hidden;
  block.storage = 9;
  EXPECT_EQ(reference(&message), -1);
  EXPECT_NE(message.find("unknown activation or storage"), std::string::npos)
      << message;
  block.storage = FMLP_JUDGE_BF16;
  in.gateBias = Matrix(); // biases announced, one missing
  EXPECT_EQ(reference(&message), -1);
  EXPECT_NE(message.find("input 5 is null"), std::string::npos) << message;
}

} // namespace
