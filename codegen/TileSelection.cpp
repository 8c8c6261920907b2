//===- TileSelection.cpp - Tile and stage choice per kernel ---------------===//

#include "codegen/TileSelection.h"

#include "codegen/CheckedOption.h"
#include "codegen/KernelBuilder.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::fmlp;

namespace {
// The hidden knobs' accepted values (CheckedOption.h).
struct RegisterCap {
  static bool accepts(int n) { return n >= 64 && n <= 255; }
  static constexpr const char *expected = "64 to 255";
};
struct Tf32x3GroupK8s {
  static bool accepts(int n) { return n == 0 || n == 1 || n == 2 || n == 4; }
  static constexpr const char *expected = "0, 1, 2 or 4";
};
struct SmallTokensRange {
  static bool accepts(int n) { return n == 16 || n == 32 || n == 64; }
  static constexpr const char *expected = "16, 32 or 64";
};
struct WgmmaWidth {
  static bool accepts(int n) {
    return n >= 0 && n <= kWgmmaMaxColumns && n % kWgmmaOutputBox == 0;
  }
  static constexpr const char *expected = "0, 64, 128, 192 or 256";
};
struct RingStages {
  static bool accepts(int n) { return n == 0 || (n >= 2 && n <= 6); }
  static constexpr const char *expected = "0 or 2 to 6";
};
struct TileKBytes {
  static bool accepts(int n) {
    return n == 0 || llvm::is_contained(kMmaSyncTileKBytes, n);
  }
  static constexpr const char *expected = "0, 64 or 128";
};
struct BlocksPerMultiprocessor {
  static bool accepts(int n) { return n == 1 || n == 2; }
  static constexpr const char *expected = "1 or 2";
};
} // namespace

// For A/B runs on a GPU (bench/compare_bundles.py): the small_tokens
// kernels' register cap, recorded in their config like every choice here.
static llvm::cl::opt<int, false, CheckedIntParser<RegisterCap>>
    smallTokensMaxRegisters(
        "fmlp-small-tokens-max-registers", llvm::cl::Hidden,
        llvm::cl::init(kSmallTokensMaxRegisters),
        llvm::cl::desc("small_tokens kernels: the register cap per thread"));

// For A/B runs on a GPU (bench/compare_bundles.py): the largest T the
// small_tokens kernels serve (16, the measured choice, 32 or 64; the rule
// adds 32 where its model says, bench/NOTES.md items 55 and 100).
static llvm::cl::opt<int, false, CheckedIntParser<SmallTokensRange>>
    smallTokensMax("fmlp-small-tokens-max", llvm::cl::Hidden,
                   llvm::cl::init(kSmallTokens),
                   llvm::cl::desc("small_tokens kernels: the largest T they "
                                  "serve (16, 32 or 64)"));

// For A/B runs on a GPU (bench/compare_bundles.py): the columns of N a
// small_tokens block of 16 tokens takes, where N divides (with 32, 16 warps
// a block), for kernels of one accumulator (K2) and of two (K1).
namespace {
struct SmallTokensColumns {
  static bool accepts(int n) { return n == 16 || n == 32; }
  static constexpr const char *expected = "16 or 32";
};
} // namespace
static llvm::cl::opt<int, false, CheckedIntParser<SmallTokensColumns>>
    smallTokensDownColumns(
        "fmlp-small-tokens-down-columns", llvm::cl::Hidden,
        llvm::cl::init(kSmallTokensTileN),
        llvm::cl::desc("small_tokens kernels of one accumulator: the "
                       "columns of N a block takes (16 or 32)"));
static llvm::cl::opt<int, false, CheckedIntParser<SmallTokensColumns>>
    smallTokensGateUpColumns(
        "fmlp-small-tokens-gate-up-columns", llvm::cl::Hidden,
        llvm::cl::init(kSmallTokensTileN),
        llvm::cl::desc("small_tokens kernels of two accumulators: the "
                       "columns of N a block takes (16 or 32)"));

// For A/B runs on a GPU (bench/compare_bundles.py): a fixed WGMMA tile
// width per accumulator instead of the rule below (0), e.g. narrower tiles
// for more blocks at a few hundred tokens. Kernels of two accumulators
// take at most half the widest WGMMA.
static llvm::cl::opt<int, false, CheckedIntParser<WgmmaWidth>>
    forcedWgmmaTileN(
        "fmlp-wgmma-tile-n", llvm::cl::Hidden, llvm::cl::init(0),
        llvm::cl::desc("WGMMA kernels: the tile width per accumulator, a "
                       "multiple of 64 up to 256, at most 128 where a kernel "
                       "has two accumulators (0: the rule)"));

// For A/B runs on a GPU (bench/compare_bundles.py): fp32 operands
// contracted as tf32 take WGMMA on sm_90a where both are K-major (the rule),
// or mma_sync as they did before it (false).
static llvm::cl::opt<bool> tf32Wgmma(
    "fmlp-tf32-wgmma", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("sm_90a: fp32 operands contracted as tf32 take WGMMA "
                   "where both are K-major (else mma_sync)"));

// For A/B runs on a GPU: fp32 operands contracted as tf32x3 (and
// highest's products on tensor cores) take WGMMA on sm_90a, their stages
// split into high and low parts by the producer (WgmmaGemm.cpp; the rule),
// or mma_sync as before (false). Judged and timed on the H100 in
// bench/NOTES.md item 76: the training step 0.71-0.73x mma_sync's time.
static llvm::cl::opt<bool> tf32x3Wgmma(
    "fmlp-tf32x3-wgmma", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("sm_90a: fp32 operands contracted as tf32x3 or highest "
                   "take WGMMA (else mma_sync)"));

// For A/B runs: tf32x3's groups of k8 steps forced on every WGMMA kernel
// (highest's no longer than its bound allows); 0 keeps the rule
// (TileSelection.h).
static llvm::cl::opt<int, false, CheckedIntParser<Tf32x3GroupK8s>>
    forcedTf32x3GroupK8s(
        "fmlp-tf32x3-group-k8s", llvm::cl::Hidden, llvm::cl::init(0),
        llvm::cl::desc("sm_90a: the k8 steps tf32x3's WGMMA kernels sum on "
                       "the tensor core before each fp32 add: 1, 2 or 4 for "
                       "every kernel, 0 by the rule (4; highest's 2 over "
                       "a static K, 1 over T)"));

