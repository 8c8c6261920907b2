//===- Reference.h - A float64 gated MLP and its error bounds ---*- C++ -*-===//
//
// The independent reference every numerical test of fmlp judges against:
// the block's forward and backward in double precision, written as plain
// loops from the math (ARCHITECTURE.md), and an elementwise bound on the
// error of a correct fp32-accumulating implementation that stores every
// tensor in the storage type.
//
// The bound follows the standard model: a dot product of n terms computed
// in fp32 is within gamma_n = n u / (1 - n u) of the exact one, relative to
// the dot product of the absolute values (u = 2^-24); products of bf16 or
// f16 values are exact in fp32. Tensor cores accumulate with truncation,
// not IEEE rounding, and align a step's products to the largest before
// adding: their sums take u = 1.25 2^-23 (contractionError has the
// derivation, bench/tensor_core_sum.cu the measurement). tf32 and tf32x3
// products add their operands' roundings (tf32's: to nearest, 2^-11 each,
// kTf32OperandError). Each stored tensor adds the storage type's unit
// roundoff s (bf16 2^-8, f16 2^-11, f32 2^-24); each activation
// evaluation adds a few u; an error in an input propagates to the output
// through the absolute values (first order, with the activations' Lipschitz
// constants). A test passes when every element's |computed - exact| /
// bound is <= 1.
//
// No MLIR here: this is the judge, not the implementation.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_LIB_NUMERICS_REFERENCE_H
#define FMLP_LIB_NUMERICS_REFERENCE_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fmlp::numerics {

enum class ActivationKind { Silu, GeluTanh, Relu };
enum class Storage { F32, BF16, F16 };
/// How fp32 operands are multiplied in the contractions (16-bit operands'
/// products are exact whichever).
enum class Contraction {
  Ieee,   // exact products, IEEE fp32 sums (fp32 FMA)
  Tf32,   // each operand rounded to tf32 to nearest (2^-11:
          // kTf32OperandError; truncated, 2^-10, BlockSpec::tf32Truncated)
  Tf32x3, // each operand split x = hi + lo (tf32 each), lo lo' dropped
};

/// The relative error of an fp32 operand of a Tf32 contraction as the
/// tensor core takes it: half a unit of tf32's last place, 2^-11, since
/// every tf32 kernel rounds its operands to nearest (cvt.rna: the mma_sync
/// kernels in the kernel, the WGMMA kernels by fmlp-round-tf32-weights).
/// A tensor core given the fp32 bits truncates them (toward zero: bench/
/// wgmma_tf32_operands.cu on the H200), below kTf32TruncatedOperandError:
/// the A/B kernels of --fmlp-tf32-round-operands=false.
constexpr double kTf32OperandError = 0x1p-11;
constexpr double kTf32TruncatedOperandError = 0x1p-10;

/// The unit roundoff of a storage type: 2^-24, 2^-8, 2^-11.
double unitRoundoff(Storage storage);
/// The value of `value` once stored in `storage` (round to nearest even).
double roundTo(Storage storage, double value);

/// act(g) and act'(g), exactly (in double precision).
double activation(ActivationKind kind, double g);
double activationDerivative(ActivationKind kind, double g);
/// What evaluating act(g) and act'(g) in fp32 may cost, absolutely: the
/// allowance of every implementation (the GPU's sigmoid is approximate;
/// the derivations are in Reference.cpp).
double activationEvaluationError(ActivationKind kind, double g);
double derivativeEvaluationError(ActivationKind kind, double g);

/// A dense row-major matrix of doubles.
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> values;

  Matrix() = default;
  Matrix(int64_t rows, int64_t cols)
      : rows(rows), cols(cols), values(rows * cols) {}
  double &operator()(int64_t i, int64_t j) { return values[i * cols + j]; }
  double operator()(int64_t i, int64_t j) const { return values[i * cols + j]; }
};

struct BlockSpec {
  int64_t tokens, model, hidden; // T, D, H
  ActivationKind activation = ActivationKind::Silu;
  double gateMultiplier = 1.0, downMultiplier = 1.0;
  Storage storage = Storage::F32;
  bool gateBias = false, upBias = false, downBias = false;
  /// Of fp32 blocks (Ieee for bf16 and f16 ones).
  Contraction contraction = Contraction::Ieee;
  /// Tf32: the operands truncated to tf32, not rounded (the A/B kernels of
  /// --fmlp-tf32-round-operands=false): kTf32TruncatedOperandError.
  bool tf32Truncated = false;
  /// Tf32x3: the most k8 steps a kernel sums from zero on the tensor core
  /// before adding to its accumulator in fp32 (1, 2 or 4); the bound
  /// covers every group from one step to that many. 4: sm_90a's tf32x3
  /// WGMMA kernels, over T too (TileSelection.h's tf32x3GroupK8s);
  /// highest's take 2 or 1, mma_sync's 1.
  int64_t tf32x3GroupK8s = 4;
  /// The low-rank adapters' ranks (docs/LoRA.md): R of the gate's and up's
  /// (stacked), Rd of the down projection's; 0 without them.
  int64_t loraRank = 0, downLoraRank = 0;
};

