//===- Reference.cpp - A float64 gated MLP and its error bounds -----------===//

#include "lib/Numerics/Reference.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace fmlp::numerics {
namespace {

constexpr double kFp32Roundoff = 0x1p-24;
constexpr double kGeluCubic = 0.044715;
const double kSqrt2OverPi = std::sqrt(2.0 / M_PI);

/// Rounds to `bits` significant bits, round to nearest even; values below
/// `minNormal` round to multiples of minNormal * 2^(1 - bits) (subnormals).
double roundToBits(double value, int bits, double minNormal) {
  if (value == 0.0 || !std::isfinite(value))
    return value;
  double magnitude = std::fabs(value);
  int exponent;
  std::frexp(std::max(magnitude, minNormal), &exponent);
  double quantum = std::ldexp(1.0, exponent - bits);
  return std::nearbyint(value / quantum) * quantum;
}

} // namespace

double activation(ActivationKind kind, double g) {
  switch (kind) {
  case ActivationKind::Silu:
    return g / (1.0 + std::exp(-g));
  case ActivationKind::GeluTanh:
    return 0.5 * g *
           (1.0 + std::tanh(kSqrt2OverPi * (g + kGeluCubic * g * g * g)));
  case ActivationKind::Relu:
    return g > 0 ? g : 0.0;
  }
  return 0;
}

double activationDerivative(ActivationKind kind, double g) {
  switch (kind) {
  case ActivationKind::Silu: {
    double s = 1.0 / (1.0 + std::exp(-g));
    return s * (1.0 + g * (1.0 - s));
  }
  case ActivationKind::GeluTanh: {
    double t = std::tanh(kSqrt2OverPi * (g + kGeluCubic * g * g * g));
    return 0.5 * (1.0 + t) + 0.5 * g * (1.0 - t * t) * kSqrt2OverPi *
                                 (1.0 + 3.0 * kGeluCubic * g * g);
  }
  case ActivationKind::Relu:
    return g > 0 ? 1.0 : 0.0;
  }
  return 0;
}

namespace {

/// Bounds on |act'| (Lipschitz constant of act) and |act''| over the reals.
double lipschitz(ActivationKind kind) {
  return kind == ActivationKind::Relu ? 1.0 : 1.13;
}
double secondDerivativeBound(ActivationKind kind) {
  return kind == ActivationKind::Silu ? 0.5 : 0.8;
}

} // namespace

/// Error of evaluating act(g) in fp32: a few operations, each within u of
/// its result; for the tanh GELU the cubic's error passes through tanh.
/// SiLU, g s with s = 1 / (1 + e), e = e^-g: e may be approximate, within
/// (2 + 1.173 |g|) ulp <= (4 + 2.35 |g|) u (CUDA's bound for __expf; 2.5 |g|
/// is allowed), the reciprocal within 1 ulp. s inherits e's relative error
/// times e / (1 + e) = 1 - s, plus 3 u; the product adds u: (1 - s)(4 +
/// 2.5 |g|) u + 4 u <= (8 + 2.5 |g|) u. A flushed s (its result below
/// 2^-126, g < -87: s below 2^-125) adds |g| 2^-125. Its slope, s (1 + g
/// (1 - s)): |ds| <= (s (1 - s)(4 + 2.5 |g|) + 3 s) u <= 4.6 u, as s (1 - s)
/// <= 1/4 and |g| s (1 - s) <= 0.23, times |d slope / ds| <= 1 + |g|, plus
/// ~4 (1 + |g|) u for its own operations: within 10 u (1 + |g|).
/// ActivationBoundTest emulates the GPU's evaluation at its extremes
/// against both.
double activationEvaluationError(ActivationKind kind, double g) {
  double a = std::fabs(activation(kind, g)), m = std::fabs(g);
  switch (kind) {
  case ActivationKind::Silu:
    return (8 + 2.5 * m) * kFp32Roundoff * a + m * std::ldexp(1.0, -125);
  case ActivationKind::GeluTanh:
    return 3 * kFp32Roundoff * a +
           m * kFp32Roundoff *
               (1 + 2 * kSqrt2OverPi * (m + kGeluCubic * m * m * m));
  case ActivationKind::Relu:
    return 0;
  }
  return 0;
}