// tf32's rounded weights read as stored and rounded in the stages
// (KernelConfig::roundsInStages) by the WGMMA token variants serving T up
// to this many tokens (768: measured on an H100, bench/NOTES.md items 85
// and 87, the no-grad forward 0.36-0.87x the time of reading the copies at
// T <= 512 and 0.88-0.92x at T = 513 .. 768 at both Llama shapes; about
// 1.0x at 896 and 1.02x at 1024; with every kernel rounding, 1.24x at
// 2048 and 1.26x at 8192 (one loop), where the wide tiles are bound by
// shared memory's bandwidth, of which the producer's pass over each stage
// takes a share); 0: none (every kernel
// reads the rounded copies); -1: every T, the kernel_config too (no copy
// is made). For A/B runs.
// tf32: the backward's weights read as stored and transposed in the
// landing slots (KernelConfig::transposesInStages) by the WGMMA token
// variants serving T up to this many tokens (512: measured on an H100,
// bench/NOTES.md items 86 and 88, the training step at (4096, 11008)
// 0.67-0.82x the time of reading the K-major copies at T <= 256, 0.92x at
// 300, 0.93x at 384, 1.00-1.02x at 512, 1.07x at 1024; 0.90-0.93x at
// (1024, 2816), T = 300 .. 512); 0: none, -1: every T, the kernel_config
// too (1.12x at T = 4096). For A/B runs.
static llvm::cl::opt<int64_t> transposeInStagesMaxTokens(
    "fmlp-transpose-in-stages-max-tokens", llvm::cl::Hidden,
    llvm::cl::init(512),
    llvm::cl::desc("sm_90a, fp32: the largest T whose WGMMA kernels transpose "
                   "the weights in their stages, not read K-major copies "
                   "(0: none, -1: every T)"));

static llvm::cl::opt<int64_t> tf32RoundInStagesMaxTokens(
    "fmlp-tf32-round-in-stages-max-tokens", llvm::cl::Hidden,
    llvm::cl::init(768),
    llvm::cl::desc("sm_90a, tf32: the largest T whose WGMMA kernels round "
                   "the weights in their stages, not from rounded copies "
                   "(0: none, -1: every T)"));

// For A/B runs on a GPU: the mma_sync kernels' ring depth (at most what
// fits the chip's shared memory) and k-tile (rows of 64 or 128 bytes)
// instead of the rule's (0).
static llvm::cl::opt<int, false, CheckedIntParser<RingStages>>
    forcedMmaSyncStages(
        "fmlp-mma-sync-stages", llvm::cl::Hidden, llvm::cl::init(0),
        llvm::cl::desc("mma_sync kernels: the ring's stages (0: the rule)"));
static llvm::cl::opt<int, false, CheckedIntParser<TileKBytes>>
    forcedMmaSyncTileKBytes(
        "fmlp-mma-sync-tile-k-bytes", llvm::cl::Hidden, llvm::cl::init(0),
        llvm::cl::desc("mma_sync kernels: the k-tile's bytes a row, 64 or "
                       "128 (0: the rule)"));
// For A/B runs on a GPU (issue 24; bench/NOTES.md items 63 and 104: the
// 16-bit mma_sync kernels wait on latency, and K1's and K3's epilogues
// leave the tensor cores idle): two blocks a multiprocessor, each of 4
// warps on 128 columns (the same warp tiles of 64 x 64, 255 registers a
// thread) within half the shared memory, so that one block's barriers,
// pipeline fill and epilogue run beside the other's MMAs. (Item 94's two
// blocks of 8 warps on 64 x 32 warp tiles loaded twice the ldmatrix a
// MMA and were slower.) tf32x3's kernels keep one. On the H100, K1 and K3
// at 1.06-1.14x the speed of one block (item 105); with each slot's
// release fenced for the async proxy, correct (item 106: without the
// fence, 20 of 20 eager repeats differed), but slower than one block whose
// epilogue is staged in the ring (which 4-warp blocks' is not) on 10 of
// 12 kernels: off.
static llvm::cl::opt<int, false, CheckedIntParser<BlocksPerMultiprocessor>>
    mmaSyncBlocksPerMultiprocessor(
        "fmlp-mma-sync-blocks-per-multiprocessor", llvm::cl::Hidden,
        llvm::cl::init(1),
        llvm::cl::desc("mma_sync kernels: resident blocks a multiprocessor, "
                       "1 or 2 (2: 4 warps on 128 columns)"));

// The mma_sync kernels of one block a multiprocessor take 192-column tiles
// (8 warps of 64 x 48) over a static grid where they cut its busiest
// multiprocessor's waves (staticGridTileN: the weight gradients at D =
// 1024, H = 2816 on 132 or 170 multiprocessors, whose 256-column grids of
// 88 and 176 blocks leave part of their last wave idle). On an H100 (bf16,
// T = 8192) they took those two kernels from 0.45x cuBLAS's speed to
// 0.54-0.55x (bench/NOTES.md item 108); off for A/B runs.
static llvm::cl::opt<bool> mmaSyncGridTiles(
    "fmlp-mma-sync-grid-tiles", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("mma_sync kernels over a static grid: 192-column tiles "
                   "where they cut its waves"));

// For A/B runs on a GPU: the mma_sync kernels stage their operands by
// cp.async on every chip (off), not by TMA where the rule takes it.
static llvm::cl::opt<bool> mmaSyncTma(
    "fmlp-mma-sync-tma", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("mma_sync kernels: stage 16-bit operands of 128-byte "
                   "k-tile rows by TMA on chips that have it"));

