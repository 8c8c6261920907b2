//===- TileSelection.cpp - Tile and stage choice per kernel ---------------===//

#include "codegen/TileSelection.h"

#include "codegen/KernelBuilder.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fmlp;

// For A/B runs on a GPU (bench/compare_bundles.py): the small_tokens
// kernels' register cap, recorded in their config like every choice here.
static llvm::cl::opt<int> smallTokensMaxRegisters(
    "fmlp-small-tokens-max-registers", llvm::cl::Hidden,
    llvm::cl::init(kSmallTokensMaxRegisters),
    llvm::cl::desc("small_tokens kernels: the register cap per thread"));

// For A/B runs on a GPU (bench/compare_bundles.py): the largest T the
// small_tokens kernels serve (16, the measured choice, or 32).
static llvm::cl::opt<int> smallTokensMax(
    "fmlp-small-tokens-max", llvm::cl::Hidden, llvm::cl::init(kSmallTokens),
    llvm::cl::desc("small_tokens kernels: the largest T they serve (16 or "
                   "32)"));

// For A/B runs on a GPU (bench/compare_bundles.py): a fixed WGMMA tile
// width per accumulator instead of the rule below (0), e.g. narrower tiles
// for more blocks at a few hundred tokens.
static llvm::cl::opt<int> forcedWgmmaTileN(
    "fmlp-wgmma-tile-n", llvm::cl::Hidden, llvm::cl::init(0),
    llvm::cl::desc("WGMMA kernels: the tile width per accumulator, a "
                   "multiple of 64 up to 256 / accumulators (0: the rule)"));

// For A/B runs on a GPU: the K slices of the narrow WGMMA variants for a few
// hundred tokens (1: no split; clamped to a kernel's k-tiles of 64) instead
// of the rule's choice (0).
static llvm::cl::opt<int> forcedSplitK(
    "fmlp-split-k", llvm::cl::Hidden, llvm::cl::init(0),
    llvm::cl::desc("narrow WGMMA variants (T <= 256): the K slices, at most "
                   "each kernel's k-tiles of 64 (0: the rule)"));

// For A/B runs on a GPU: the mma_sync kernels' ring depth (at least 2,
// within the chip's shared memory) and k-tile (32 or 64) instead of the
// rule's (0).
static llvm::cl::opt<int> forcedMmaSyncStages(
    "fmlp-mma-sync-stages", llvm::cl::Hidden, llvm::cl::init(0),
    llvm::cl::desc("mma_sync kernels: the ring's stages (0: the rule)"));
static llvm::cl::opt<int> forcedMmaSyncTileK(
    "fmlp-mma-sync-tile-k", llvm::cl::Hidden, llvm::cl::init(0),
    llvm::cl::desc("mma_sync kernels: the k-tile, 32 or 64 (0: the rule)"));