double derivativeEvaluationError(ActivationKind kind, double g) {
  double m = std::fabs(g);
  switch (kind) {
  case ActivationKind::Silu:
    return 10 * kFp32Roundoff * (1 + m);
  case ActivationKind::GeluTanh:
    return 10 * kFp32Roundoff * (1 + m + m * m * m);
  case ActivationKind::Relu:
    return 0;
  }
  return 0;
}

namespace {

double gamma(int64_t n, double unit = kFp32Roundoff) {
  double nu = n * unit;
  return nu / (1 - nu);
}

template <typename F> Matrix map(const Matrix &a, F f) {
  Matrix c(a.rows, a.cols);
  // Elements are independent: a build with OpenMP (the GPU tests') spreads
  // them over the cores.
  const int64_t n = static_cast<int64_t>(a.values.size());
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
  for (int64_t i = 0; i < n; ++i)
    c.values[i] = f(i);
  return c;
}

/// a + b broadcast over rows (b is [1, cols]); a itself if b is empty.
Matrix addRow(const Matrix &a, const Matrix &row) {
  if (row.values.empty())
    return a;
  return map(a, [&](size_t i) { return a.values[i] + row.values[i % a.cols]; });
}

/// a + b, elementwise.
Matrix plus(Matrix a, const Matrix &b) {
  for (size_t i = 0; i < a.values.size(); ++i)
    a.values[i] += b.values[i];
  return a;
}

/// [1, cols]: the sum of each column.
Matrix columnSums(const Matrix &a) {
  Matrix sums(1, a.cols);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j)
      sums.values[j] += a(i, j);
  return sums;
}

Matrix absolute(const Matrix &a) {
  return map(a, [&](size_t i) { return std::fabs(a.values[i]); });
}

/// The absolute error of storing a value that underflows: half the
/// spacing of the subnormals (f16 2^-25; bf16 and f32 2^-134, 2^-150).
double underflowError(Storage storage) {
  switch (storage) {
  case Storage::F32:
    return 0x1p-150;
  case Storage::BF16:
    return 0x1p-134;
  case Storage::F16:
    return 0x1p-25;
  }
  return 0;
}

/// e + s (|v| + e) + eta: an error `e` of a value `v` after storing it
/// (relative rounding s, and eta where the value is subnormal).
Matrix stored(const Matrix &error, const Matrix &value, Storage storage) {
  double s = unitRoundoff(storage), eta = underflowError(storage);
  return map(error, [&](size_t i) {
    return error.values[i] +
           s * (std::fabs(value.values[i]) + error.values[i]) + eta;
  });
}

Matrix draw(int64_t rows, int64_t cols, double deviation, Storage storage,
            std::mt19937_64 &generator) {
  std::normal_distribution<double> normal(0.0, deviation);
  Matrix m(rows, cols);
  for (double &v : m.values)
    v = roundTo(storage, normal(generator));
  return m;
}

} // namespace