namespace {
constexpr int64_t kMaxStages = 6;
/// Split-K: the fewest k-tiles of 64 a slice contracts, the most waves;
/// the widest tile and the most width x slices whose last slice adds the
/// partials without spilling (ptxas: 192 wide in 2 slices spills K3's
/// epilogue, 256 K2's; 128 in 8 slices 116 B of K4's; 128 x 4 and 64 x 8
/// do not: test/Tools/ptxas-resources.mlir).
constexpr int64_t kMinSliceKTiles = 4, kMaxSplitKWaves = 2,
                  kMaxSplitTileColumns = 128, kMaxSplitColumnSlices = 512;

/// The WGMMA time model of the token variants (TileSelection.h), fitted to
/// per-kernel times on the H200 (bench/NOTES.md item 55): microseconds per
/// k-tile (128 rows x 64) of tensor-core work per output column (16,384
/// flops: 6.6 TFLOP/s a multiprocessor) and of loads per operand row (128
/// bytes: 95 GB/s a multiprocessor from L2); per wave (prologue, pipeline
/// fill, epilogue); per split-K launch (the counter fill, the last slice's
/// wait) and per column and further slice (the last slice reading its
/// partials back); and HBM bytes per microsecond (a copy's rate). Fitted
/// to 16-bit kernels; a tf32 k-tile (128 rows x 32) is half the flops at
/// half the rate and the same 128 bytes a row, so the model counts it as
/// one k-tile too (not fitted: a lead).
constexpr double kMmaMicrosPerColumn = 2.5e-3, kLoadMicrosPerRow = 1.35e-3,
                 kWaveMicros = 3.0, kSplitKMicros = 4.0,
                 kPartialMicrosPerColumn = 0.01, kHbmBytesPerMicro = 4.19e6;
/// The ranges of row tiles the token variants are chosen for, T in
/// (128 fewest, 128 most]; past the last (2048), the kernel_config. 16-bit
/// kernels, whose times the model was fitted to, per count of row tiles:
/// each count's own least (measured on an H100, bench/NOTES.md item 103:
/// K1 at (1024, 2816), T = 384, 64 columns a gate and up, 132 blocks, 10.6
/// against 15.2 us for the 66 of a range's shared choice). fp32 kernels
/// (tf32, whose k-tiles the model counts as 16-bit ones, unfitted) in the
/// ranges T <= 128, 256, 512, 1024, 2048 that sessions 39-41 measured.
constexpr int64_t kTokenVariantRowTiles = 16;
constexpr int64_t kTf32TokenRangeRowTiles[] = {1, 2, 4, 8, 16};
/// A variant is taken where the model gives it at most 9/10 of the
/// kernel_config's time over its range (as the static grids' widths).
constexpr double kTokenVariantGain = 0.9;

/// The format of `shape`'s products on tensor cores (getProductFormat).
std::optional<Precision> tensorCoreProducts(const GemmShape &shape) {
  if (!shape.precision)
    return std::nullopt;
  return getProductFormat(*shape.precision, /*tensorCores=*/true);
}

/// The tile width of one accumulator over a static grid (M and N static:
/// the weight gradients, whose K is T): `widest`, unless one of `narrower`
/// (tried in turn) makes the busiest multiprocessor's work, waves x width,
/// at least 10 % smaller than the width taken so far (D = 1024, H = 2816:
/// the down weight gradient's 8 x 11 tiles of 128 x 256 are 88 blocks on
/// 132 multiprocessors, its 8 x 15 of 192 are 120: 25 % less).
int64_t staticGridTileN(const Target &target, const GemmShape &shape,
                        int64_t tileM, int64_t widest,
                        ArrayRef<int64_t> narrower) {
  if (!shape.rows || !shape.cols || shape.accumulators != 1)
    return widest;
  auto cost = [&](int64_t tileN) {
    int64_t tiles = llvm::divideCeil(shape.rows, tileM) *
                    llvm::divideCeil(shape.cols, tileN);
    return llvm::divideCeil(tiles, target.multiprocessors) * tileN;
  };
  int64_t best = widest;
  for (int64_t width : narrower)
    if (10 * cost(width) <= 9 * cost(best))
      best = width;
  return best;
}

/// The WGMMA tile width per accumulator. Two accumulators fill the widest
/// WGMMA (256) at 128. One takes 256 (64 where N fits in 64), or 192 or
/// 128 over a static grid (staticGridTileN).
int64_t wgmmaTileN(const Target &target, const GemmShape &shape) {
  // tf32x3: 128 columns in all, or one output box for an N within it.
  if (tensorCoreProducts(shape) == Precision::tf32x3)
    return shape.accumulators == 1 && shape.n > 0 &&
                   shape.n <= kWgmmaOutputBox
               ? kWgmmaOutputBox
               : kWgmmaTf32x3Columns / shape.accumulators;
  if (forcedWgmmaTileN > 0)
    return std::min<int64_t>(forcedWgmmaTileN,
                             kWgmmaMaxColumns / shape.accumulators);
  if (shape.accumulators != 1)
    return kWgmmaMaxColumns / shape.accumulators;
  // An N within one output box (an adapter's projection or gradient, N =
  // R, docs/LoRA.md) takes one: a wider tile multiplies zero-filled
  // columns (at (4096, 11008), T = 8192, LoRA's step 0.943x PEFT's under
  // torch.compile with 256-wide tiles, 0.909x with 64; H200, session 26).
  if (shape.n > 0 && shape.n <= kWgmmaOutputBox)
    return kWgmmaOutputBox;
  return staticGridTileN(target, shape, kWgmmaTileM, kWgmmaMaxColumns,
                         {192, 128});
}

/// Why the 16-bit tensor-core strategies (small_tokens; WGMMA's 16-bit
/// part) do not take `shape`'s operands, or "".
std::string notSixteenBitOperands(const GemmShape &shape) {
  if (isFloat32Precision(getElementPrecision(shape.element)))
    return "fp32 operands (small_tokens takes 16-bit ones)";
  if (shape.precision && *shape.precision != getElementPrecision(shape.element))
    return ("precision " + stringifyPrecision(*shape.precision) + " on " +
            stringifyPrecision(getElementPrecision(shape.element)) +
            " operands takes the SIMT path")
        .str();
  return "";
}

/// Why `highest` does not take tf32x3 products for `shape`, or "": only a
/// contraction of at least kHighestTf32x3MinTerms terms (a static K that
/// long, or K = T, whose shorter launches take a SIMT variant).
std::string notHighestOnTensorCores(const GemmShape &shape) {
  if (shape.k == 0 || shape.k >= kHighestTf32x3MinTerms)
    return "";
  return "highest: a contraction of " + std::to_string(shape.k) +
         " terms takes IEEE fp32 (tf32x3's bound is within fp32's from " +
         std::to_string(kHighestTf32x3MinTerms) + " terms on)";
}

/// Whether fp32 operands are contracted on tf32 (tf32, tf32x3, and highest
/// where it takes tf32x3).
bool tf32Contraction(const GemmShape &shape) {
  return isFloat32Precision(getElementPrecision(shape.element)) &&
         shape.precision && isTf32Precision(*tensorCoreProducts(shape)) &&
         (shape.precision != Precision::highest ||
          notHighestOnTensorCores(shape).empty());
}

/// Why the mma_sync strategy does not take `shape`'s operands, or "": it
/// takes 16-bit ones in their own format and fp32 ones on tf32.
std::string notMmaSyncOperands(const GemmShape &shape) {
  if (tf32Contraction(shape))
    return "";
  if (shape.precision == Precision::highest)
    return notHighestOnTensorCores(shape);
  if (isFloat32Precision(getElementPrecision(shape.element)))
    return "fp32 operands contracted as ieee take the IEEE fp32 SIMT path";
  return notSixteenBitOperands(shape);
}

/// Why the WGMMA strategy does not take `shape`'s operands, or "": 16-bit
/// ones in their own format, or fp32 ones on tf32 (one product of their
/// tf32 values, or tf32x3's three of their split parts: tf32x3, and
/// highest in contractions of at least kHighestTf32x3MinTerms terms),
/// unless an A/B knob turns one off. A forced tile width
/// (--fmlp-wgmma-tile-n) does not apply to tf32x3 (wgmmaTileN).
std::string notWgmmaOperands(const GemmShape &shape) {
  if (!isFloat32Precision(getElementPrecision(shape.element)))
    return notSixteenBitOperands(shape);
  if (!tf32Contraction(shape))
    return ("fp32 operands contracted as " +
            stringifyPrecision(shape.precision.value_or(Precision::ieee)) +
            " (WGMMA takes 16-bit ones, and fp32 ones as tf32 or tf32x3)")
        .str();
  if (*tensorCoreProducts(shape) == Precision::tf32x3) {
    if (!tf32x3Wgmma)
      return "fp32 operands: tf32x3 on WGMMA is off "
             "(--fmlp-tf32x3-wgmma=false)";
    return "";
  }
  if (!tf32Wgmma)
    return "fp32 operands: tf32 on WGMMA is off (--fmlp-tf32-wgmma=false)";
  return "";
}

/// The SIMT configuration of `shape`, for `reason`.
KernelConfig simtConfig(const GemmShape &shape, std::string reason) {
  KernelConfig config;
  config.tileM = config.tileN = kSimtTile;
  config.tileK = kSimtTileK;
  config.sharedBytes = simtSharedBytes(shape.accumulators);
  config.maxRegisters = shape.k && shape.k < kSimtTileK
                            ? kSimtShortKMaxRegisters
                            : kSimtMaxRegisters;
  config.reason = std::move(reason);
  return config;
}
} // namespace

