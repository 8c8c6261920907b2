//===- Judge.cpp - The error-bound judge as a C API -----------------------===//

#include "lib/Numerics/Judge.h"
#include "lib/Numerics/Reference.h"

#include <algorithm>
#include <cstdio>
#include <string>

using namespace fmlp::numerics;

namespace {

Matrix copyOf(const double *values, int64_t rows, int64_t cols) {
  Matrix m(rows, cols);
  if (values)
    m.values.assign(values, values + rows * cols);
  return m;
}

int fail(char *error, int64_t size, const std::string &message) {
  if (error && size > 0)
    std::snprintf(error, static_cast<size_t>(size), "%s", message.c_str());
  return -1;
}

} // namespace

extern "C" int fmlp_judge_reference(
    const fmlp_judge_block *block, const double *const inputs[FMLP_JUDGE_INPUTS],
    fmlp_judge_matmul matmul, void *context,
    double *const exact[FMLP_JUDGE_OUTPUTS],
    double *const bound[FMLP_JUDGE_OUTPUTS], char *error, int64_t errorSize) {
  if (!block || !inputs || !exact || !bound)
    return fail(error, errorSize, "fmlp_judge_reference: a null argument");
  const int64_t t = block->tokens, d = block->model, h = block->hidden;
  if (t <= 0 || d <= 0 || h <= 0)
    return fail(error, errorSize,
                "fmlp_judge_reference: T, D and H must be positive");
  if (block->activation < FMLP_JUDGE_SILU ||
      block->activation > FMLP_JUDGE_RELU ||
      block->storage < FMLP_JUDGE_F32 || block->storage > FMLP_JUDGE_F16)
    return fail(error, errorSize,
                "fmlp_judge_reference: unknown activation or storage");
  if (block->contraction < FMLP_JUDGE_IEEE ||
      block->contraction > FMLP_JUDGE_TF32X3 ||
      (block->contraction != FMLP_JUDGE_IEEE &&
       block->storage != FMLP_JUDGE_F32))
    return fail(error, errorSize,
                "fmlp_judge_reference: unknown contraction, or tf32 on "
                "16-bit storage");
  const int used = block->bias ? FMLP_JUDGE_INPUTS : FMLP_JUDGE_GATE_BIAS;
  for (int i = 0; i < used; ++i)
    if (!inputs[i])
      return fail(error, errorSize, "fmlp_judge_reference: input " +
                                        std::to_string(i) + " is null");
  const int outputs = block->bias ? FMLP_JUDGE_OUTPUTS : FMLP_JUDGE_D_GATE_BIAS;
  for (int i = 0; i < outputs; ++i)
    if (!exact[i] || !bound[i])
      return fail(error, errorSize, "fmlp_judge_reference: output buffer " +
                                        std::to_string(i) + " is null");

  BlockSpec spec;
  spec.tokens = t;
  spec.model = d;
  spec.hidden = h;
  spec.activation = static_cast<ActivationKind>(block->activation);
  spec.storage = static_cast<Storage>(block->storage);
  spec.contraction = static_cast<Contraction>(block->contraction);
  spec.gateMultiplier = block->gate_multiplier;
  spec.downMultiplier = block->down_multiplier;
  spec.gateBias = spec.upBias = spec.downBias = block->bias != 0;

  Inputs in;
  in.x = copyOf(inputs[FMLP_JUDGE_X], t, d);
  in.gate = copyOf(inputs[FMLP_JUDGE_GATE], d, h);
  in.up = copyOf(inputs[FMLP_JUDGE_UP], d, h);
  in.down = copyOf(inputs[FMLP_JUDGE_DOWN], h, d);
  in.dy = copyOf(inputs[FMLP_JUDGE_DY], t, d);
  if (block->bias) {
    in.gateBias = copyOf(inputs[FMLP_JUDGE_GATE_BIAS], 1, h);
    in.upBias = copyOf(inputs[FMLP_JUDGE_UP_BIAS], 1, h);
    in.downBias = copyOf(inputs[FMLP_JUDGE_DOWN_BIAS], 1, d);
  }

  Matmul product = hostMatmul;
  if (matmul)
    product = [&](const Matrix &a, bool transposeA, const Matrix &b,
                  bool transposeB) {
      Matrix c(transposeA ? a.cols : a.rows, transposeB ? b.rows : b.cols);
      matmul(context, a.values.data(), a.rows, a.cols, transposeA,
             b.values.data(), b.rows, b.cols, transposeB, c.values.data());
      return c;
    };
  Exact e = computeExact(spec, in, product);
  Bounds b = computeBounds(spec, in, e, product);

  // Bounds of the reductions over T: base plus one chunk's storage rounding.
  auto oneChunk = [](const Matrix &base, const Matrix &perChunk) {
    Matrix sum = base;
    for (size_t i = 0; i < sum.values.size(); ++i)
      sum.values[i] += perChunk.values[i];
    return sum;
  };
  const Matrix *values[FMLP_JUDGE_OUTPUTS] = {
      &e.y,     &e.dx,        &e.dGate,   &e.dUp,
      &e.dDown, &e.dGateBias, &e.dUpBias, &e.dDownBias};
  const Matrix bounds[FMLP_JUDGE_OUTPUTS] = {
      b.y,
      b.dx,
      oneChunk(b.dGate, b.dGateChunk),
      oneChunk(b.dUp, b.dUpChunk),
      oneChunk(b.dDown, b.dDownChunk),
      oneChunk(b.dGateBias, b.dGateBiasChunk),
      oneChunk(b.dUpBias, b.dUpBiasChunk),
      oneChunk(b.dDownBias, b.dDownBiasChunk)};
  for (int i = 0; i < outputs; ++i) {
    std::copy(values[i]->values.begin(), values[i]->values.end(), exact[i]);
    std::copy(bounds[i].values.begin(), bounds[i].values.end(), bound[i]);
  }
  return 0;
}