double contractionError(const BlockSpec &spec, int64_t n) {
  // fp32 FMA: gamma_n with u = 2^-24 (the SIMT kernels' blocked sums, at
  // most min(n, 16) + ceil(n / 16) - 1 roundings, are within it). A tensor
  // core adds a step of k products (exact in fp32) to its accumulator c by
  // aligning the k + 1 terms to the largest and truncating each below that
  // one's last place (with no guard bits: bench/tensor_core_sum.cu
  // measured 8 products of 1/8 of a unit all lost, and the final sum
  // truncated, not rounded), then truncates the sum to fp32: the step's
  // error is below (k + 2) 2^-23 M, M = |c| + the step's sum |p| <= all
  // products' sum |p|. Over n / k steps that is at most (1 + 2 / k) n 2^-23
  // sum |p|: gamma_n with u = (1 + 2 / k) 2^-23, taken at k = 8 (mma.sync's
  // tf32 step; 16-bit MMAs add 16 products per instruction, which hardware
  // may split in steps of 8).
  bool tensorCores =
      spec.storage != Storage::F32 || spec.contraction != Contraction::Ieee;
  double sumUnit = tensorCores ? 1.25 * 0x1p-23 : kFp32Roundoff;
  const double v = 0x1p-11; // tf32's unit roundoff (cvt.rna)
  switch (spec.contraction) {
  case Contraction::Ieee:
    return gamma(n, sumUnit);
  case Contraction::Tf32: {
    // Each product (a (1 + d1)) (b (1 + d2)), |d1|, |d2| <= t, exact.
    // Every tf32 kernel rounds each operand to nearest (cvt.rna: t = v =
    // 2^-11). A tensor core given fp32 bits drops the 13 below tf32's,
    // truncating toward zero (measured on the H200: bench/
    // wgmma_tf32_operands.cu, docs/precision.md): t = 2 v = 2^-10, the A/B
    // kernels that leave it so (spec.tf32Truncated).
    const double t =
        spec.tf32Truncated ? kTf32TruncatedOperandError : kTf32OperandError;
    double product = (1 + t) * (1 + t) - 1;
    return product + (1 + product) * gamma(n, sumUnit);
  }
  case Contraction::Tf32x3: {
    // hi = rna(x), r = x - hi exactly (|r| <= v |x|), lo = rna(r): x = hi +
    // lo + e with |e| <= v |r| <= v^2 |x| and |lo| <= v (1 + v) |x|. The
    // sum hi hi' + hi lo' + lo hi' = (x - e)(y - e') - lo lo' is within
    // (2 v^2 + v^4 + v^2 (1 + v)^2) |x y| of x y; its 3 n exact products
    // total at most (1 + v)^2 (1 + 2 v) |x y| per term. A kernel sums the
    // three products of g k8 steps from zero on the tensor core (3 g steps
    // of 8 products, each below (8 + 2) 2^-23 of the group's magnitude, by
    // the model above) and adds each group's sum to the accumulator in
    // fp32 (rounded to nearest: gamma over ceil(n / 8 g) terms); the
    // largest over the groups a kernel may take, 1, 2, 4 up to
    // spec.tf32x3GroupK8s.
    double product = 2 * v * v + v * v * v * v + v * v * (1 + v) * (1 + v);
    double magnitude = (1 + v) * (1 + v) * (1 + 2 * v);
    auto grouped = [&](int64_t group) {
      double groupSum = 3 * group * (8 + 2) * 0x1p-23;
      int64_t groups = (n + 8 * group - 1) / (8 * group);
      return product + magnitude * (groupSum + (1 + groupSum) * gamma(groups));
    };
    double bound = 0;
    for (int64_t group = 1; group <= spec.tf32x3GroupK8s; group *= 2)
      bound = std::max(bound, grouped(group));
    return bound;
  }
  }
  return 0;
}

double unitRoundoff(Storage storage) {
  switch (storage) {
  case Storage::F32:
    return 0x1p-24;
  case Storage::BF16:
    return 0x1p-8;
  case Storage::F16:
    return 0x1p-11;
  }
  return 0;
}

double roundTo(Storage storage, double value) {
  switch (storage) {
  case Storage::F32:
    return static_cast<float>(value);
  case Storage::BF16:
    return roundToBits(value, 8, 0x1p-126);
  case Storage::F16:
    return roundToBits(value, 11, 0x1p-14);
  }
  return value;
}

Matrix hostMatmul(const Matrix &a, bool transposeA, const Matrix &b,
                  bool transposeB) {
  int64_t m = transposeA ? a.cols : a.rows, k = transposeA ? a.rows : a.cols;
  int64_t n = transposeB ? b.rows : b.cols;
  Matrix c(m, n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      double left = transposeA ? a(p, i) : a(i, p);
      if (left == 0)
        continue;
      double *row = &c.values[i * n];
      for (int64_t j = 0; j < n; ++j)
        row[j] += left * (transposeB ? b(j, p) : b(p, j));
    }
  return c;
}

namespace {

Matrix selectRows(const Matrix &m, const std::vector<int64_t> &rows) {
  Matrix r(static_cast<int64_t>(rows.size()), m.cols);
  for (size_t i = 0; i < rows.size(); ++i)
    for (int64_t j = 0; j < m.cols; ++j)
      r(static_cast<int64_t>(i), j) = m(rows[i], j);
  return r;
}

Matrix selectColumns(const Matrix &m, const std::vector<int64_t> &columns) {
  if (m.values.empty())
    return m; // an absent bias stays absent
  Matrix r(m.rows, static_cast<int64_t>(columns.size()));
  for (int64_t i = 0; i < m.rows; ++i)
    for (size_t j = 0; j < columns.size(); ++j)
      r(i, static_cast<int64_t>(j)) = m(i, columns[j]);
  return r;
}

} // namespace