int64_t mlir::fmlp::tf32x3GroupK8s(Precision precision, int64_t k) {
  bool highest = precision == Precision::highest;
  int64_t group = forcedTf32x3GroupK8s ? forcedTf32x3GroupK8s : highest ? 2 : 4;
  if (highest)
    while (group > 1 && (k == 0 || k < getHighestTf32x3MinTerms(group)))
      group /= 2;
  return group;
}

/// How tf32x3's sums of `group` k8 steps reach the accumulators, in words.
static std::string groupedSums(int64_t group) {
  return group == 1 ? "each k8 step's sums added in fp32"
                    : std::to_string(group) +
                          " k8 steps summed on the tensor core per fp32 add";
}

WgmmaGemmSpec mlir::fmlp::wgmmaFootprint(const GemmShape &shape,
                                         int64_t tileN, int64_t stages) {
  WgmmaGemmSpec spec;
  spec.element = shape.element;
  spec.a.kMajor = shape.aKMajor;
  spec.b.resize(shape.accumulators);
  for (auto [b, kMajor] : llvm::zip(spec.b, shape.bKMajor))
    b.kMajor = kMajor;
  spec.tileN = tileN;
  spec.stages = stages;
  spec.tf32x3 = tensorCoreProducts(shape) == Precision::tf32x3;
  spec.roundsTf32 = shape.tf32Rounded && shape.element.isF32() && !spec.tf32x3;
  return spec;
}

bool KernelConfig::sameKernel(const KernelConfig &other) const {
  return strategy == other.strategy && tileM == other.tileM &&
         tileN == other.tileN && tileK == other.tileK &&
         stages == other.stages && clusterM == other.clusterM &&
         clusterN == other.clusterN && sharedBytes == other.sharedBytes &&
         maxRegisters == other.maxRegisters && splitK == other.splitK &&
         roundsInStages == other.roundsInStages &&
         transposesInStages == other.transposesInStages &&
         stagesByTma == other.stagesByTma;
}

KernelConfigAttr KernelConfig::toAttr(MLIRContext *context) const {
  return KernelConfigAttr::get(context, strategy, {tileM, tileN, tileK}, stages,
                               {clusterM, clusterN}, sharedBytes, maxRegisters,
                               reason, maxTokens, splitK, roundsInStages,
                               transposesInStages, stagesByTma);
}

KernelConfig KernelConfig::fromAttr(KernelConfigAttr attr) {
  KernelConfig config;
  config.strategy = attr.getStrategy();
  config.tileM = attr.getTileM();
  config.tileN = attr.getTileN();
  config.tileK = attr.getTileK();
  config.stages = attr.getStages();
  config.clusterM = attr.getCluster()[0];
  config.clusterN = attr.getCluster()[1];
  config.sharedBytes = attr.getSharedBytes();
  config.maxRegisters = attr.getMaxRegisters();
  config.reason = attr.getReason().str();
  config.maxTokens = attr.getMaxTokens();
  config.splitK = attr.getSplitK();
  config.roundsInStages = attr.getRoundsInStages();
  config.transposesInStages = attr.getTransposesInStages();
  config.stagesByTma = attr.getStagesByTma();
  return config;
}


