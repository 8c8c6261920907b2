//===- BlockTest.cpp - A bundle's entry points on the GPU, judged ---------===//
//
// Runs a bundle's forward, forward_nograd and backward through fmlp's
// runtime on random inputs (outputs, saved activations and workspace
// poisoned with NaN first) and judges every output against the float64
// reference of lib/Numerics by the error-bound method: worst
// |computed - exact| / bound per output, pass <= 1. The reference's
// contractions run as float64 GEMMs on the device (cuBLAS), its elementwise
// steps on the host.
//
// The forward and backward are also captured in a CUDA graph, replayed, and
// judged again; y and dx must be the eager run's bit for bit (the kernels,
// split-K's included, are deterministic).
//
// The weights are passed in the layout the bundle declares them: nn.Linear's
// [out, in], or [in, out] as ONNX and JAX store them (gate's shape [D, H]);
// their gradients are read back alike.
//
// The bundle may have any memory policy (save=agu, gu, u, x) and token chunks
// (chunk-tokens): each entry point's arguments are made from the manifest
// by name (the saved activations only where it has them, as wide as it
// says, the workspace as its shape says: [T, n], or [C, n] for a chunked
// entry), and the weight gradients of a chunked backward are judged with
// one storage rounding per chunk (lib/Numerics: bound = base + chunks x per
// chunk).
//
// A block with low-rank adapters (docs/LoRA.md) takes lora_a [R, D],
// gate_lora_b and up_lora_b [H, R], down_lora_a [Rd, H] and down_lora_b
// [D, Rd] (either group may be absent); R and Rd are read from the
// manifest, the adapters drawn as lib/Numerics' drawInputs draws them (B
// not zero: the adapter terms weigh as much as the base projections'), and
// the five adapter gradients judged beside the weight gradients. Adapters
// mix the hidden units, so a LoRA block is never sampled: a T whose T x H
// is too large for the full reference fails, not judged.
//
// Negative controls, each of which must fail: y judged against the output
// for other inputs (printed but not counted for a block with adapters,
// whose bf16 bound on y exceeds |y|: see below); one element of y moved by
// twice its bound; a second backward over the same saved activations (the
// runtime must refuse it; save=x saves none, so it has nothing to refuse); for
// a chunked backward over more than one chunk, d_down judged against the
// gradient of its last chunk's tokens alone (what a last chunk that overwrote
// would leave); for a block with adapters, every output judged as if the block
// had none (y, y_nograd, dx and the weight gradients by the reference without
// adapters, as NumericsTest's AdaptersLeftOutFail does on the CPU). At T = 0
// the weight and adapter gradients must be exactly zero (they are poisoned
// before; d_down as poisoned must fail, that case's control).
//
//   fmlp-gpu-block-test BUNDLE DTYPE D H T... [--seed=N]
//                       [--contraction=ieee|highest|tf32|tf32x3]
//                       [--tf32-truncated] [--repeat=N]
//
// --contraction is how the fp32 bundle multiplies (its manifest's entry
// points say: "precision"); the bound follows it (highest's is IEEE
// fp32's: it takes tf32x3 only where that bound holds). Judging a tf32 bundle
// by tf32x3's bound is the tf32 modes' negative control (it must fail).
// --tf32-truncated judges tf32 by the bound of operands truncated to tf32,
// not rounded (the A/B bundles of --fmlp-tf32-round-operands=false; such a
// bundle judged without it is the rounding's negative control).
//
// --repeat=N runs the eager forward, forward_nograd and backward N more
// times, outputs poisoned before each, and fails unless every output is the
// first run's bit for bit: a race check far cheaper than the float64
// reference, which is computed once.
//
// Prints one row per output; exits 1 if any output fails or any control
// passes.
//
//===----------------------------------------------------------------------===//

#include "fmlp/Runtime.hpp"
#include "lib/Numerics/Reference.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace fmlp::numerics;