Inputs selectTokens(const Inputs &inputs, const std::vector<int64_t> &rows) {
  Inputs r = inputs;
  r.x = selectRows(inputs.x, rows);
  r.dy = selectRows(inputs.dy, rows);
  return r;
}

Inputs selectHiddenUnits(const Inputs &inputs,
                         const std::vector<int64_t> &units) {
  if (!inputs.loraA.values.empty() || !inputs.downLoraA.values.empty())
    throw std::invalid_argument(
        "selectHiddenUnits: adapters mix the hidden units (dZ = dG Bg^T + "
        "dU Bu^T, Zd = A Ad)");
  Inputs r = inputs;
  r.gateLoraB = selectColumns(inputs.gateLoraB, units);
  r.upLoraB = selectColumns(inputs.upLoraB, units);
  r.gate = selectColumns(inputs.gate, units);
  r.up = selectColumns(inputs.up, units);
  r.down = selectRows(inputs.down, units);
  r.gateBias = selectColumns(inputs.gateBias, units);
  r.upBias = selectColumns(inputs.upBias, units);
  return r;
}

Inputs drawInputs(const BlockSpec &spec, uint64_t seed) {
  std::mt19937_64 generator(seed);
  // Weights ~ N(0, 1 / fan_in): G and U are of order one, so the
  // activations' curved region is exercised, not just their linear part.
  double gateDeviation = 1.0 / std::sqrt(double(spec.model));
  double downDeviation = 1.0 / std::sqrt(double(spec.hidden));
  Inputs inputs;
  inputs.x = draw(spec.tokens, spec.model, 1.0, spec.storage, generator);
  inputs.gate =
      draw(spec.model, spec.hidden, gateDeviation, spec.storage, generator);
  inputs.up =
      draw(spec.model, spec.hidden, gateDeviation, spec.storage, generator);
  inputs.down =
      draw(spec.hidden, spec.model, downDeviation, spec.storage, generator);
  inputs.dy = draw(spec.tokens, spec.model, 1.0, spec.storage, generator);
  if (spec.gateBias)
    inputs.gateBias = draw(1, spec.hidden, 0.5, spec.storage, generator);
  if (spec.upBias)
    inputs.upBias = draw(1, spec.hidden, 0.5, spec.storage, generator);
  if (spec.downBias)
    inputs.downBias = draw(1, spec.model, 0.5, spec.storage, generator);
  // After every other input, so that a block's draws do not depend on
  // whether it has adapters.
  if (int64_t r = spec.loraRank) {
    inputs.loraA = draw(spec.model, r, gateDeviation, spec.storage, generator);
    double bDeviation = 1.0 / std::sqrt(double(r));
    inputs.gateLoraB = draw(r, spec.hidden, bDeviation, spec.storage, generator);
    inputs.upLoraB = draw(r, spec.hidden, bDeviation, spec.storage, generator);
  }
  if (int64_t r = spec.downLoraRank) {
    inputs.downLoraA =
        draw(spec.hidden, r, downDeviation, spec.storage, generator);
    inputs.downLoraB = draw(r, spec.model, 1.0 / std::sqrt(double(r)),
                            spec.storage, generator);
  }
  return inputs;
}