namespace {
/// The WGMMA configuration of `shape` at tile width `tileN` with as many
/// stages as the target's shared memory takes (at most kMaxStages), or
/// nullopt when not two fit.
std::optional<KernelConfig> wgmmaConfig(const Target &target,
                                        const GemmShape &shape,
                                        int64_t tileN) {
  WgmmaGemmSpec spec = wgmmaFootprint(shape, tileN, kMaxStages);
  for (; spec.stages >= 2; --spec.stages)
    if (wgmmaSharedBytes(spec) <= target.sharedBytesPerBlock)
      break;
  if (spec.stages < 2)
    return std::nullopt;
  KernelConfig config;
  config.strategy = KernelStrategy::wgmma;
  config.tileM = kWgmmaTileM;
  config.tileN = spec.tileN;
  config.tileK = wgmmaTileK(shape.element);
  config.stages = spec.stages;
  config.sharedBytes = wgmmaSharedBytes(spec);
  config.maxRegisters = kWgmmaMaxRegisters;
  bool allKMajor = shape.aKMajor && llvm::all_of(shape.bKMajor,
                                                 [](bool k) { return k; });
  int64_t group =
      spec.tf32x3 ? tf32x3GroupK8s(*shape.precision, shape.k) : int64_t(1);
  std::string products =
      spec.tf32x3 ? "tf32x3 products of fp32 operands (each split into tf32 "
                    "high and low parts, " +
                        groupedSums(group) + ")"
                  : "tf32 products of fp32 operands";
  config.reason =
      (!isFloat32Precision(getElementPrecision(shape.element))
           ? std::string("16-bit operands")
       : allKMajor ? products + ", both K-major,"
                   : products + ", the MN-major ones transposed in shared "
                                "memory,") +
      " in TMA-addressable views on " + std::string(target.chip);
  if (shape.precision == Precision::highest)
    config.reason += " (highest: within fp32's bound from " +
                     std::to_string(getHighestTf32x3MinTerms(group)) +
                     " terms)";
  return config;
}

constexpr int64_t kMaxMmaSyncStages = 4, kMinMmaSyncStagesOfLongK = 3;

/// The mma_sync configuration of `shape`, or nullopt when not two stages
/// fit the target. Where the kernel could take TMA (16-bit k-tiles of
/// 128-byte rows on a chip with TMA) and does not, `byCpAsync` says why.
std::optional<KernelConfig> mmaSyncConfig(const Target &target,
                                          const GemmShape &shape,
                                          std::string &byCpAsync) {
  int64_t elementBytes = shape.element.getIntOrFloatBitWidth() / 8;
  // tf32x3 adds each step's three products to its accumulators in fp32:
  // 128 columns (64 accumulators a thread) leave registers for the sums.
  bool tf32x3 = tensorCoreProducts(shape) == Precision::tf32x3;
  int64_t blocks = tf32x3 ? 1 : int64_t(mmaSyncBlocksPerMultiprocessor);
  int64_t columns =
      tf32x3 || blocks > 1 ? kMmaSyncNarrowTileColumns
      : mmaSyncGridTiles
          ? staticGridTileN(target, shape, kMmaSyncTileM, kMmaSyncTileColumns,
                            {kMmaSyncGridTileColumns})
          : kMmaSyncTileColumns;
  // Each resident block takes its share of the multiprocessor's shared
  // memory less what the chip reserves a block.
  int64_t sharedLimit = std::min(target.sharedBytesPerBlock,
                                 target.sharedBytesPerMultiprocessor / blocks -
                                     target.sharedBytesReservedPerBlock());
  int64_t shortK = kMmaSyncTileKBytes[0] / elementBytes,
          longK = kMmaSyncTileKBytes[1] / elementBytes;
  // One thread loads a k-tile by TMA where the chip has it, instead of
  // every thread computing its cp.async pieces' addresses and bounds each
  // k-tile: on the H100 the kernels took 0.69-0.87x the time of the
  // cp.async ones (bench/NOTES.md items 104, 105). TMA's 128-byte swizzle is
  // the ring's layout for 16-bit k-tiles of 128-byte rows (MmaSyncGemm.cpp);
  // the operands must be TMA-addressable. Where it could and does not,
  // byCpAsync says why.
  byCpAsync.clear();
  if (target.tma && elementBytes == 2) {
    if (!mmaSyncTma)
      byCpAsync = "--fmlp-mma-sync-tma=false";
    else if (!shape.tmaReady)
      byCpAsync = shape.notTmaReady;
    else if (forcedMmaSyncTileKBytes > 0 &&
             forcedMmaSyncTileKBytes != kTmaRowBytes)
      byCpAsync = "--fmlp-mma-sync-tile-k-bytes=" +
                  std::to_string(int(forcedMmaSyncTileKBytes));
  }
  bool byTma = target.tma && elementBytes == 2 && byCpAsync.empty();
  // K-tiles of 128-byte rows (64 16-bit elements, 32 fp32: half the
  // barriers and copy rounds per MMA of 64-byte ones) where three stages
  // of them fit, or two staged by TMA (on the H100 within sm_120's shared
  // memory, two TMA stages of 128-byte rows took 0.71-0.97x the time of
  // four cp.async stages of 64-byte rows: item 105), else of 64-byte rows.
  // tf32x3 (three MMAs per fragment pair, two parts of each live) takes
  // 64-byte rows.
  int64_t tileK =
      forcedMmaSyncTileKBytes > 0 ? forcedMmaSyncTileKBytes / elementBytes
      : !tf32x3 &&
              mmaSyncSharedBytes(longK, byTma ? 2 : kMinMmaSyncStagesOfLongK,
                                 elementBytes, columns, byTma) <= sharedLimit
          ? longK
          : shortK;
  if (byTma && tileK != longK) {
    byCpAsync = "no room for two stages of 128-byte rows";
    byTma = false;
  }
  int64_t stages = forcedMmaSyncStages > 0 ? forcedMmaSyncStages
                                           : kMaxMmaSyncStages;
  while (stages >= 2 && mmaSyncSharedBytes(tileK, stages, elementBytes, columns,
                                           byTma) > sharedLimit)
    --stages;
  if (stages < 2)
    return std::nullopt;
  KernelConfig config;
  config.strategy = KernelStrategy::mma_sync;
  config.tileM = kMmaSyncTileM;
  config.tileN = columns / shape.accumulators;
  config.tileK = tileK;
  config.stages = stages;
  config.stagesByTma = byTma;
  config.sharedBytes =
      mmaSyncSharedBytes(tileK, stages, elementBytes, columns, byTma);
  config.maxRegisters = std::min<int64_t>(
      kMmaSyncMaxRegisters, target.registersPerMultiprocessor /
                                (blocks * mmaSyncThreads(columns, tf32x3)));
  return config;
}

/// The small_tokens kernel of `tokens` token rows (16, or 32), serving
/// T <= tokens, where the rule takes it.
std::optional<KernelConfig> smallTokensConfig(const Target &target,
                                              const GemmShape &shape,
                                              int64_t tokens) {
  if (!target.has(kMmaSync) || !notSixteenBitOperands(shape).empty() ||
      !shape.smallTokensReady)
    return std::nullopt;
  KernelConfig config;
  config.strategy = KernelStrategy::small_tokens;
  config.tileM = tokens;
  int64_t columns = shape.accumulators == 1 ? smallTokensDownColumns
                                             : smallTokensGateUpColumns;
  config.tileN = tokens == kSmallTokens && shape.n && shape.n % columns == 0
                     ? columns
                     : kSmallTokensTileN;
  config.tileK = kSmallTokensChunk;
  config.stages = 1;
  config.sharedBytes =
      smallTokensSharedBytes(shape.accumulators, config.tileM, config.tileN);
  config.maxRegisters = tokens > 2 * kSmallTokens
                            ? std::max<int32_t>(smallTokensMaxRegisters,
                                                kSmallTokens64MaxRegisters)
                            : int32_t(smallTokensMaxRegisters);
  config.reason = "T <= " + std::to_string(config.tileM) +
                  ": the weights streamed through mma.sync on " +
                  std::string(target.chip) + ", K split over " +
                  std::to_string(smallTokensThreads(config.tileN) / 32) +
                  " warps";
  config.maxTokens = config.tileM;
  return config;
}

/// The small_tokens kernel of 32 token rows: microseconds per launch, the
/// longer of its fixed cost (launch, 8 warps' partial sums) and its weights
/// read at its rate (H200: 5.0 us at (1024, 2816), whose 6-12 MB of
/// weights are in L2; 2.8-3.4 TB/s at (4096, 11008); bench/NOTES.md item
/// 55).
constexpr double kSmallTokens32Micros = 5.0, kSmallTokens32BytesPerMicro = 2.8e6;
double smallTokens32Microseconds(const GemmShape &shape) {
  int64_t elementBytes = shape.element.getIntOrFloatBitWidth() / 8;
  double weights =
      double(elementBytes) * shape.n * shape.k * shape.accumulators;
  return std::max(kSmallTokens32Micros, weights / kSmallTokens32BytesPerMicro);
}
} // namespace