/// The error of one contraction of n terms relative to the dot product of
/// the absolute values: products formed as `spec` says, summed in fp32 by
/// FMA (fp32 Ieee) or by tensor cores (16-bit storage, tf32, tf32x3).
double contractionError(const BlockSpec &spec, int64_t n);

/// Inputs as the math sees them: x [T, D], Wg and Wu [D, H] (x Wg), Wd
/// [H, D], dy [T, D]. Every value is representable in the storage type.
/// The adapters likewise (the transposes of what the block op takes):
/// Z = x loraA, G += Z gateLoraB, U += Z upLoraB; Zd = A downLoraA,
/// y += md Zd downLoraB.
struct Inputs {
  Matrix x, gate, up, down, dy;
  Matrix gateBias, upBias, downBias; // [1, H], [1, H], [1, D] when present
  // [D, R], [R, H], [R, H]; [H, Rd], [Rd, D] when present.
  Matrix loraA, gateLoraB, upLoraB, downLoraA, downLoraB;
};

/// Draws x, dy ~ N(0, 1), weights and adapters ~ N(0, 1 / fan_in) and
/// biases ~ N(0, 1/4), rounded to the storage type. (An adapter's B is
/// drawn, not zero as PEFT initializes it: its term then weighs as much as
/// the base projection's.)
Inputs drawInputs(const BlockSpec &spec, uint64_t seed);

/// C = op(A) op(B) in double precision, op = transpose where asked. Every
/// contraction of the reference and of its bounds goes through one; the
/// default runs plain loops on the host, a GPU test passes a float64 GEMM
/// of the device (the judge stays float64 either way).
using Matmul = std::function<Matrix(const Matrix &a, bool transposeA,
                                    const Matrix &b, bool transposeB)>;
Matrix hostMatmul(const Matrix &a, bool transposeA, const Matrix &b,
                  bool transposeB);

/// The block restricted to some tokens (rows of x and dy) or to some hidden
/// units (columns of the gate and up weights and biases, rows of the down
/// weight). Tokens do not interact and neither do hidden units, so the
/// restriction's exact values and bounds are the full block's: y and dx at
/// those tokens, the gate/up weight and bias gradients at those units'
/// columns and the down weight gradient at their rows. This is how a test
/// judges a block too large to reference in full (sample, then compare
/// there); its spec keeps T (or H) of the full block for the bounds.
/// Adapters mix the hidden units (Zd = A Ad, dZ = dG Bg^T + dU Bu^T):
/// selectHiddenUnits refuses inputs that have them.
Inputs selectTokens(const Inputs &inputs, const std::vector<int64_t> &rows);
Inputs selectHiddenUnits(const Inputs &inputs,
                         const std::vector<int64_t> &units);

/// Every tensor of the exact forward and backward.
struct Exact {
  Matrix g, u, a, y, dx, dGate, dUp, dDown;
  Matrix dGateBias, dUpBias, dDownBias; // [1, N] when the bias is present
  // The adapters' inner values and gradients, when present (Inputs' shapes).
  Matrix z, zd, dLoraA, dGateLoraB, dUpLoraB, dDownLoraA, dDownLoraB;
};
Exact computeExact(const BlockSpec &spec, const Inputs &inputs,
                   const Matmul &matmul = hostMatmul);

/// Elementwise error bounds of the outputs. Weight gradients summed over
/// `chunks` token chunks, each sum stored in the storage type, get
/// `chunks` storage roundings: bound = base + chunks * perChunk.
struct Bounds {
  Matrix y, dx;
  // Reductions over tokens (weight, bias and adapter gradients): base, and
  // per chunk.
  Matrix dGate, dUp, dDown, dGateBias, dUpBias, dDownBias;
  Matrix dGateChunk, dUpChunk, dDownChunk, dGateBiasChunk, dUpBiasChunk,
      dDownBiasChunk;
  Matrix dLoraA, dGateLoraB, dUpLoraB, dDownLoraA, dDownLoraB;
  Matrix dLoraAChunk, dGateLoraBChunk, dUpLoraBChunk, dDownLoraAChunk,
      dDownLoraBChunk;
};
Bounds computeBounds(const BlockSpec &spec, const Inputs &inputs,
                     const Exact &exact, const Matmul &matmul = hostMatmul);

/// The worst |computed - exact| / bound of one output.
struct Comparison {
  double worstRatio = 0;
  int64_t worstIndex = -1;
  int64_t nonFinite = 0; // NaN or infinity in the computed output
  bool passed() const { return nonFinite == 0 && worstRatio <= 1.0; }
};
Comparison compare(const std::vector<double> &computed, const Matrix &exact,
                   const Matrix &bound, const Matrix *perChunk = nullptr,
                   int64_t chunks = 1);

} // namespace fmlp::numerics

#endif // FMLP_LIB_NUMERICS_REFERENCE_H