namespace {

#define CHECK_CUDA(call)                                                       \
  do {                                                                         \
    cudaError_t error_ = (call);                                               \
    if (error_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s failed: %s\n", #call,                           \
                   cudaGetErrorString(error_));                                \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

#define CHECK_CUBLAS(call)                                                     \
  do {                                                                         \
    cublasStatus_t status_ = (call);                                           \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                    \
      std::fprintf(stderr, "%s failed: %d\n", #call, int(status_));            \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

cublasHandle_t cublas;

/// The reference's float64 GEMM on the device: row-major C = op(A) op(B).
Matrix deviceMatmul(const Matrix &a, bool transposeA, const Matrix &b,
                    bool transposeB) {
  int64_t m = transposeA ? a.cols : a.rows, k = transposeA ? a.rows : a.cols;
  int64_t n = transposeB ? b.rows : b.cols;
  Matrix c(m, n);
  double *da, *db, *dc;
  CHECK_CUDA(cudaMalloc(&da, a.values.size() * 8));
  CHECK_CUDA(cudaMalloc(&db, b.values.size() * 8));
  CHECK_CUDA(cudaMalloc(&dc, c.values.size() * 8));
  CHECK_CUDA(cudaMemcpy(da, a.values.data(), a.values.size() * 8,
                        cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, b.values.data(), b.values.size() * 8,
                        cudaMemcpyHostToDevice));
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
  const double one = 1.0, zero = 0.0;
  CHECK_CUBLAS(cublasDgemm(cublas, transposeB ? CUBLAS_OP_T : CUBLAS_OP_N,
                           transposeA ? CUBLAS_OP_T : CUBLAS_OP_N, int(n),
                           int(m), int(k), &one, db, int(b.cols), da,
                           int(a.cols), &zero, dc, int(n)));
  CHECK_CUDA(cudaMemcpy(c.values.data(), dc, c.values.size() * 8,
                        cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(da));
  CHECK_CUDA(cudaFree(db));
  CHECK_CUDA(cudaFree(dc));
  return c;
}

struct Format {
  fmlp_dtype dtype;
  Storage storage;
  size_t bytes;
  const char *name;
};

Format parseFormat(const std::string &name) {
  if (name == "bf16")
    return {FMLP_BF16, Storage::BF16, 2, "bf16"};
  if (name == "f16")
    return {FMLP_F16, Storage::F16, 2, "f16"};
  if (name == "f32")
    return {FMLP_F32, Storage::F32, 4, "f32"};
  std::fprintf(stderr, "unknown dtype %s\n", name.c_str());
  std::exit(2);
}

/// Host bytes of `m` (or its transpose) in `format`; values are
/// representable, so each conversion is exact.
std::vector<unsigned char> encode(const Matrix &m, bool transpose,
                                  const Format &format) {
  int64_t rows = transpose ? m.cols : m.rows,
          cols = transpose ? m.rows : m.cols;
  std::vector<unsigned char> bytes(rows * cols * format.bytes);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      float v = static_cast<float>(transpose ? m(j, i) : m(i, j));
      unsigned char *out = &bytes[(i * cols + j) * format.bytes];
      if (format.dtype == FMLP_F32) {
        std::memcpy(out, &v, 4);
      } else if (format.dtype == FMLP_BF16) {
        __nv_bfloat16 h = __float2bfloat16_rn(v);
        std::memcpy(out, &h, 2);
      } else {
        __half h = __float2half_rn(v);
        std::memcpy(out, &h, 2);
      }
    }
  return bytes;
}

/// Whether the bundle stores its weights [in, out] (gate [D, H], as ONNX
/// and JAX exports do) rather than nn.Linear's [out, in] ([H, D]); with D
/// = H the shapes cannot tell, and [out, in] is assumed.
bool weightsInOut(fmlp::Bundle &bundle, int entry, int64_t D, int64_t H) {
  for (const fmlp_argument_info &a : bundle.arguments(entry))
    if (std::strcmp(a.name, "gate") == 0)
      return D != H && a.shape[0] == D && a.shape[1] == H;
  return false;
}

/// A device buffer's values as doubles, transposed from [rows, cols] when
/// asked (stored [out, in] weights against the math's [in, out]).
std::vector<double> decode(const void *device, int64_t rows, int64_t cols,
                           bool transpose, const Format &format) {
  std::vector<unsigned char> bytes(rows * cols * format.bytes);
  CHECK_CUDA(
      cudaMemcpy(bytes.data(), device, bytes.size(), cudaMemcpyDeviceToHost));
  std::vector<double> values(rows * cols);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const unsigned char *in = &bytes[(i * cols + j) * format.bytes];
      double v;
      if (format.dtype == FMLP_F32) {
        float f;
        std::memcpy(&f, in, 4);
        v = f;
      } else if (format.dtype == FMLP_BF16) {
        __nv_bfloat16 h;
        std::memcpy(&h, in, 2);
        v = __bfloat162float(h);
      } else {
        __half h;
        std::memcpy(&h, in, 2);
        v = __half2float(h);
      }
      values[transpose ? j * rows + i : i * cols + j] = v;
    }
  return values;
}

struct DeviceBuffer {
  void *data = nullptr;
  size_t bytes = 0;
  explicit DeviceBuffer(size_t bytes) : bytes(bytes) {
    CHECK_CUDA(cudaMalloc(&data, bytes ? bytes : 1));
  }
  DeviceBuffer(const std::vector<unsigned char> &host)
      : DeviceBuffer(host.size()) {
    CHECK_CUDA(
        cudaMemcpy(data, host.data(), host.size(), cudaMemcpyHostToDevice));
  }
  ~DeviceBuffer() { cudaFree(data); }
  /// 0xFF bytes: NaN in f32, bf16 and f16 alike.
  void poison() { CHECK_CUDA(cudaMemset(data, 0xFF, bytes)); }
};

/// The low-rank adapters an entry point may take: the argument's name (its
/// gradient is "d_" + name), and where lib/Numerics holds it, its exact
/// gradient and that gradient's bounds. Arguments are [out, in], the
/// transposes of the reference's matrices.
struct Adapter {
  const char *name;
  Matrix Inputs::*value;
  Matrix Exact::*gradient;
  Matrix Bounds::*bound, Bounds::*perChunk;
};
const Adapter kAdapters[] = {
    {"lora_a", &Inputs::loraA, &Exact::dLoraA, &Bounds::dLoraA,
     &Bounds::dLoraAChunk},
    {"gate_lora_b", &Inputs::gateLoraB, &Exact::dGateLoraB, &Bounds::dGateLoraB,
     &Bounds::dGateLoraBChunk},
    {"up_lora_b", &Inputs::upLoraB, &Exact::dUpLoraB, &Bounds::dUpLoraB,
     &Bounds::dUpLoraBChunk},
    {"down_lora_a", &Inputs::downLoraA, &Exact::dDownLoraA, &Bounds::dDownLoraA,
     &Bounds::dDownLoraAChunk},
    {"down_lora_b", &Inputs::downLoraB, &Exact::dDownLoraB, &Bounds::dDownLoraB,
     &Bounds::dDownLoraBChunk},
};

/// The adapters' ranks as the bundle declares them: R from lora_a [R, D],
/// Rd from down_lora_a [Rd, H]; 0 for an absent group.
void readAdapterRanks(fmlp::Bundle &bundle, BlockSpec &spec) {
  for (const fmlp_argument_info &a :
       bundle.arguments(bundle.entry("forward"))) {
    if (std::strcmp(a.name, "lora_a") == 0)
      spec.loraRank = a.shape[0];
    else if (std::strcmp(a.name, "down_lora_a") == 0)
      spec.downLoraRank = a.shape[0];
  }
}

int failures = 0;

void report(const char *dtype, int64_t d, int64_t h, int64_t t,
            const char *output, const Comparison &c, bool mustFail = false) {
  bool ok = mustFail ? !c.passed() : c.passed();
  if (!ok)
    ++failures;
  std::printf("%-5s D=%-5lld H=%-6lld T=%-6lld %-22s worst error/bound %9.3e "
              "non-finite %lld %s\n",
              dtype, (long long)d, (long long)h, (long long)t, output,
              c.worstRatio, (long long)c.nonFinite,
              mustFail ? (ok ? "control failed as it must" : "CONTROL PASSED")
                       : (ok ? "pass" : "FAIL"));
  std::fflush(stdout);
}

/// The float64 reference of a block: in full, or — when T x H is too large
/// for the host — at 16 sampled tokens (y, dx) and 16 sampled hidden units
/// (the weight gradients), through Reference.h's restrictions, which give
/// the full block's values and bounds there.
struct Reference {
  std::vector<int64_t> rows, units; // of T and H that are judged
  std::shared_ptr<const Exact> atTokens, atUnits;
  std::shared_ptr<const Bounds> tokenBounds, unitBounds;
};

std::vector<int64_t> spread(int64_t extent, int64_t count) {
  std::vector<int64_t> picked;
  for (int64_t i = 0; i < std::min(count, extent); ++i)
    picked.push_back(count >= extent ? i : i * (extent - 1) / (count - 1));
  return picked;
}

Reference makeReference(const BlockSpec &spec, const Inputs &in, bool sample) {
  Reference r;
  if (!sample) {
    auto exact = std::make_shared<Exact>(computeExact(spec, in, deviceMatmul));
    auto bounds =
        std::make_shared<Bounds>(computeBounds(spec, in, *exact, deviceMatmul));
    r.rows = spread(spec.tokens, spec.tokens);
    r.units = spread(spec.hidden, spec.hidden);
    r.atTokens = r.atUnits = exact;
    r.tokenBounds = r.unitBounds = bounds;
    return r;
  }
  r.rows = spread(spec.tokens, 16);
  r.units = spread(spec.hidden, 16);
  BlockSpec tokenSpec = spec, unitSpec = spec;
  tokenSpec.tokens = static_cast<int64_t>(r.rows.size());
  unitSpec.hidden = static_cast<int64_t>(r.units.size());
  Inputs tokenInputs = selectTokens(in, r.rows);
  Inputs unitInputs = selectHiddenUnits(in, r.units);
  auto atTokens = std::make_shared<Exact>(
      computeExact(tokenSpec, tokenInputs, deviceMatmul));
  r.tokenBounds = std::make_shared<Bounds>(
      computeBounds(tokenSpec, tokenInputs, *atTokens, deviceMatmul));
  auto atUnits =
      std::make_shared<Exact>(computeExact(unitSpec, unitInputs, deviceMatmul));
  r.unitBounds = std::make_shared<Bounds>(
      computeBounds(unitSpec, unitInputs, *atUnits, deviceMatmul));
  r.atTokens = atTokens;
  r.atUnits = atUnits;
  return r;
}

/// Rows `rows` of a row-major [rows x cols] array.
std::vector<double> pickRows(const std::vector<double> &m, int64_t cols,
                             const std::vector<int64_t> &rows) {
  std::vector<double> picked;
  for (int64_t r : rows)
    picked.insert(picked.end(), m.begin() + r * cols,
                  m.begin() + (r + 1) * cols);
  return picked;
}

/// Columns `columns` of a row-major [rows x cols] array.
std::vector<double> pickColumns(const std::vector<double> &m, int64_t rows,
                                int64_t cols,
                                const std::vector<int64_t> &columns) {
  std::vector<double> picked;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c : columns)
      picked.push_back(m[r * cols + c]);
  return picked;
}

/// Every argument of an entry point as a tensor, in the bundle's order:
/// the buffer named like it in `named` (inputs, outputs and the saved
/// activations, shared between forward and backward), else the entry's own
/// workspace, allocated here (poisoned) and kept in `scratch`. Shapes are
/// the manifest's, -1 rows being T.
std::vector<fmlp_tensor>
argumentsOf(fmlp::Bundle &bundle, int entry, int64_t T, const Format &format,
            const std::map<std::string, DeviceBuffer *> &named,
            std::vector<std::unique_ptr<DeviceBuffer>> &scratch) {
  std::vector<fmlp_tensor> tensors;
  for (const fmlp_argument_info &a : bundle.arguments(entry)) {
    std::vector<int64_t> shape;
    for (int d = 0; d < a.rank; ++d)
      shape.push_back(a.shape[d] < 0 ? T : a.shape[d]);
    int64_t elements = 1;
    for (int64_t extent : shape)
      elements *= extent;
    auto it = named.find(a.name);
    DeviceBuffer *buffer = it != named.end() ? it->second : nullptr;
    if (buffer && buffer->bytes < elements * format.bytes) {
      // D, H (or an adapter's rank) on the command line not the bundle's.
      std::fprintf(stderr,
                   "%s's argument %s takes %lld elements; the test made "
                   "%zu (D and H as the bundle's?)\n",
                   fmlp_entry_symbol(bundle.get(), entry), a.name,
                   (long long)elements, buffer->bytes / format.bytes);
      std::exit(2);
    }
    if (!buffer) {
      if (a.role != FMLP_ROLE_WORKSPACE) {
        std::fprintf(stderr,
                     "%s has argument %s, which the test does not "
                     "know\n",
                     fmlp_entry_symbol(bundle.get(), entry), a.name);
        std::exit(2);
      }
      scratch.push_back(
          std::make_unique<DeviceBuffer>(elements * format.bytes));
      scratch.back()->poison();
      buffer = scratch.back().get();
    }
    tensors.push_back(
        fmlp::denseTensor(T == 0 && a.shape[0] < 0 ? nullptr : buffer->data,
                          format.dtype, shape));
  }
  return tensors;
}

/// The token chunks a chunked entry point runs at T (1 when not chunked):
/// each adds one storage rounding to the weight gradients it sums.
int64_t chunksAt(fmlp::Bundle &bundle, int entry, int64_t T) {
  int64_t chunk = fmlp_entry_chunk_tokens(bundle.get(), entry);
  return chunk > 0 ? (T + chunk - 1) / chunk : 1;
}

Contraction contraction = Contraction::Ieee;
bool tf32Truncated = false;
// The bound's longest tf32x3 group (BlockSpec::tf32x3GroupK8s): the
// default covers every kernel fmlp builds; --tf32x3-group-k8s for A/B ones.
int64_t tf32x3GroupK8s = BlockSpec{}.tf32x3GroupK8s;
/// --repeat=N: the eager forward, forward_nograd and backward N more times.
int repeats = 0;

void runTokens(fmlp::Bundle &bundle, const Format &format, int64_t D, int64_t H,
               int64_t T, uint64_t seed) {
  BlockSpec spec{T, D, H};
  spec.storage = format.storage;
  spec.contraction = contraction;
  spec.tf32Truncated = tf32Truncated;
  spec.tf32x3GroupK8s = tf32x3GroupK8s;
  readAdapterRanks(bundle, spec);
  bool adapters = spec.loraRank > 0 || spec.downLoraRank > 0;
  const char *n = format.name;
  // Sampled where the full reference's T x H matrices outgrow the host;
  // never with adapters (selectHiddenUnits refuses them).
  bool sample = T * H > (int64_t(1) << 28);
  if (sample && adapters) {
    ++failures;
    std::printf("%-5s D=%-5lld H=%-6lld T=%-6lld FAIL: not judged: a block "
                "with adapters is not sampled, and T x H is too large for "
                "the full reference\n",
                n, (long long)D, (long long)H, (long long)T);
    return;
  }
  Inputs in = drawInputs(spec, seed);
  Reference ref = makeReference(spec, in, sample);
  const Exact &atTokens = *ref.atTokens, &atUnits = *ref.atUnits;
  const Bounds &tokenBounds = *ref.tokenBounds, &unitBounds = *ref.unitBounds;

  int forward = bundle.entry("forward"), backward = bundle.entry("backward"),
      nograd = bundle.entry("forward_nograd");
  // Weights in the layout the bundle declares them: nn.Linear's [out, in]
  // (the math's [in, out] transposed), or [in, out] as ONNX and JAX store
  // them; their gradients alike.
  bool outIn = !weightsInOut(bundle, forward, D, H);
  DeviceBuffer x(encode(in.x, false, format)), dy(encode(in.dy, false, format));
  DeviceBuffer wg(encode(in.gate, outIn, format)),
      wu(encode(in.up, outIn, format)), wd(encode(in.down, outIn, format));
  // A weight gradient of the math's [rows, cols] as stored.
  auto weightGradient = [&](DeviceBuffer &b, int64_t rows, int64_t cols) {
    return outIn ? decode(b.data, cols, rows, true, format)
                 : decode(b.data, rows, cols, false, format);
  };
  size_t e = format.bytes;
  DeviceBuffer y(T * D * e), yNograd(T * D * e), dx(T * D * e);
  DeviceBuffer dWg(H * D * e), dWu(H * D * e), dWd(D * H * e);
  // The saved activations (save=agu: A, G, U; gu: G, U; x: none), as wide
  // as the forward's argument says.
  int64_t savedCols = 0;
  for (const fmlp_argument_info &a : bundle.arguments(forward))
    if (std::strcmp(a.name, "saved") == 0)
      savedCols = a.shape[1];
  bool hasSaved = savedCols > 0;
  DeviceBuffer saved(T * savedCols * e);
  for (DeviceBuffer *b : {&y, &yNograd, &dx, &dWg, &dWu, &dWd, &saved})
    b->poison();
  // The adapters the block has ([out, in]) and their gradients (poisoned),
  // by argument name.
  std::map<std::string, std::unique_ptr<DeviceBuffer>> adapterInputs,
      adapterGradients;
  for (const Adapter &adapter : kAdapters) {
    const Matrix &value = in.*adapter.value;
    if (value.values.empty())
      continue;
    adapterInputs[adapter.name] =
        std::make_unique<DeviceBuffer>(encode(value, true, format));
    auto gradient = std::make_unique<DeviceBuffer>(value.values.size() * e);
    gradient->poison();
    adapterGradients[std::string("d_") + adapter.name] = std::move(gradient);
  }

  std::map<std::string, DeviceBuffer *> named = {
      {"x", &x},      {"gate", &wg},   {"up", &wu}, {"down", &wd},
      {"dy", &dy},    {"y", &y},       {"dx", &dx}, {"d_gate", &dWg},
      {"d_up", &dWu}, {"d_down", &dWd}};
  if (hasSaved)
    named["saved"] = &saved;
  for (auto *buffers : {&adapterInputs, &adapterGradients})
    for (auto &[name, buffer] : *buffers)
      named[name] = buffer.get();
  std::map<std::string, DeviceBuffer *> namedNograd = named;
  namedNograd["y"] = &yNograd;
  std::vector<std::unique_ptr<DeviceBuffer>> scratch;
  std::vector<fmlp_tensor> forwardArgs =
      argumentsOf(bundle, forward, T, format, named, scratch);
  std::vector<fmlp_tensor> nogradArgs =
      argumentsOf(bundle, nograd, T, format, namedNograd, scratch);
  std::vector<fmlp_tensor> backwardArgs =
      argumentsOf(bundle, backward, T, format, named, scratch);
  bundle.launch(forward, forwardArgs);
  bundle.launch(nograd, nogradArgs);
  bundle.launch(backward, backwardArgs);
  CHECK_CUDA(cudaDeviceSynchronize());

  // y, dx and the weight gradients as they now are on the device (at the
  // reference's tokens and hidden units); weight gradients summed over
  // `chunks` token chunks, each stored: one storage rounding per chunk.
  int64_t chunks = chunksAt(bundle, backward, T);
  auto tokenRows = [&](DeviceBuffer &b) {
    return pickRows(decode(b.data, T, D, false, format), D, ref.rows);
  };
  // dWg, dWu as [D, H] (math layout): the units' columns; dWd as [H, D]:
  // their rows.
  auto dDownAtUnits = [&] {
    return pickRows(weightGradient(dWd, H, D), D, ref.units);
  };
  // Every output of the forward and backward against one reference (its
  // values and bounds at the judged tokens and hidden units); the adapter
  // gradients that reference has, in full (a block with adapters is never
  // sampled), [out, in] on the device.
  struct Judged {
    const Exact &atTokens, &atUnits;
    const Bounds &tokenBounds, &unitBounds;
  };
  auto judge = [&](const std::string &prefix, const std::string &suffix,
                   const Judged &r, bool mustFail) {
    auto label = [&](const std::string &output) {
      return prefix + output + suffix;
    };
    report(n, D, H, T, label("y").c_str(),
           compare(tokenRows(y), r.atTokens.y, r.tokenBounds.y), mustFail);
    report(n, D, H, T, label("dx").c_str(),
           compare(tokenRows(dx), r.atTokens.dx, r.tokenBounds.dx), mustFail);
    report(n, D, H, T, label("d_gate").c_str(),
           compare(pickColumns(weightGradient(dWg, D, H), D, H, ref.units),
                   r.atUnits.dGate, r.unitBounds.dGate,
                   &r.unitBounds.dGateChunk, chunks),
           mustFail);
    report(n, D, H, T, label("d_up").c_str(),
           compare(pickColumns(weightGradient(dWu, D, H), D, H, ref.units),
                   r.atUnits.dUp, r.unitBounds.dUp, &r.unitBounds.dUpChunk,
                   chunks),
           mustFail);
    report(n, D, H, T, label("d_down").c_str(),
           compare(dDownAtUnits(), r.atUnits.dDown, r.unitBounds.dDown,
                   &r.unitBounds.dDownChunk, chunks),
           mustFail);
    for (const Adapter &adapter : kAdapters) {
      const Matrix &exact = r.atUnits.*adapter.gradient;
      if (exact.values.empty())
        continue;
      std::string name = std::string("d_") + adapter.name;
      report(n, D, H, T, label(name).c_str(),
             compare(decode(adapterGradients.at(name)->data, exact.cols,
                            exact.rows, true, format),
                     exact, r.unitBounds.*adapter.bound,
                     &(r.unitBounds.*adapter.perChunk), chunks),
             mustFail);
    }
  };
  const Judged reference{atTokens, atUnits, tokenBounds, unitBounds};
  if (sample)
    std::printf("(judged at %zu tokens and %zu hidden units: the full "
                "float64 reference would not fit)\n",
                ref.rows.size(), ref.units.size());
  if (chunks > 1)
    std::printf("(backward in %lld chunks of %lld tokens)\n", (long long)chunks,
                (long long)fmlp_entry_chunk_tokens(bundle.get(), backward));
  judge("", " (forward)", reference, /*mustFail=*/false);
  report(n, D, H, T, "y (forward_nograd)",
         compare(tokenRows(yNograd), atTokens.y, tokenBounds.y));
  std::vector<double> yv = tokenRows(y);

  // Controls: each must fail.
  std::vector<double> moved = yv;
  moved[0] = atTokens.y.values[0] + 2 * tokenBounds.y.values[0];
  report(n, D, H, T, "control: y moved 2x",
         compare(moved, atTokens.y, tokenBounds.y), /*mustFail=*/true);
  // y judged against the block's output for other inputs of the same
  // distribution. (Judging it as another activation's output discriminates
  // at D = 1024 but not at D = 4096, where the worst-case bound of a
  // contraction over H = 11008 exceeds silu's difference from gelu_tanh.)
  BlockSpec tokenSpec = spec;
  tokenSpec.tokens = static_cast<int64_t>(ref.rows.size());
  Exact other = computeExact(
      tokenSpec, selectTokens(drawInputs(spec, seed + 1000003), ref.rows),
      deviceMatmul);
  // With adapters it is printed, not counted: Z and Zd are stored in the
  // block's 16-bit type before their R terms join K1's and K2's sums, and
  // the worst case of those roundings, summed over R and then H, makes y's
  // bound exceed |y| (bf16, R = 32, Rd = 16: 6x at (1024, 2816), 65x at
  // (4096, 11008)), as tf32's does at (4096, 11008) (shapes.sh). The
  // adapters' own control below is what fails there.
  Comparison otherInputs = compare(yv, other.y, tokenBounds.y);
  if (adapters)
    std::printf("%-5s D=%-5lld H=%-6lld T=%-6lld %-22s worst error/bound "
                "%9.3e (not counted: a LoRA block's y bound exceeds |y|)\n",
                n, (long long)D, (long long)H, (long long)T,
                "other inputs", otherInputs.worstRatio);
  else
    report(n, D, H, T, "control: other inputs", otherInputs,
           /*mustFail=*/true);
  // A chunked backward judged as if only its last chunk had been summed
  // (a last chunk that overwrote instead of adding, or a fill after the
  // chunks): the exact d_down of those tokens alone.
  if (chunks > 1 && !sample) {
    int64_t chunk = fmlp_entry_chunk_tokens(bundle.get(), backward);
    std::vector<int64_t> lastChunk;
    for (int64_t t = (chunks - 1) * chunk; t < T; ++t)
      lastChunk.push_back(t);
    BlockSpec lastSpec = spec;
    lastSpec.tokens = static_cast<int64_t>(lastChunk.size());
    Exact last =
        computeExact(lastSpec, selectTokens(in, lastChunk), deviceMatmul);
    report(n, D, H, T, "control: last chunk",
           compare(dDownAtUnits(), last.dDown, unitBounds.dDown,
                   &unitBounds.dDownChunk, chunks),
           /*mustFail=*/true);
  }
  // A block with adapters judged as if it had none (an implementation that
  // left the adapter terms out): every output the block without them has,
  // by that block's values and bounds (CheckOptions::judgeOther on the
  // CPU: NumericsTest's AdaptersLeftOutFail). The adapter terms weigh as
  // much as the base projections' (drawInputs), so each must fail.
  if (adapters) {
    BlockSpec plainSpec = spec;
    plainSpec.loraRank = plainSpec.downLoraRank = 0;
    Inputs plainInputs = in;
    for (const Adapter &adapter : kAdapters)
      plainInputs.*adapter.value = Matrix();
    Exact plain = computeExact(plainSpec, plainInputs, deviceMatmul);
    Bounds plainBounds =
        computeBounds(plainSpec, plainInputs, plain, deviceMatmul);
    judge("control: ", " (no adapters)",
          {plain, plain, plainBounds, plainBounds}, /*mustFail=*/true);
    report(n, D, H, T, "control: y_nograd (no adapters)",
           compare(tokenRows(yNograd), plain.y, plainBounds.y),
           /*mustFail=*/true);
  }
  // Every kernel computes each element once in a fixed order (split-K's
  // last block adds the slices' partials in slice order, whatever order
  // they arrived in): the replay below must give y and dx bit for bit
  // (at sampled T, where the host copies would be too large, not checked).
  auto bytesOf = [](const DeviceBuffer &b) {
    std::vector<unsigned char> host(b.bytes);
    CHECK_CUDA(cudaMemcpy(host.data(), b.data, b.bytes, cudaMemcpyDeviceToHost));
    return host;
  };
  std::vector<unsigned char> eagerY, eagerDx;
  if (!sample) {
    eagerY = bytesOf(y);
    eagerDx = bytesOf(dx);
  }
  // For --repeat: every output of the first eager run, as stored.
  std::vector<std::pair<std::string, DeviceBuffer *>> outputs = {
      {"y", &y},        {"y_nograd", &yNograd}, {"dx", &dx},
      {"d_gate", &dWg}, {"d_up", &dWu},         {"d_down", &dWd}};
  for (auto &[name, gradient] : adapterGradients)
    outputs.emplace_back(name, gradient.get());
  std::vector<std::vector<unsigned char>> eagerOutputs;
  if (repeats)
    for (auto &[name, buffer] : outputs)
      eagerOutputs.push_back(bytesOf(*buffer));
  // The same forward and backward captured in a CUDA graph and replayed
  // (launches allocate nothing and never synchronize, so they capture; a
  // chunked entry point's chunk loop is host launches, captured as such).
  {
    for (DeviceBuffer *b : {&y, &dx, &dWg, &dWu, &dWd, &saved})
      b->poison();
    for (auto &[name, gradient] : adapterGradients)
      gradient->poison();
    for (std::unique_ptr<DeviceBuffer> &workspace : scratch)
      workspace->poison();
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreate(&stream));
    cudaGraph_t graph;
    CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    bundle.launch(forward, forwardArgs, stream);
    bundle.launch(backward, backwardArgs, stream);
    CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    judge("", " (graph)", reference, /*mustFail=*/false);
    if (!sample) {
      bool same = bytesOf(y) == eagerY && bytesOf(dx) == eagerDx;
      if (!same)
        ++failures;
      std::printf("%-5s D=%-5lld H=%-6lld T=%-6lld %-22s %s\n", n,
                  (long long)D, (long long)H, (long long)T, "y, dx (graph)",
                  same ? "bitwise as eager" : "FAIL: not bitwise as eager");
    }
    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
    CHECK_CUDA(cudaStreamDestroy(stream));
  }
  // The eager run again, outputs poisoned before each: a race (a stage
  // overwritten before every thread has read it, a kernel reading what
  // another still writes) shows as bits that differ from run to run well
  // before it breaks a bound. Every output must be the first run's bit for
  // bit (also at sampled T: all of it is compared, on the host).
  if (repeats) {
    int differing = 0;
    std::set<std::string> which;
    for (int r = 0; r < repeats; ++r) {
      for (auto &[name, buffer] : outputs)
        buffer->poison();
      saved.poison();
      for (std::unique_ptr<DeviceBuffer> &workspace : scratch)
        workspace->poison();
      bundle.launch(forward, forwardArgs);
      bundle.launch(nograd, nogradArgs);
      bundle.launch(backward, backwardArgs);
      CHECK_CUDA(cudaDeviceSynchronize());
      bool same = true;
      for (size_t i = 0; i < outputs.size(); ++i)
        if (bytesOf(*outputs[i].second) != eagerOutputs[i]) {
          same = false;
          which.insert(outputs[i].first);
        }
      differing += !same;
    }
    if (differing)
      ++failures;
    std::string label = "all (" + std::to_string(repeats) + " repeats)";
    std::string names;
    for (const std::string &name : which)
      names += (names.empty() ? "" : ", ") + name;
    std::string outcome = differing ? "FAIL: " + std::to_string(differing) +
                                          " of " + std::to_string(repeats) +
                                          " differ (" + names + ")"
                                    : "bitwise as the first";
    std::printf("%-5s D=%-5lld H=%-6lld T=%-6lld %-22s %s\n", n, (long long)D,
                (long long)H, (long long)T, label.c_str(), outcome.c_str());
    // Control: y as the last repeat left it with one byte changed (one
    // element off by a bit pattern) must not compare equal to the first
    // run's: the comparison sees a single element.
    unsigned char first;
    CHECK_CUDA(cudaMemcpy(&first, y.data, 1, cudaMemcpyDeviceToHost));
    first ^= 0x01;
    CHECK_CUDA(cudaMemcpy(y.data, &first, 1, cudaMemcpyHostToDevice));
    bool caught = bytesOf(y) != eagerOutputs[0];
    if (!caught)
      ++failures;
    std::printf("%-5s D=%-5lld H=%-6lld T=%-6lld %-22s %s\n", n, (long long)D,
                (long long)H, (long long)T, "control: one byte off",
                caught ? "failed as it must" : "DID NOT FAIL");
  }

  if (!hasSaved) {
    std::printf("%-5s D=%-5lld H=%-6lld T=%-6lld %-22s %s\n", n, (long long)D,
                (long long)H, (long long)T, "control: 2nd backward",
                "not applicable: no saved activations to consume");
    return;
  }
  fmlp_status again =
      fmlp_launch(bundle.get(), backward, backwardArgs.data(),
                  static_cast<int>(backwardArgs.size()), nullptr);
  bool refused = again == FMLP_ERROR_SAVED_CONSUMED;
  if (!refused)
    ++failures;
  std::printf("%-5s D=%-5lld H=%-6lld T=%-6lld %-22s %s\n", n, (long long)D,
              (long long)H, (long long)T, "control: 2nd backward",
              refused ? "refused as it must" : "NOT REFUSED");
}

/// T = 0 (an expert no token was routed to): the backward's weight and
/// adapter gradients, sums over no token, must be exactly 0 (the bound is
/// 0); they are poisoned (NaN) before, so a launch that leaves them fails.
void runEmptyBatch(fmlp::Bundle &bundle, const Format &format, int64_t D,
                   int64_t H) {
  size_t e = format.bytes;
  DeviceBuffer wg(H * D * e), wu(H * D * e), wd(D * H * e);
  DeviceBuffer dWg(H * D * e), dWu(H * D * e), dWd(D * H * e);
  // Token arguments are null at T = 0; the buffer only names them.
  DeviceBuffer none(0);
  for (DeviceBuffer *b : {&wg, &wu, &wd})
    CHECK_CUDA(cudaMemset(b->data, 0, b->bytes));
  int backward = bundle.entry("backward");
  std::map<std::string, DeviceBuffer *> named = {
      {"x", &none},     {"gate", &wg},   {"up", &wu},      {"down", &wd},
      {"dy", &none},    {"dx", &none},   {"d_gate", &dWg}, {"d_up", &dWu},
      {"d_down", &dWd}, {"saved", &none}};
  std::vector<std::pair<std::string, DeviceBuffer *>> gradients = {
      {"d_gate", &dWg}, {"d_up", &dWu}, {"d_down", &dWd}};
  // The adapters the backward takes (zero, as the weights: nothing reads
  // them over no token) and their gradients, as large as it declares them.
  std::vector<std::unique_ptr<DeviceBuffer>> adapterBuffers;
  for (const fmlp_argument_info &a : bundle.arguments(backward))
    for (const Adapter &adapter : kAdapters) {
      if (std::strcmp(a.name, adapter.name) != 0)
        continue;
      size_t bytes = a.shape[0] * a.shape[1] * e;
      adapterBuffers.push_back(std::make_unique<DeviceBuffer>(bytes));
      CHECK_CUDA(cudaMemset(adapterBuffers.back()->data, 0, bytes));
      named[adapter.name] = adapterBuffers.back().get();
      adapterBuffers.push_back(std::make_unique<DeviceBuffer>(bytes));
      std::string gradient = std::string("d_") + adapter.name;
      named[gradient] = adapterBuffers.back().get();
      gradients.emplace_back(gradient, adapterBuffers.back().get());
    }
  auto nonZero = [&](DeviceBuffer &b) {
    std::vector<double> v = decode(b.data, 1, b.bytes / e, false, format);
    return std::count_if(v.begin(), v.end(), [](double x) { return x != 0; });
  };
  for (auto &[name, gradient] : gradients)
    gradient->poison();
  // Control: as poisoned, every element fails.
  bool controlFails = nonZero(dWd) == static_cast<long>(dWd.bytes / e);
  std::vector<std::unique_ptr<DeviceBuffer>> scratch;
  bundle.launch(backward,
                argumentsOf(bundle, backward, 0, format, named, scratch));
  CHECK_CUDA(cudaDeviceSynchronize());
  for (auto &[name, gradient] : gradients) {
    long bad = nonZero(*gradient);
    if (bad)
      ++failures;
    std::printf("%-5s D=%-5lld H=%-6lld T=0      %-22s %ld element(s) not 0 "
                "%s\n",
                format.name, (long long)D, (long long)H,
                (name + " (T = 0)").c_str(), bad, bad ? "FAIL" : "pass");
  }
  if (!controlFails)
    ++failures;
  std::printf("%-5s D=%-5lld H=%-6lld T=0      %-22s %s\n", format.name,
              (long long)D, (long long)H, "control: poisoned",
              controlFails ? "failed as it must" : "DID NOT FAIL");
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 6) {
    std::fprintf(stderr,
                 "usage: %s BUNDLE DTYPE D H T... [--seed=N] "
                 "[--contraction=ieee|highest|tf32|tf32x3] "
                 "[--tf32-truncated] [--tf32x3-group-k8s=1|2|4] "
                 "[--repeat=N]\n",
                 argv[0]);
    return 2;
  }
  std::string bundlePath = argv[1];
  Format format = parseFormat(argv[2]);
  int64_t D = std::atoll(argv[3]), H = std::atoll(argv[4]);
  std::vector<int64_t> tokens;
  uint64_t seed = 1;
  for (int i = 5; i < argc; ++i) {
    if (std::strncmp(argv[i], "--seed=", 7) == 0)
      seed = std::strtoull(argv[i] + 7, nullptr, 10);
    else if (std::strcmp(argv[i], "--tf32-truncated") == 0)
      tf32Truncated = true;
    else if (std::strncmp(argv[i], "--tf32x3-group-k8s=", 19) == 0) {
      tf32x3GroupK8s = std::atoll(argv[i] + 19);
      if (tf32x3GroupK8s != 1 && tf32x3GroupK8s != 2 && tf32x3GroupK8s != 4) {
        std::fprintf(stderr, "--tf32x3-group-k8s takes 1, 2 or 4\n");
        return 2;
      }
    } else if (std::strncmp(argv[i], "--repeat=", 9) == 0) {
      repeats = std::atoi(argv[i] + 9);
      if (repeats < 1) {
        std::fprintf(stderr, "--repeat takes a count of at least 1\n");
        return 2;
      }
    } else if (std::strncmp(argv[i], "--contraction=", 14) == 0) {
      std::string name = argv[i] + 14;
      if (name == "tf32")
        contraction = Contraction::Tf32;
      else if (name == "tf32x3")
        contraction = Contraction::Tf32x3;
      else if (name != "ieee" && name != "highest") {
        std::fprintf(stderr, "unknown contraction %s\n", name.c_str());
        return 2;
      }
      if (contraction != Contraction::Ieee && format.storage != Storage::F32) {
        std::fprintf(stderr, "tf32 contractions take f32 storage\n");
        return 2;
      }
    } else
      tokens.push_back(std::atoll(argv[i]));
  }
  CHECK_CUDA(cudaFree(nullptr)); // the primary context, made current
  CHECK_CUBLAS(cublasCreate(&cublas));
  try {
    fmlp::Bundle bundle(bundlePath);
    bundle.load();
    for (int64_t t : tokens)
      if (t == 0)
        runEmptyBatch(bundle, format, D, H);
      else
        runTokens(bundle, format, D, H, t, seed + t);
  } catch (const fmlp::RuntimeError &error) {
    std::fprintf(stderr, "fmlp runtime error: %s\n", error.what());
    return 2;
  }
  cublasDestroy(cublas);
  std::printf("%s D=%lld H=%lld: %d failure(s)\n", format.name, (long long)D,
              (long long)H, failures);
  return failures ? 1 : 0;
}