double mlir::fmlp::wgmmaMicroseconds(const Target &target,
                                     const GemmShape &shape, int64_t tokens,
                                     int64_t tileN, int64_t splitK) {
  int64_t columns = tileN * shape.accumulators;
  int64_t blocks = llvm::divideCeil(tokens, kWgmmaTileM) *
                   llvm::divideCeil(shape.n, tileN) * splitK;
  int64_t waves = llvm::divideCeil(blocks, target.multiprocessors);
  int64_t kTiles = llvm::divideCeil(
      llvm::divideCeil(shape.k, wgmmaTileK(shape.element)), splitK);
  // A k-tile takes the longer of its products and its loads (A's 128 rows
  // and B's `columns`).
  double kTile = std::max(kMmaMicrosPerColumn * columns,
                          kLoadMicrosPerRow * (kWgmmaTileM + columns));
  double busiest = waves * (kWaveMicros + kTiles * kTile);
  if (splitK > 1)
    busiest += kSplitKMicros + kPartialMicrosPerColumn * columns * (splitK - 1);
  int64_t elementBytes = shape.element.getIntOrFloatBitWidth() / 8;
  double once = double(elementBytes) *
                (shape.n * shape.k + tokens * shape.k + tokens * shape.n);
  return std::max(busiest, once / kHbmBytesPerMicro);
}

namespace {
/// The WGMMA variant for T in row tiles (fewest, most] that the model
/// times least in sum over the range (one launch of each T = 128 r), or
/// `base` where none takes at most kTokenVariantGain of its time.
KernelConfig tokenRangeConfig(const Target &target, const GemmShape &shape,
                              const KernelConfig &base, int64_t fewest,
                              int64_t most) {
  int64_t kTiles = llvm::divideCeil(shape.k, wgmmaTileK(shape.element));
  auto time = [&](int64_t tileN, int64_t splitK) {
    double sum = 0;
    for (int64_t rows = fewest + 1; rows <= most; ++rows)
      sum += wgmmaMicroseconds(target, shape, rows * kWgmmaTileM, tileN,
                               splitK);
    return sum;
  };
  double baseTime = time(base.tileN, 1);
  int64_t bestN = base.tileN, bestSplit = 1;
  double best = baseTime;
  for (int64_t tileN = kWgmmaOutputBox;
       tileN * shape.accumulators <= kWgmmaMaxColumns;
       tileN += kWgmmaOutputBox) {
    for (int64_t splitK : {1, 2, 4, 8}) {
      // Split only where the kernel may (one accumulator, an epilogue that
      // stores) and its last slice's sums fit the registers (tiles at most
      // kMaxSplitTileColumns wide, width x slices at most
      // kMaxSplitColumnSlices), each slice at least kMinSliceKTiles,
      // within kMaxSplitKWaves.
      int64_t blocks = most * llvm::divideCeil(shape.n, tileN) * splitK;
      if (splitK > 1 &&
          (!shape.splitKReady || shape.accumulators != 1 ||
           tileN > kMaxSplitTileColumns ||
           tileN * splitK > kMaxSplitColumnSlices ||
           kTiles / splitK < kMinSliceKTiles ||
           blocks > kMaxSplitKWaves * target.multiprocessors))
        continue;
      double t = time(tileN, splitK);
      if (t < best) {
        best = t;
        bestN = tileN;
        bestSplit = splitK;
      }
    }
  }
  if (best > kTokenVariantGain * baseTime)
    return base;
  KernelConfig config = *wgmmaConfig(target, shape, bestN);
  config.splitK = bestSplit;
  return config;
}
} // namespace

bool mlir::fmlp::roundsTf32InStages(const GemmShape &shape,
                                    const KernelConfig &config) {
  if (!shape.readsRoundedWeightCopies ||
      config.strategy != KernelStrategy::wgmma)
    return false;
  if (tf32RoundInStagesMaxTokens < 0)
    return true;
  return config.maxTokens > 0 && config.maxTokens <= tf32RoundInStagesMaxTokens;
}