Exact computeExact(const BlockSpec &spec, const Inputs &in,
                   const Matmul &matmul) {
  Exact e;
  double mg = spec.gateMultiplier, md = spec.downMultiplier;
  bool lora = spec.loraRank > 0, downLora = spec.downLoraRank > 0;
  Matrix xg = matmul(in.x, false, in.gate, false);
  Matrix xu = matmul(in.x, false, in.up, false);
  if (lora) {
    e.z = matmul(in.x, false, in.loraA, false);
    xg = plus(xg, matmul(e.z, false, in.gateLoraB, false));
    xu = plus(xu, matmul(e.z, false, in.upLoraB, false));
  }
  e.g = addRow(xg, in.gateBias);
  for (double &v : e.g.values)
    v *= mg;
  e.u = addRow(xu, in.upBias);
  e.a = map(e.g, [&](size_t i) {
    return activation(spec.activation, e.g.values[i]) * e.u.values[i];
  });
  Matrix aw = matmul(e.a, false, in.down, false);
  if (downLora) {
    e.zd = matmul(e.a, false, in.downLoraA, false);
    aw = plus(aw, matmul(e.zd, false, in.downLoraB, false));
  }
  e.y = addRow(aw, in.downBias);
  for (double &v : e.y.values)
    v *= md;

  // dA = md (dy Wd^T + dZd Ad^T), dZd = dy Bd^T.
  Matrix dA = matmul(in.dy, false, in.down, true);
  Matrix dZd;
  if (downLora) {
    dZd = matmul(in.dy, false, in.downLoraB, true);
    dA = plus(dA, matmul(dZd, false, in.downLoraA, true));
  }
  for (double &v : dA.values)
    v *= md;
  Matrix dG = map(e.g, [&](size_t i) {
    return mg * dA.values[i] * e.u.values[i] *
           activationDerivative(spec.activation, e.g.values[i]);
  });
  Matrix dU = map(e.g, [&](size_t i) {
    return dA.values[i] * activation(spec.activation, e.g.values[i]);
  });
  e.dx = plus(matmul(dG, false, in.gate, true),
              matmul(dU, false, in.up, true));
  e.dGate = matmul(in.x, true, dG, false);
  e.dUp = matmul(in.x, true, dU, false);
  e.dDown = matmul(e.a, true, in.dy, false);
  for (double &v : e.dDown.values)
    v *= md;
  if (spec.gateBias)
    e.dGateBias = columnSums(dG);
  if (spec.upBias)
    e.dUpBias = columnSums(dU);
  if (spec.downBias) {
    e.dDownBias = columnSums(in.dy);
    for (double &v : e.dDownBias.values)
      v *= md;
  }
  if (lora) {
    // dZ = dG Bg^T + dU Bu^T; dx += dZ A^T.
    Matrix dZ = plus(matmul(dG, false, in.gateLoraB, true),
                     matmul(dU, false, in.upLoraB, true));
    e.dx = plus(e.dx, matmul(dZ, false, in.loraA, true));
    e.dLoraA = matmul(in.x, true, dZ, false);
    e.dGateLoraB = matmul(e.z, true, dG, false);
    e.dUpLoraB = matmul(e.z, true, dU, false);
  }
  if (downLora) {
    e.dDownLoraA = matmul(e.a, true, dZd, false);
    e.dDownLoraB = matmul(e.zd, true, in.dy, false);
    for (Matrix *m : {&e.dDownLoraA, &e.dDownLoraB})
      for (double &v : m->values)
        v *= md;
  }
  return e;
}