namespace {
constexpr int64_t kMaxStages = 6;
/// The narrow WGMMA variant's tile width and the largest T it serves.
constexpr int64_t kNarrowTileN = 64, kNarrowTilesMaxTokens = 256;
/// Split-K: the fewest k-tiles of 64 a slice contracts, the most waves.
constexpr int64_t kMinSliceKTiles = 4, kMaxSplitKWaves = 2;

/// The WGMMA tile width per accumulator. Two accumulators fill the widest
/// WGMMA (256) at 128. One takes 256 unless the grid is static and a
/// narrower tile makes the busiest multiprocessor's work, waves x width,
/// at least 10 % smaller (D = 1024, H = 2816: K6's 8 x 11 tiles of 256 are
/// 88 blocks on 132 multiprocessors, its 8 x 15 of 192 are 120: 25 % less).
int64_t wgmmaTileN(const Target &target, const GemmShape &shape) {
  if (forcedWgmmaTileN > 0) {
    if (forcedWgmmaTileN % 64 || forcedWgmmaTileN * shape.accumulators > 256)
      llvm::report_fatal_error("--fmlp-wgmma-tile-n must be a multiple of 64 "
                               "and at most 256 / accumulators",
                               /*gen_crash_diag=*/false);
    return forcedWgmmaTileN;
  }
  if (shape.accumulators != 1)
    return 256 / shape.accumulators;
  int64_t multiprocessors = target.multiprocessors;
  int64_t best = 256;
  if (!shape.rows || !shape.cols)
    return best;
  auto cost = [&](int64_t tileN) {
    int64_t tiles = llvm::divideCeil(shape.rows, kWgmmaTileM) *
                    llvm::divideCeil(shape.cols, tileN);
    return llvm::divideCeil(tiles, multiprocessors) * tileN;
  };
  for (int64_t narrower : {192, 128})
    if (10 * cost(narrower) <= 9 * cost(best))
      best = narrower;
  return best;
}

/// Why the 16-bit tensor-core strategies (WGMMA, small_tokens) do not take
/// `shape`'s operands, or "".
std::string notSixteenBitOperands(const GemmShape &shape) {
  if (isFloat32Precision(getElementPrecision(shape.element)))
    return "fp32 operands (WGMMA takes 16-bit ones)";
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

/// The format of `shape`'s products on tensor cores (getProductFormat).
std::optional<Precision> tensorCoreProducts(const GemmShape &shape) {
  if (!shape.precision)
    return std::nullopt;
  return getProductFormat(*shape.precision, /*tensorCores=*/true);
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

/// The SIMT configuration of `shape`, for `reason`.
KernelConfig simtConfig(const GemmShape &shape, std::string reason) {
  KernelConfig config;
  config.tileM = config.tileN = kSimtTile;
  config.tileK = kSimtTileK;
  config.sharedBytes = simtSharedBytes(shape.accumulators);
  config.maxRegisters = kSimtMaxRegisters;
  config.reason = std::move(reason);
  return config;
}
} // namespace

KernelConfigAttr KernelConfig::toAttr(MLIRContext *context) const {
  return KernelConfigAttr::get(context, strategy, {tileM, tileN, tileK},
                               stages, {clusterM, clusterN}, sharedBytes,
                               maxRegisters, reason, maxTokens, splitK);
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
  return config;
}


namespace {
/// The WGMMA configuration of `shape` at tile width `tileN` with as many
/// stages as the target's shared memory takes (at most kMaxStages), or
/// nullopt when not two fit.
std::optional<KernelConfig> wgmmaConfig(const Target &target,
                                        const GemmShape &shape,
                                        int64_t tileN) {
  WgmmaGemmSpec spec;
  spec.b.resize(shape.accumulators);
  spec.tileN = tileN;
  for (spec.stages = kMaxStages; spec.stages >= 2; --spec.stages)
    if (wgmmaSharedBytes(spec) <= target.sharedBytesPerBlock)
      break;
  if (spec.stages < 2)
    return std::nullopt;
  KernelConfig config;
  config.strategy = KernelStrategy::wgmma;
  config.tileM = kWgmmaTileM;
  config.tileN = spec.tileN;
  config.tileK = kWgmmaTileK;
  config.stages = spec.stages;
  config.sharedBytes = wgmmaSharedBytes(spec);
  config.maxRegisters = kWgmmaMaxRegisters;
  config.reason = "16-bit operands in TMA-addressable views on " +
                  std::string(target.chip);
  return config;
}

constexpr int64_t kMaxMmaSyncStages = 4, kMinMmaSyncStagesOfLongK = 3;

/// The mma_sync configuration of `shape`, or nullopt when not two stages
/// fit the target.
std::optional<KernelConfig> mmaSyncConfig(const Target &target,
                                          const GemmShape &shape) {
  int64_t elementBytes = shape.element.getIntOrFloatBitWidth() / 8;
  // tf32x3 adds each step's three products to its accumulators in fp32:
  // 128 columns (64 accumulators a thread) leave registers for the sums.
  bool tf32x3 = tensorCoreProducts(shape) == Precision::tf32x3;
  int64_t columns = tf32x3 ? kMmaSyncNarrowTileColumns : kMmaSyncTileColumns;
  int64_t shortK = kMmaSyncTileKBytes[0] / elementBytes,
          longK = kMmaSyncTileKBytes[1] / elementBytes;
  if (forcedMmaSyncTileK != 0 && forcedMmaSyncTileK != shortK &&
      forcedMmaSyncTileK != longK)
    llvm::report_fatal_error(
        llvm::Twine("--fmlp-mma-sync-tile-k must be ") + llvm::Twine(shortK) +
            " or " + llvm::Twine(longK) + " for " +
            llvm::Twine(elementBytes * 8) + "-bit operands",
        /*gen_crash_diag=*/false);
  // K-tiles of 128-byte rows (64 16-bit elements, 32 fp32: half the
  // barriers and cp.async rounds per MMA of 64-byte ones) where three
  // stages of them fit, else of 64-byte rows. tf32x3 (three MMAs per
  // fragment pair, two parts of each live) takes 64-byte rows.
  int64_t tileK = forcedMmaSyncTileK > 0 ? forcedMmaSyncTileK
                  : !tf32x3 &&
                          mmaSyncSharedBytes(longK, kMinMmaSyncStagesOfLongK,
                                             elementBytes, columns) <=
                              target.sharedBytesPerBlock
                      ? longK
                      : shortK;
  int64_t stages = forcedMmaSyncStages > 0 ? forcedMmaSyncStages
                                           : kMaxMmaSyncStages;
  while (stages >= 2 && mmaSyncSharedBytes(tileK, stages, elementBytes,
                                           columns) > target.sharedBytesPerBlock)
    --stages;
  if (stages < 2)
    return std::nullopt;
  KernelConfig config;
  config.strategy = KernelStrategy::mma_sync;
  config.tileM = kMmaSyncTileM;
  config.tileN = columns / shape.accumulators;
  config.tileK = tileK;
  config.stages = stages;
  config.sharedBytes = mmaSyncSharedBytes(tileK, stages, elementBytes, columns);
  config.maxRegisters = kMmaSyncMaxRegisters;
  return config;
}

/// The small_tokens kernel for T <= 16 (32 for A/B runs), where the rule
/// takes it.
std::optional<KernelConfig> smallTokensConfig(const Target &target,
                                              const GemmShape &shape) {
  if (!target.has(kMmaSync) || !notSixteenBitOperands(shape).empty() ||
      !shape.smallTokensReady)
    return std::nullopt;
  if (smallTokensMax != 16 && smallTokensMax != 32)
    llvm::report_fatal_error("--fmlp-small-tokens-max must be 16 or 32",
                             /*gen_crash_diag=*/false);
  KernelConfig config;
  config.strategy = KernelStrategy::small_tokens;
  config.tileM = smallTokensMax;
  config.tileN = kSmallTokensTileN;
  config.tileK = kSmallTokensChunk;
  config.stages = 1;
  config.sharedBytes =
      smallTokensSharedBytes(shape.accumulators, config.tileM);
  config.maxRegisters = smallTokensMaxRegisters;
  config.reason = "T <= " + std::to_string(config.tileM) +
                  ": the weights streamed through mma.sync on " +
                  std::string(target.chip) + ", K split over 8 warps";
  config.maxTokens = config.tileM;
  return config;
}
} // namespace

int64_t mlir::fmlp::selectSplitK(const Target &target, int64_t blocks,
                                 int64_t kTiles) {
  int64_t multiprocessors = target.multiprocessors;
  auto waves = [&](int64_t slices) {
    return llvm::divideCeil(blocks * slices, multiprocessors);
  };
  // waves(S) / S against waves(best) / best, without division.
  int64_t best = 1;
  for (int64_t slices = 2; kTiles / slices >= kMinSliceKTiles &&
                           waves(slices) <= kMaxSplitKWaves;
       ++slices)
    if (waves(slices) * best < waves(best) * slices)
      best = slices;
  return best;
}

SmallVector<KernelConfig>
mlir::fmlp::selectTokenVariants(const Target &target, const GemmShape &shape,
                                const KernelConfig &base) {
  SmallVector<KernelConfig> variants;
  if (std::optional<KernelConfig> small = smallTokensConfig(target, shape))
    variants.push_back(*small);
  // highest on tensor cores with K = T (the weight gradients): launches of
  // fewer than kHighestTf32x3MinTerms tokens contract too few terms for
  // tf32x3 to be within fp32's bound.
  if (base.strategy == KernelStrategy::mma_sync &&
      shape.precision == Precision::highest && shape.k == 0) {
    KernelConfig fewTerms = simtConfig(
        shape, "T < " + std::to_string(kHighestTf32x3MinTerms) +
                   ": highest contracts T terms as IEEE fp32 (tf32x3's bound "
                   "is within fp32's from " +
                   std::to_string(kHighestTf32x3MinTerms) + " on)");
    fewTerms.maxTokens = kHighestTf32x3MinTerms - 1;
    variants.push_back(fewTerms);
  }
  if (base.strategy == KernelStrategy::wgmma && shape.narrowTilesForFewTokens &&
      base.tileN > kNarrowTileN) {
    if (std::optional<KernelConfig> narrow =
            wgmmaConfig(target, shape, kNarrowTileN)) {
      std::string why = ": 64-wide tiles, " +
                        std::to_string(base.tileN / kNarrowTileN) +
                        "x the blocks to stream the weights on " +
                        std::string(target.chip);
      // Split-K per range of row tiles (T <= 128, T <= 256), where N and K
      // are static; one variant where both ranges take the same.
      int64_t kTiles = llvm::divideCeil(shape.k, kWgmmaTileK);
      for (int64_t rowTiles : {1, 2}) {
        KernelConfig variant = *narrow;
        variant.maxTokens = rowTiles * kWgmmaTileM;
        if (shape.n > 0 && shape.k > 0 && shape.splitKReady) {
          variant.splitK =
              forcedSplitK > 0
                  ? std::min<int64_t>(forcedSplitK, kTiles)
                  : selectSplitK(target,
                                 rowTiles *
                                     llvm::divideCeil(shape.n, kNarrowTileN),
                                 kTiles);
        }
        variant.reason = "T <= " + std::to_string(variant.maxTokens) + why;
        if (variant.splitK > 1)
          variant.reason += ", K in " + std::to_string(variant.splitK) +
                            " slices (" +
                            std::to_string(rowTiles *
                                           llvm::divideCeil(shape.n, 64) *
                                           variant.splitK) +
                            " blocks)";
        if (!variants.empty() && variants.back().strategy == variant.strategy &&
            variants.back().tileN == variant.tileN &&
            variants.back().splitK == variant.splitK)
          variants.back() = variant; // the same kernel, a wider range
        else
          variants.push_back(variant);
      }
      assert(variants.back().maxTokens == kNarrowTilesMaxTokens);
    }
  }
  return variants;
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
  else if (std::string operands = notSixteenBitOperands(shape);
           !operands.empty())
    why = operands;
  else if (!shape.tmaReady)
    why = shape.notTmaReady;

  if (why.empty()) {
    if (std::optional<KernelConfig> config =
            wgmmaConfig(target, shape, wgmmaTileN(target, shape)))
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
  else if (std::optional<KernelConfig> config = mmaSyncConfig(target, shape)) {
    config->reason = why + "; mma.sync on " + std::string(target.chip);
    if (tf32Contraction(shape))
      config->reason += ", " +
                        stringifyPrecision(*tensorCoreProducts(shape)).str() +
                        " products";
    if (shape.precision == Precision::highest)
      config->reason += " (highest: within fp32's bound from " +
                        std::to_string(kHighestTf32x3MinTerms) + " terms)";
    return *config;
  } else
    notMmaSync = "no two mma.sync stages fit " + std::string(target.chip) +
                 "'s shared memory";
  if (!notMmaSync.empty() && notMmaSync != why)
    why += "; " + notMmaSync;
  return simtConfig(shape, why);
}