namespace {
/// `variant` (whose reason reads "T <= N: why") serving T up to `bound` <
/// N only: "T <= bound: why (`note`)".
KernelConfig cutAt(KernelConfig variant, int64_t bound, StringRef note) {
  variant.reason = "T <= " + std::to_string(bound) + ":" +
                   StringRef(variant.reason).split(':').second.str() + " (" +
                   note.str() + ")";
  variant.maxTokens = bound;
  return variant;
}
} // namespace

SmallVector<KernelConfig>
mlir::fmlp::roundingTokenVariants(const GemmShape &shape,
                                  ArrayRef<KernelConfig> variants,
                                  const KernelConfig &base) {
  int64_t bound = tf32RoundInStagesMaxTokens;
  if (bound <= 0 || !shape.readsRoundedWeightCopies ||
      !shape.tokenVariantsReady || base.strategy != KernelStrategy::wgmma)
    return SmallVector<KernelConfig>(variants);
  SmallVector<KernelConfig> served;
  int64_t fewest = 0; // the most T the variants before this one serve
  for (const KernelConfig &variant : variants) {
    // T in (fewest, bound] round, those past it read the copies.
    if (variant.strategy == KernelStrategy::wgmma && fewest < bound &&
        variant.maxTokens > bound)
      served.push_back(cutAt(variant, bound, "split at the rounding bound"));
    served.push_back(variant);
    fewest = variant.maxTokens;
  }
  if (fewest < bound) {
    KernelConfig upToBound = base;
    upToBound.maxTokens = bound;
    upToBound.reason = "T <= " + std::to_string(bound) +
                       ": the kernel_config's tiles, the weights read as "
                       "stored (the copies from T = " +
                       std::to_string(bound + 1) + ")";
    served.push_back(upToBound);
  }
  return served;
}

SmallVector<KernelConfig> mlir::fmlp::transposingTokenVariants(
    const GemmShape &shape, ArrayRef<KernelConfig> copies,
    ArrayRef<KernelConfig> stored, KernelConfig &base,
    const KernelConfig &storedBase) {
  // Kernels with token variants only (the GPU tests verify them at every
  // width: not save=u's gate recomputation), and the landing slots'
  // transposition, which rounds (the cp.async copies of
  // --fmlp-tf32-transpose=cp-async cannot).
  int64_t bound = transposeInStagesMaxTokens;
  if (bound == 0 || !shape.readsTransposedWeightCopies ||
      !shape.tokenVariantsReady || !wgmmaRoundsTransposedFp32() ||
      tensorCoreProducts(shape) != Precision::tf32 ||
      storedBase.strategy != KernelStrategy::wgmma)
    return SmallVector<KernelConfig>(copies);
  auto transposing = [](KernelConfig config) {
    config.transposesInStages = true;
    config.reason += "; B's weights transposed in the stages";
    return config;
  };
  SmallVector<KernelConfig> variants;
  int64_t served = 0; // the most T the stored variants serve
  for (const KernelConfig &variant : stored) {
    if (variant.strategy != KernelStrategy::wgmma)
      break;
    // One serving T on both sides of the bound serves T up to it.
    if (bound >= 0 && variant.maxTokens > bound)
      variants.push_back(
          cutAt(transposing(variant), bound, "to the transposing bound"));
    else
      variants.push_back(transposing(variant));
    served = variants.back().maxTokens;
    if (bound >= 0 && served >= bound)
      break;
  }
  if (bound < 0) {
    base = transposing(storedBase);
    return variants;
  }
  // The stored layout's variants end below the bound (tf32x3's kernels
  // have none): its kernel_config serves the T up to it.
  if (served < bound) {
    KernelConfig fewTokens = transposing(storedBase);
    fewTokens.maxTokens = served = bound;
    fewTokens.reason = "T <= " + std::to_string(bound) +
                       ": the stored layout's kernel_config tiles; " +
                       fewTokens.reason;
    variants.push_back(fewTokens);
  }
  for (const KernelConfig &variant : copies)
    if (variant.maxTokens > served)
      variants.push_back(variant);
  return variants;
}