Bounds computeBounds(const BlockSpec &spec, const Inputs &in, const Exact &e,
                     const Matmul &matmul) {
  const double u = kFp32Roundoff, s = unitRoundoff(spec.storage),
               eta = underflowError(spec.storage);
  const double mg = std::fabs(spec.gateMultiplier),
               md = std::fabs(spec.downMultiplier);
  const ActivationKind act = spec.activation;
  const double L = lipschitz(act), L2 = secondDerivativeBound(act);
  Matrix absX = absolute(in.x), absGate = absolute(in.gate),
         absUp = absolute(in.up), absDown = absolute(in.down),
         absDy = absolute(in.dy);
  Bounds b;

  const bool lora = spec.loraRank > 0, downLora = spec.downLoraRank > 0;
  const int64_t r = spec.loraRank, rd = spec.downLoraRank;
  // The contractions: K1 over D (+ R), K2 over H (+ Rd) plus the down
  // bias, K3 over D (+ Rd); the adapters' own projections over D (Z, dZd)
  // and H (Zd).
  const double overD = contractionError(spec, spec.model),
               overK1 = contractionError(spec, spec.model + r),
               overH = contractionError(spec, spec.hidden + rd + 1),
               overHOnly = contractionError(spec, spec.hidden),
               overK3 = contractionError(spec, spec.model + rd);
  // A contraction's error carried from an operand stored with `error`: the
  // sum's own on |value| + error, plus the error itself (overN of n terms).
  auto carriedBy = [&](const Matrix &value, const Matrix &error,
                       double overN) {
    return map(value, [&](size_t i) {
      return overN * (std::fabs(value.values[i]) + error.values[i]) +
             error.values[i];
    });
  };

  // Forward. Z = x A, stored: one contraction over D.
  Matrix eZ;
  if (lora) {
    Matrix xa = matmul(absX, false, absolute(in.loraA), false);
    eZ = stored(map(xa, [&](size_t i) { return overD * xa.values[i]; }), e.z,
                spec.storage);
  }
  // G and U: fp32 dot products over D, and over Z's R columns carrying
  // Z's error (times mg for G).
  Matrix xg = matmul(absX, false, absGate, false);
  Matrix xu = matmul(absX, false, absUp, false);
  Matrix zgCarried, zuCarried;
  if (lora) {
    Matrix carriedZ = carriedBy(e.z, eZ, overK1);
    zgCarried = matmul(carriedZ, false, absolute(in.gateLoraB), false);
    zuCarried = matmul(carriedZ, false, absolute(in.upLoraB), false);
  }
  Matrix eG = map(xg, [&](size_t i) {
    return mg * (overK1 * xg.values[i] +
                 (lora ? zgCarried.values[i] : 0.0)) +
           u * std::fabs(e.g.values[i]);
  });
  Matrix eU = map(xu, [&](size_t i) {
    return overK1 * xu.values[i] + (lora ? zuCarried.values[i] : 0.0);
  });
  // A = act(G) U in fp32 from unrounded G, U, then stored.
  auto activationError = [&](size_t i, const Matrix &gError) {
    return activationEvaluationError(act, e.g.values[i]) + L * gError.values[i];
  };
  Matrix eA0 = map(e.a, [&](size_t i) {
    double ag = std::fabs(activation(act, e.g.values[i]));
    return activationError(i, eG) * (std::fabs(e.u.values[i]) + eU.values[i]) +
           ag * eU.values[i] + u * std::fabs(e.a.values[i]);
  });
  Matrix eA = stored(eA0, e.a, spec.storage);
  // y = md (A Wd): the dot product's own error on |A| + eA, plus eA carried.
  Matrix carriedA = carriedBy(e.a, eA, overH);
  Matrix downBiasTerm = absolute(in.downBias);
  for (double &v : downBiasTerm.values)
    v *= overH;
  Matrix yTerm = addRow(matmul(carriedA, false, absDown, false), downBiasTerm);
  // Zd = A Ad, from the stored A over H, stored; its R_d terms of y carry
  // its error.
  Matrix eZd;
  if (downLora) {
    eZd = stored(matmul(carriedBy(e.a, eA, overHOnly), false,
                        absolute(in.downLoraA), false),
                 e.zd, spec.storage);
    yTerm = plus(yTerm, matmul(carriedBy(e.zd, eZd, overH), false,
                               absolute(in.downLoraB), false));
  }
  b.y = stored(map(yTerm,
                   [&](size_t i) {
                     return md * yTerm.values[i] + u * std::fabs(e.y.values[i]);
                   }),
               e.y, spec.storage);

  // Backward. G and U as read back from storage.
  Matrix eGs = stored(eG, e.g, spec.storage),
         eUs = stored(eU, e.u, spec.storage);
  // dA = md (dY Wd^T + dZd Ad^T) over D (+ Rd), dZd = dY Bd^T stored.
  Matrix dyw = matmul(absDy, false, absDown, true);
  Matrix dA = matmul(in.dy, false, in.down, true);
  Matrix dZd, edZd, dzdCarried;
  if (downLora) {
    dZd = matmul(in.dy, false, in.downLoraB, true);
    Matrix dyb = matmul(absDy, false, absolute(in.downLoraB), true);
    edZd = stored(map(dyb, [&](size_t i) { return overD * dyb.values[i]; }),
                  dZd, spec.storage);
    dA = plus(dA, matmul(dZd, false, in.downLoraA, true));
    dzdCarried = matmul(carriedBy(dZd, edZd, overK3), false,
                        absolute(in.downLoraA), true);
  }
  Matrix edA = map(dyw, [&](size_t i) {
    return md * (overK3 * dyw.values[i] +
                 (downLora ? dzdCarried.values[i] : 0.0)) +
           u * md * std::fabs(dA.values[i]);
  });
  Matrix dGExact(e.g.rows, e.g.cols), dUExact(e.g.rows, e.g.cols);
  Matrix edG0 = map(e.g, [&](size_t i) {
    double g = e.g.values[i], uu = std::fabs(e.u.values[i]);
    double da = md * std::fabs(dA.values[i]);
    double slope = std::fabs(activationDerivative(act, g));
    // act' moves by at most L2 eGs, or by its jump (relu at 0).
    double slopeError = derivativeEvaluationError(act, g) +
                        (act == ActivationKind::Relu
                             ? (std::fabs(g) <= eGs.values[i] ? 1.0 : 0.0)
                             : L2 * eGs.values[i]);
    dGExact.values[i] =
        mg * md * dA.values[i] * e.u.values[i] * activationDerivative(act, g);
    return mg *
           (edA.values[i] * uu * slope + da * eUs.values[i] * slope +
            da * (uu + eUs.values[i]) * slopeError + 3 * u * da * uu * slope);
  });
  Matrix edU0 = map(e.g, [&](size_t i) {
    double g = e.g.values[i];
    double ag = std::fabs(activation(act, g));
    double da = md * std::fabs(dA.values[i]);
    dUExact.values[i] = md * dA.values[i] * activation(act, g);
    return edA.values[i] * ag + da * activationError(i, eGs) + u * da * ag;
  });
  Matrix edG = stored(edG0, dGExact, spec.storage),
         edU = stored(edU0, dUExact, spec.storage);
  auto carried = [&](const Matrix &value, const Matrix &error, int64_t n) {
    return carriedBy(value, error, contractionError(spec, n));
  };
  // dZ = dG Bg^T + dU Bu^T, over 2H, stored.
  Matrix dZ, edZ;
  if (lora) {
    Matrix absGateLoraB = absolute(in.gateLoraB),
           absUpLoraB = absolute(in.upLoraB);
    dZ = plus(matmul(dGExact, false, in.gateLoraB, true),
              matmul(dUExact, false, in.upLoraB, true));
    edZ = stored(
        plus(matmul(carried(dGExact, edG, 2 * spec.hidden), false,
                    absGateLoraB, true),
             matmul(carried(dUExact, edU, 2 * spec.hidden), false, absUpLoraB,
                    true)),
        dZ, spec.storage);
  }
  // dx: one fp32 contraction over K = 2H (+ R: dZ A^T).
  int64_t dxTerms = 2 * spec.hidden + r;
  Matrix dxSum =
      plus(matmul(carried(dGExact, edG, dxTerms), false, absGate, true),
           matmul(carried(dUExact, edU, dxTerms), false, absUp, true));
  if (lora)
    dxSum = plus(dxSum, matmul(carried(dZ, edZ, dxTerms), false,
                               absolute(in.loraA), true));
  b.dx = stored(map(dxSum,
                    [&](size_t i) {
                      return dxSum.values[i] + u * std::fabs(e.dx.values[i]);
                    }),
                e.dx, spec.storage);

  // Weight gradients: fp32 contractions over T of left^T right, each
  // operand with its error (a stored activation's, or none for x and dY);
  // each chunk's sum is stored. With M = (|l| + el)^T (|r| + er) and P =
  // |l|^T |r|, the error is within gamma_T M (the sum's own) + M - P (the
  // operands' errors carried, first and second order).
  const double overT = contractionError(spec, spec.tokens);
  auto weightGradient = [&](const Matrix &leftValue, const Matrix &leftError,
                            const Matrix &rightValue, const Matrix &rightError,
                            const Matrix &exact, double scale, Matrix &base,
                            Matrix &perChunk) {
    auto withError = [](const Matrix &value, const Matrix &error) {
      return map(value, [&](size_t i) {
        return std::fabs(value.values[i]) +
               (error.values.empty() ? 0.0 : error.values[i]);
      });
    };
    Matrix rightMagnitude = withError(rightValue, rightError);
    Matrix magnitude =
        matmul(withError(leftValue, leftError), true, rightMagnitude, false);
    // M - P = el^T (|r| + er) + |l|^T er, summed without cancellation.
    Matrix carriedErrors(magnitude.rows, magnitude.cols);
    if (!leftError.values.empty())
      carriedErrors = plus(carriedErrors,
                           matmul(leftError, true, rightMagnitude, false));
    if (!rightError.values.empty())
      carriedErrors = plus(carriedErrors, matmul(absolute(leftValue), true,
                                                 rightError, false));
    base = map(magnitude, [&](size_t i) {
      return scale * (overT * magnitude.values[i] + carriedErrors.values[i]) +
             u * std::fabs(exact.values[i]);
    });
    perChunk = map(magnitude, [&](size_t i) {
      return s * (scale * magnitude.values[i] + base.values[i]) + eta;
    });
  };
  const Matrix exactInput; // x and dY: no error
  weightGradient(in.x, exactInput, dGExact, edG, e.dGate, 1.0, b.dGate,
                 b.dGateChunk);
  weightGradient(in.x, exactInput, dUExact, edU, e.dUp, 1.0, b.dUp,
                 b.dUpChunk);
  // dWd reads A as the forward stored it, or as K3 recomputed and stored
  // it from the stored G and U (save=gu): the larger of the two errors
  // (the recomputed one: act(G) U in fp32, then rounded to storage).
  Matrix eAUsed = map(e.a, [&](size_t i) {
    double ag = std::fabs(activation(act, e.g.values[i]));
    double recomputed =
        activationError(i, eGs) * (std::fabs(e.u.values[i]) + eUs.values[i]) +
        ag * eUs.values[i] + (u + s) * std::fabs(e.a.values[i]);
    return std::max(eA.values[i], recomputed);
  });
  // dWd = md A^T dY: the error sits in A here (dY is exact).
  weightGradient(e.a, eAUsed, in.dy, exactInput, e.dDown, md, b.dDown,
                 b.dDownChunk);
  // The adapters' gradients: dA = x^T dZ, dBg = Z^T dG, dBu = Z^T dU (Z as
  // the forward stored it, or as save=x's backward recomputes it: the same
  // bound), dAd = md A^T dZd, dBd = md Zd^T dY.
  if (lora) {
    weightGradient(in.x, exactInput, dZ, edZ, e.dLoraA, 1.0, b.dLoraA,
                   b.dLoraAChunk);
    weightGradient(e.z, eZ, dGExact, edG, e.dGateLoraB, 1.0, b.dGateLoraB,
                   b.dGateLoraBChunk);
    weightGradient(e.z, eZ, dUExact, edU, e.dUpLoraB, 1.0, b.dUpLoraB,
                   b.dUpLoraBChunk);
  }
  if (downLora) {
    weightGradient(e.a, eAUsed, dZd, edZd, e.dDownLoraA, md, b.dDownLoraA,
                   b.dDownLoraAChunk);
    weightGradient(e.zd, eZd, in.dy, exactInput, e.dDownLoraB, md,
                   b.dDownLoraB, b.dDownLoraBChunk);
  }

  // Bias gradients: fp32 sums over T of dG, dU (with their errors) and dY.
  auto biasGradient = [&](const Matrix &value, const Matrix &error,
                          const Matrix &exact, double scale, Matrix &base,
                          Matrix &perChunk) {
    Matrix magnitude = columnSums(map(value, [&](size_t i) {
      return std::fabs(value.values[i]) + error.values[i];
    }));
    Matrix carriedError = columnSums(error);
    base = map(magnitude, [&](size_t i) {
      return scale * (gamma(spec.tokens) * magnitude.values[i] +
                      carriedError.values[i]) +
             u * std::fabs(exact.values[i]);
    });
    perChunk = map(magnitude, [&](size_t i) {
      return s * (scale * magnitude.values[i] + base.values[i]) + eta;
    });
  };
  if (spec.gateBias)
    biasGradient(dGExact, edG, e.dGateBias, 1.0, b.dGateBias, b.dGateBiasChunk);
  if (spec.upBias)
    biasGradient(dUExact, edU, e.dUpBias, 1.0, b.dUpBias, b.dUpBiasChunk);
  if (spec.downBias)
    biasGradient(in.dy, Matrix(in.dy.rows, in.dy.cols), e.dDownBias, md,
                 b.dDownBias, b.dDownBiasChunk);
  return b;
}

Comparison compare(const std::vector<double> &computed, const Matrix &exact,
                   const Matrix &bound, const Matrix *perChunk,
                   int64_t chunks) {
  Comparison result;
  for (size_t i = 0; i < computed.size(); ++i) {
    double value = computed[i];
    if (!std::isfinite(value)) {
      ++result.nonFinite;
      continue;
    }
    double limit =
        bound.values[i] + (perChunk ? chunks * perChunk->values[i] : 0.0);
    double error = std::fabs(value - exact.values[i]);
    double ratio = limit > 0 ? error / limit : (error == 0 ? 0.0 : INFINITY);
    if (ratio > result.worstRatio || result.worstIndex < 0) {
      result.worstRatio = std::max(result.worstRatio, ratio);
      result.worstIndex = static_cast<int64_t>(i);
    }
  }
  return result;
}

} // namespace fmlp::numerics