SmallVector<KernelConfig>
mlir::fmlp::selectTokenVariants(const Target &target, const GemmShape &shape,
                                const KernelConfig &base) {
  SmallVector<KernelConfig> variants;
  // highest on tensor cores with K = T (the weight gradients): launches of
  // fewer than kHighestTf32x3MinTerms tokens contract too few terms for
  // tf32x3 to be within fp32's bound.
  if ((base.strategy == KernelStrategy::mma_sync ||
       base.strategy == KernelStrategy::wgmma) &&
      shape.precision == Precision::highest && shape.k == 0) {
    KernelConfig fewTerms = simtConfig(
        shape, "T < " + std::to_string(kHighestTf32x3MinTerms) +
                   ": highest contracts T terms as IEEE fp32 (tf32x3's bound "
                   "is within fp32's from " +
                   std::to_string(kHighestTf32x3MinTerms) + " on)");
    fewTerms.maxTokens = kHighestTf32x3MinTerms - 1;
    variants.push_back(fewTerms);
  }
  // The WGMMA configs per range of row tiles (one count each for 16-bit
  // operands); adjacent ranges that take the same one are one variant, and
  // the ranges past the last that differs from the kernel_config are the
  // kernel_config's.
  SmallVector<KernelConfig> ranges;
  // Not for tf32x3 (its tiles are 128 columns at most; few tokens of
  // fp32 training are left to the kernel_config).
  bool wgmmaVariants = base.strategy == KernelStrategy::wgmma &&
                       tensorCoreProducts(shape) != Precision::tf32x3 &&
                       shape.tokenVariantsReady && shape.n > 0 && shape.k > 0;
  SmallVector<int64_t> rangeEnds(kTokenVariantRowTiles);
  std::iota(rangeEnds.begin(), rangeEnds.end(), 1);
  if (isFloat32Precision(getElementPrecision(shape.element)))
    rangeEnds.assign(std::begin(kTf32TokenRangeRowTiles),
                     std::end(kTf32TokenRangeRowTiles));
  int64_t fewest = 0;
  for (int64_t most : rangeEnds) {
    if (!wgmmaVariants)
      break;
    KernelConfig config = tokenRangeConfig(target, shape, base, fewest, most);
    config.maxTokens = most * kWgmmaTileM;
    if (!ranges.empty() && ranges.back().sameKernel(config))
      ranges.back().maxTokens = config.maxTokens;
    else
      ranges.push_back(config);
    fewest = most;
  }
  // small_tokens for T <= 16 (or 32: an A/B run's), then for T <= 32 where
  // the model times it at most kTokenVariantGain of the WGMMA kernel that
  // T = 32 would otherwise take (weights that L2 holds: a WGMMA grid's
  // fixed costs outweigh their reads).
  if (std::optional<KernelConfig> small =
          smallTokensConfig(target, shape, smallTokensMax)) {
    variants.push_back(*small);
    if (smallTokensMax == kSmallTokens && !ranges.empty()) {
      double wgmma = wgmmaMicroseconds(target, shape, 2 * kSmallTokens,
                                       ranges.front().tileN,
                                       ranges.front().splitK);
      double wide = smallTokens32Microseconds(shape);
      if (wide <= kTokenVariantGain * wgmma) {
        KernelConfig wider = *smallTokensConfig(target, shape, 2 * kSmallTokens);
        wider.reason += " (the time model: " +
                        std::to_string(int64_t(wide + 0.5)) + " us against " +
                        std::to_string(int64_t(wgmma + 0.5)) +
                        " us on WGMMA)";
        variants.push_back(wider);
      }
    }
  }
  while (!ranges.empty() && ranges.back().sameKernel(base))
    ranges.pop_back();
  // The small_tokens variants serve the fewest T already.
  int64_t served = variants.empty() ? 0 : variants.back().maxTokens;
  for (KernelConfig &config : ranges) {
    if (config.maxTokens <= served)
      continue;
    config.reason =
        "T <= " + std::to_string(config.maxTokens) + ": " +
        (config.sameKernel(base)
             ? std::string("the kernel_config's tiles")
             : "tiles " + std::to_string(config.tileN) + " wide" +
                   (config.splitK > 1
                        ? ", K in " + std::to_string(config.splitK) + " slices"
                        : std::string())) +
        " (the time model's least on " + std::string(target.chip) + ")";
    variants.push_back(config);
  }
  return variants;
}

std::optional<KernelConfig>
mlir::fmlp::wgmmaTokenVariant(const Target &target, const GemmShape &shape,
                              int64_t tileN, int64_t splitK,
                              int64_t maxTokens) {
  std::optional<KernelConfig> variant = wgmmaConfig(target, shape, tileN);
  if (!variant)
    return std::nullopt;
  variant->maxTokens = maxTokens;
  variant->splitK = splitK;
  variant->reason =
      "T <= " + std::to_string(maxTokens) + ": tiles " +
      std::to_string(tileN) + " wide" +
      (splitK > 1 ? ", K in " + std::to_string(splitK) + " slices"
                  : std::string()) +
      " (fixed for an A/B run)";
  return variant;
}

KernelConfig mlir::fmlp::selectGemmConfig(const Target &target,
                                          const GemmShape &shape,
                                          StrategyChoice choice) {
  std::string why;
  if (choice != StrategyChoice::automatic)
    why = choice == StrategyChoice::simt ? "the simt strategy was asked for"
                                         : "the mma_sync strategy was asked for";
  else if (!target.has(kWgmma))
    why = std::string(target.chip) + " has no WGMMA";
  else if (std::string operands = notWgmmaOperands(shape); !operands.empty())
    why = operands;
  else if (!shape.tmaReady)
    why = shape.notTmaReady;

  if (why.empty()) {
    // The rule's width, or a narrower one where two stages of it (and the
    // landing slots of transposed operands) do not fit.
    int64_t widest = wgmmaTileN(target, shape);
    for (int64_t tileN : {widest, int64_t(128), int64_t(64)})
      if (tileN <= widest)
        if (std::optional<KernelConfig> config =
                wgmmaConfig(target, shape, tileN))
          return *config;
    why = "no two WGMMA stages fit " + std::string(target.chip) +
          "'s shared memory";
  }
  // The reasons mma_sync does not take it, after why the faster one did not.
  std::string notMmaSync;
  if (choice == StrategyChoice::simt)
    notMmaSync = "";
  else if (!target.has(kMmaSync))
    notMmaSync = std::string(target.chip) + " has no mma.sync";
  else if (std::string operands = notMmaSyncOperands(shape);
           !operands.empty())
    notMmaSync = operands;
  else if (!shape.mmaSyncReady)
    notMmaSync = shape.notMmaSyncReady;
  else if (std::string byCpAsync; std::optional<KernelConfig> config =
                                      mmaSyncConfig(target, shape, byCpAsync)) {
    config->reason = why + "; mma.sync on " + std::string(target.chip);
    if (tf32Contraction(shape))
      config->reason += ", " +
                        stringifyPrecision(*tensorCoreProducts(shape)).str() +
                        " products";
    if (shape.precision == Precision::highest)
      config->reason += " (highest: within fp32's bound from " +
                        std::to_string(kHighestTf32x3MinTerms) + " terms)";
    if (config->tileN == kMmaSyncGridTileColumns)
      config->reason += "; " + std::to_string(kMmaSyncGridTileColumns) +
                        "-column tiles: fewer waves on " +
                        std::to_string(target.multiprocessors) +
                        " multiprocessors";
    // Why the operands are not staged by TMA, unless that is what ruled
    // WGMMA out.
    if (!byCpAsync.empty() && byCpAsync != why)
      config->reason += "; operands by cp.async: " + byCpAsync;
    return *config;
  } else
    notMmaSync = "no two mma.sync stages fit " + std::string(target.chip) +
                 "'s shared memory";
  if (!notMmaSync.empty() && notMmaSync != why)
    why += "; " + notMmaSync;
  return simtConfig(shape, why);
}

std::optional<StrategyChoice>
mlir::fmlp::parseStrategyChoice(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<StrategyChoice>>(name)
      .Case("auto", StrategyChoice::automatic)
      .Case("mma_sync", StrategyChoice::mmaSync)
      .Case("simt", StrategyChoice::simt)
      .Default(std::nullopt);
}
