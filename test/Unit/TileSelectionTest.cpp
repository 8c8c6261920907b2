//===- TileSelectionTest.cpp - fmlp-select-tiles' rule --------------------===//
//
// Every configuration the selection can return fits its chip (every row of
// the chip table): shared memory per block within the limit, the register
// cap within the register file, WGMMA only where the chip, the precision
// and the operands allow it, and as many pipeline stages as fit. And the
// table itself (fmlp/Target.h).
//
//===----------------------------------------------------------------------===//

#include "codegen/TileSelection.h"
#include "codegen/KernelBuilder.h"
#include "dialects/FMLP/FMLPDialect.h"
#include "fmlp/Target.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

/// The table's row of `chip` (which must be there).
const Target &target(StringRef chip) {
  const Target *row = findTarget(chip.str());
  EXPECT_NE(row, nullptr) << chip.str();
  return *row;
}

TEST(TileSelection, EveryConfigurationFitsItsChip) {
  MLIRContext context;
  context.loadDialect<FMLPDialect>();
  Builder b(&context);
  unsigned wgmmaCount = 0, mmaSyncCount = 0, simtCount = 0, smallCount = 0;
  // Every chip of the table, every element type, with and without a
  // precision attribute (the block's, carried by fmlp-fuse).
  for (const Target &chip : kTargets) {
    int64_t limit = chip.sharedBytesPerBlock;
    for (Type element :
         {Type(b.getBF16Type()), Type(b.getF16Type()), Type(b.getF32Type())})
      for (std::optional<Precision> precision :
           {std::optional<Precision>(), std::optional(Precision::bf16),
            std::optional(Precision::f16), std::optional(Precision::tf32),
            std::optional(Precision::tf32x3), std::optional(Precision::ieee),
            std::optional(Precision::highest)})
        for (unsigned accumulators : {1u, 2u})
          for (auto [tmaReady, mmaSyncReady] :
               {std::pair(true, true), std::pair(false, true),
                std::pair(false, false)}) {
            // The verifier's rule: fp32 formats take f32 operands.
            if (precision && isFloat32Precision(*precision) &&
                !element.isF32())
              continue;
            GemmShape shape{element, accumulators, tmaReady,
                            tmaReady ? "" : "x is not K-major"};
            shape.precision = precision;
            shape.mmaSyncReady = mmaSyncReady;
            shape.notMmaSyncReady = mmaSyncReady ? "" : "x has odd rows";
            KernelConfig c = selectGemmConfig(chip, shape);
            SCOPED_TRACE(std::string(chip.chip) + " " +
                         std::to_string(accumulators) + " acc " +
                         (tmaReady ? "tma" : "no tma") +
                         (mmaSyncReady ? " cp.async" : " no cp.async") +
                         " precision " +
                         (precision ? stringifyPrecision(*precision).str()
                                    : "none"));
            EXPECT_LE(c.sharedBytes, limit);
            EXPECT_GT(c.sharedBytes, 0);
            int64_t threads = c.strategy == KernelStrategy::wgmma ? 384 : 256;
            EXPECT_LE(c.maxRegisters * threads,
                      chip.registersPerMultiprocessor);
            EXPECT_LE(c.maxRegisters, chip.registersPerThread);
            // 16-bit operands contracted in their own format.
            bool ownFormat =
                (element.isBF16() &&
                 (!precision || *precision == Precision::bf16)) ||
                (element.isF16() && (!precision || *precision == Precision::f16));
            // fp32 operands contracted on tf32 (highest: K is T here, so
            // tf32x3 from T = 84 on).
            bool tf32 = element.isF32() && precision &&
                        (*precision == Precision::tf32 ||
                         *precision == Precision::tf32x3 ||
                         *precision == Precision::highest);
            // WGMMA: 16-bit operands in their own format, or fp32 ones
            // multiplied as tf32 (one product, or tf32x3's three; TMA-ready
            // includes K-major here, which tf32 WGMMA needs).
            bool wgmmaAllowed =
                chip.has(kWgmma) && (ownFormat || tf32) && tmaReady;
            // tf32x3's products (highest's on tensor cores too).
            bool x3 = element.isF32() && (precision == Precision::tf32x3 ||
                                          precision == Precision::highest);
            bool mmaSyncAllowed = !wgmmaAllowed && chip.has(kMmaSync) &&
                                  (ownFormat || tf32) && mmaSyncReady;
            // The variant for T <= 16 (here: when the operands are ready
            // for it exactly when they are for TMA): wherever mma.sync
            // exists, within the chip, and it verifies.
            shape.smallTokensReady = tmaReady;
            // WGMMA token variants need N and K (none here: both T).
            shape.tokenVariantsReady = true;
            shape.splitKReady = accumulators == 1;
            SmallVector<KernelConfig> variants =
                selectTokenVariants(chip, shape, c);
            std::optional<KernelConfig> small, narrow, fewTerms;
            for (const KernelConfig &v : variants) {
              EXPECT_GT(v.maxTokens, 0);
              (v.strategy == KernelStrategy::small_tokens ? small
               : v.strategy == KernelStrategy::simt       ? fewTerms
                                                          : narrow) = v;
            }
            // highest on tensor cores: IEEE SIMT for T < 84.
            EXPECT_EQ(fewTerms.has_value(),
                      precision == Precision::highest &&
                          (c.strategy == KernelStrategy::mma_sync ||
                           c.strategy == KernelStrategy::wgmma));
            if (fewTerms) {
              EXPECT_EQ(fewTerms->maxTokens, kHighestTf32x3MinTerms - 1);
            }
            for (size_t i = 1; i < variants.size(); ++i)
              EXPECT_LT(variants[i - 1].maxTokens, variants[i].maxTokens);
            EXPECT_EQ(small.has_value(),
                      chip.has(kMmaSync) && ownFormat && tmaReady);
            EXPECT_FALSE(narrow.has_value());
            if (small) {
              EXPECT_EQ(small->maxTokens, kSmallTokens);
              ++smallCount;
              EXPECT_EQ(small->strategy, KernelStrategy::small_tokens);
              EXPECT_EQ(small->tileM, kSmallTokens);
              EXPECT_LE(small->sharedBytes, limit);
              EXPECT_EQ(small->sharedBytes,
                        smallTokensSharedBytes(accumulators));
              EXPECT_LE(small->maxRegisters * kSmallTokensThreads,
                        chip.registersPerMultiprocessor);
              EXPECT_TRUE(small->toAttr(&context));
            }
            // With N and K known (D = 4096, H = 11008: K1's or K2's
            // GEMM), WGMMA variants too: each within the chip, ascending.
            shape.n = accumulators == 2 ? 11008 : 4096;
            shape.k = accumulators == 2 ? 4096 : 11008;
            SmallVector<KernelConfig> sized =
                selectTokenVariants(chip, shape, c);
            bool anyWgmma = false;
            for (size_t i = 0; i < sized.size(); ++i) {
              const KernelConfig &v = sized[i];
              if (i > 0) {
                EXPECT_LT(sized[i - 1].maxTokens, v.maxTokens);
              }
              EXPECT_LE(v.sharedBytes, limit);
              EXPECT_LE(v.maxRegisters, chip.registersPerThread);
              EXPECT_TRUE(v.toAttr(&context));
              if (v.strategy != KernelStrategy::wgmma)
                continue;
              anyWgmma = true;
              EXPECT_LE(v.maxRegisters * 384, chip.registersPerMultiprocessor);
              EXPECT_LE(v.tileN * accumulators, 256);
              EXPECT_LE(v.tileN * v.splitK, 512);
              EXPECT_LE(v.maxTokens, 2048);
            }
            // Every sm_90a WGMMA GEMM of this size has a variant for a
            // few hundred tokens (a 256-wide tile leaves most
            // multiprocessors idle there), but tf32x3's (its tiles are
            // 128 columns at most); no other chip has any.
            EXPECT_EQ(anyWgmma, c.strategy == KernelStrategy::wgmma && !x3);
            EXPECT_EQ(c.strategy == KernelStrategy::wgmma, wgmmaAllowed)
                << c.reason;
            EXPECT_EQ(c.strategy == KernelStrategy::mma_sync, mmaSyncAllowed)
                << c.reason;
            EXPECT_FALSE(c.reason.empty());
            if (c.strategy == KernelStrategy::wgmma) {
              ++wgmmaCount;
              // T-dependent grid; tf32x3's accumulators and step sums
              // take 128 columns.
              EXPECT_EQ(c.tileN * accumulators, x3 ? 128 : 256);
              EXPECT_EQ(c.tileM, 128);
              // A stage's row of k is 128 bytes whatever the element.
              EXPECT_EQ(c.tileK * element.getIntOrFloatBitWidth() / 8, 128);
              EXPECT_GE(c.stages, 2);
              // Maximal: one more stage would not fit (or the cap of 6).
              WgmmaGemmSpec more =
                  wgmmaFootprint(shape, c.tileN, c.stages + 1);
              EXPECT_TRUE(c.stages == 6 || wgmmaSharedBytes(more) > limit);
            } else if (c.strategy == KernelStrategy::mma_sync) {
              ++mmaSyncCount;
              // 256 columns, 128 for tf32x3 (room for its step sums;
              // highest's products on tensor cores are tf32x3's).
              bool x3 = precision == Precision::tf32x3 ||
                        precision == Precision::highest;
              int64_t columns =
                  x3 ? kMmaSyncNarrowTileColumns : kMmaSyncTileColumns;
              EXPECT_EQ(c.tileN * accumulators, columns);
              EXPECT_EQ(c.tileM, kMmaSyncTileM);
              // Operands by TMA where the chip has it, 16-bit, every
              // operand TMA-addressable; then k-tiles of 128-byte rows
              // where two stages fit (sm_120 too), else where three do;
              // else (and for tf32x3) of 64-byte rows.
              int64_t bytes = element.getIntOrFloatBitWidth() / 8;
              bool byTma = chip.tma && bytes == 2 && tmaReady;
              EXPECT_EQ(c.tileK * bytes,
                        !x3 && mmaSyncSharedBytes(128 / bytes, byTma ? 2 : 3,
                                                  bytes, columns,
                                                  byTma) <= limit
                            ? 128
                            : 64);
              EXPECT_EQ(c.stagesByTma, byTma && c.tileK * bytes == 128);
              if (llvm::StringRef(chip.chip).starts_with("sm_120") && byTma) {
                EXPECT_EQ(c.stages, 2);
              }
              EXPECT_EQ(c.sharedBytes,
                        mmaSyncSharedBytes(c.tileK, c.stages, bytes, columns,
                                           c.stagesByTma));
              // Maximal: one more stage would not fit (or the cap of 4).
              EXPECT_GE(c.stages, 2);
              EXPECT_TRUE(c.stages == 4 ||
                          mmaSyncSharedBytes(c.tileK, c.stages + 1, bytes,
                                             columns, c.stagesByTma) > limit);
              EXPECT_EQ(tf32, c.reason.find(" products") != std::string::npos)
                  << c.reason;
            } else {
              ++simtCount;
              EXPECT_EQ(c.tileM, 64);
              EXPECT_EQ(c.stages, 1);
              EXPECT_EQ(c.sharedBytes, (1 + accumulators) * 64 * 16 * 4);
            }
            // The record on the op verifies and reads back the same.
            KernelConfigAttr attr = c.toAttr(&context);
            ASSERT_TRUE(attr);
            KernelConfig back = KernelConfig::fromAttr(attr);
            EXPECT_EQ(back.strategy, c.strategy);
            EXPECT_EQ(back.tileM, c.tileM);
            EXPECT_EQ(back.tileN, c.tileN);
            EXPECT_EQ(back.tileK, c.tileK);
            EXPECT_EQ(back.stages, c.stages);
            EXPECT_EQ(back.sharedBytes, c.sharedBytes);
            EXPECT_EQ(back.stagesByTma, c.stagesByTma);
            EXPECT_EQ(back.reason, c.reason);
          }
  }
  // sm_90a only: bf16 x {none, bf16} and f16 x {none, f16}, and f32 on
  // tf32, tf32x3 and highest, each with 1 and 2 accumulators and TMA-ready
  // operands.
  EXPECT_EQ(wgmmaCount, 14u);
  // The same 8 formats with operands cp.async can stage: on every chip
  // but sm_90a whether TMA can read them or not (2 cases), on sm_90a where
  // TMA cannot (1); and fp32 on tf32, tf32x3 or highest with 1 or 2
  // accumulators (6) wherever cp.async can stage the operands (2 cases), on
  // every chip, but on sm_90a where TMA can read them (6: WGMMA).
  EXPECT_EQ(mmaSyncCount, 8u * (2 * (std::size(kTargets) - 1) + 1) +
                              6u * 2 * std::size(kTargets) - 6u);
  EXPECT_GT(simtCount, 0u);
  // Every chip has mma.sync: 11 chips x the same 8 cases.
  EXPECT_EQ(smallCount, 8u * std::size(kTargets));
}

TEST(TileSelection, ReasonsNameWhatRuledWgmmaOut) {
  MLIRContext context;
  Builder b(&context);
  // Without operands cp.async can stage, the reasons for both.
  GemmShape odd{b.getBF16Type(), 1, true, ""};
  odd.notMmaSyncReady = "x has odd rows";
  EXPECT_EQ(selectGemmConfig(target("sm_80"), odd).reason,
            "sm_80 has no WGMMA; x has odd rows");
  EXPECT_EQ(selectGemmConfig(target("sm_100a"), {b.getBF16Type(), 1, true, ""})
                .reason,
            "sm_100a has no WGMMA");
  EXPECT_EQ(selectGemmConfig(target("sm_90a"), {b.getF32Type(), 1, true, ""})
                .reason,
            "fp32 operands contracted as ieee (WGMMA takes 16-bit ones, and "
            "fp32 ones as tf32 or tf32x3); "
            "fp32 operands contracted as ieee take the IEEE fp32 SIMT path");
  // tf32 and tf32x3 take WGMMA (k8 on tf32, k-tiles of 32) where TMA
  // reads both operands, else mma.sync's m16n8k8 where cp.async can stage
  // them; else IEEE SIMT (never less accurate than asked).
  GemmShape tf32{b.getF32Type(), 1, true, ""};
  tf32.precision = Precision::tf32;
  tf32.mmaSyncReady = true;
  KernelConfig onWgmma = selectGemmConfig(target("sm_90a"), tf32);
  EXPECT_EQ(onWgmma.strategy, KernelStrategy::wgmma);
  EXPECT_EQ(onWgmma.tileK, 32); // 128-byte rows
  EXPECT_EQ(onWgmma.stages, 4); // 4 x 48 KiB + 1 KiB of 232,448 B
  EXPECT_EQ(onWgmma.reason, "tf32 products of fp32 operands, both K-major, "
                            "in TMA-addressable views on sm_90a");
  tf32.tmaReady = false;
  tf32.notTmaReady =
      "tf32 WGMMA reads K-major operands only, and down is MN-major (its "
      "rows index k)";
  KernelConfig onTf32 = selectGemmConfig(target("sm_90a"), tf32);
  EXPECT_EQ(onTf32.strategy, KernelStrategy::mma_sync);
  EXPECT_EQ(onTf32.tileK, 32); // 128-byte rows
  EXPECT_EQ(onTf32.reason,
            "tf32 WGMMA reads K-major operands only, and down is MN-major "
            "(its rows index k); mma.sync on sm_90a, tf32 products");
  tf32.tmaReady = true;
  tf32.notTmaReady = "";
  tf32.precision = Precision::tf32x3;
  KernelConfig onX3 = selectGemmConfig(target("sm_90a"), tf32);
  EXPECT_EQ(onX3.strategy, KernelStrategy::wgmma);
  EXPECT_EQ(onX3.tileN, 128); // room for the step sums
  // 4 x (32 KiB high + B's 16 KiB low: A is split in registers) + 1 KiB
  EXPECT_EQ(onX3.stages, 4);
  EXPECT_EQ(onX3.sharedBytes, 4 * 49152 + 1024);
  EXPECT_EQ(onX3.reason, // K = T here: 4 k8 steps a group too
            "tf32x3 products of fp32 operands (each split into tf32 high "
            "and low parts, 4 k8 steps summed on the tensor core per fp32 "
            "add), both K-major, in TMA-addressable views on sm_90a");
  // tf32x3: 4 k8 steps a group (tf32x3GroupK8s), over T too; highest's
  // 2 over a static K where its bound stays within IEEE fp32's, else 1.
  tf32.k = 4096;
  EXPECT_EQ(selectGemmConfig(target("sm_90a"), tf32).reason,
            "tf32x3 products of fp32 operands (each split into tf32 high "
            "and low parts, 4 k8 steps summed on the tensor core per fp32 "
            "add), both K-major, in TMA-addressable views on sm_90a");
  EXPECT_EQ(tf32x3GroupK8s(Precision::tf32x3, 0), 4);
  EXPECT_EQ(tf32x3GroupK8s(Precision::tf32x3, 96), 4);
  EXPECT_EQ(tf32x3GroupK8s(Precision::highest, 0), 1);
  EXPECT_EQ(tf32x3GroupK8s(Precision::highest, 141), 1);
  EXPECT_EQ(tf32x3GroupK8s(Precision::highest, 142), 2);
  EXPECT_EQ(tf32x3GroupK8s(Precision::highest, 4096), 2);
  tf32.k = 0;
  // Without TMA, mma.sync's tf32x3: 64-byte rows.
  tf32.tmaReady = false;
  tf32.notTmaReady = "x is not 16-byte aligned";
  KernelConfig onX3MmaSync = selectGemmConfig(target("sm_90a"), tf32);
  EXPECT_EQ(onX3MmaSync.strategy, KernelStrategy::mma_sync);
  EXPECT_EQ(onX3MmaSync.tileK, 16);
  EXPECT_EQ(onX3MmaSync.reason, "x is not 16-byte aligned; mma.sync on "
                                "sm_90a, tf32x3 products");
  tf32.tmaReady = true;
  tf32.notTmaReady = "";
  // highest: tf32x3 where K has at least 84 terms, IEEE SIMT below.
  GemmShape highest = tf32;
  highest.precision = Precision::highest;
  highest.k = kHighestTf32x3MinTerms;
  KernelConfig onHighest = selectGemmConfig(target("sm_90a"), highest);
  EXPECT_EQ(onHighest.strategy, KernelStrategy::wgmma);
  EXPECT_EQ(onHighest.tileN, 128); // tf32x3's tiles
  EXPECT_TRUE(selectTokenVariants(target("sm_90a"), highest, onHighest)
                  .empty()); // K is static: no variant by T
  highest.k = kHighestTf32x3MinTerms - 1;
  EXPECT_EQ(selectGemmConfig(target("sm_90a"), highest).reason,
            "fp32 operands contracted as highest (WGMMA takes 16-bit ones, and "
            "fp32 ones as tf32 or tf32x3); highest: a contraction of 83 "
            "terms takes IEEE fp32 (tf32x3's bound is within fp32's from 84 "
            "terms on)");
  tf32.mmaSyncReady = false;
  tf32.notMmaSyncReady = "x has odd rows";
  // TMA still reads them: WGMMA; neither TMA nor cp.async: SIMT.
  EXPECT_EQ(selectGemmConfig(target("sm_90a"), tf32).strategy,
            KernelStrategy::wgmma);
  tf32.tmaReady = false;
  tf32.notTmaReady = "x is not 16-byte aligned";
  EXPECT_EQ(selectGemmConfig(target("sm_90a"), tf32).strategy,
            KernelStrategy::simt);
  GemmShape f16OnBf16{b.getBF16Type(), 1, true, ""};
  f16OnBf16.precision = Precision::f16;
  EXPECT_EQ(selectGemmConfig(target("sm_90a"), f16OnBf16).reason,
            "precision f16 on bf16 operands takes the SIMT path");
  EXPECT_EQ(selectGemmConfig(target("sm_90a"),
                             {b.getBF16Type(), 1, false, "dy is odd"})
                .reason,
            "dy is odd");
}

// fp32 operands stored MN-major (the backward's; where planTma lets the
// producer transpose them, --fmlp-tf32-wgmma-mn-major) take WGMMA with two
// landing slots of their k-step's tiles beside the ring (none where
// cp.async copies them): as many stages as then fit, and the reason says
// so. 16-bit ones take none.
TEST(TileSelection, TransposedFp32OperandsTakeLandingSlots) {
  MLIRContext context;
  Builder b(&context);
  const Target &h200 = target("sm_90a");
  constexpr int64_t kStage = (128 + 256) * 128, kBarriers = 1024;
  auto shapeOf = [&](Type element, bool aKMajor, bool bKMajor) {
    GemmShape shape{element, 1, true, ""};
    if (element.isF32())
      shape.precision = Precision::tf32;
    shape.aKMajor = aKMajor;
    shape.bKMajor = {bKMajor};
    return shape;
  };
  auto select = [&](Type element, bool aKMajor, bool bKMajor) {
    GemmShape shape = shapeOf(element, aKMajor, bKMajor);
    KernelConfig c = selectGemmConfig(h200, shape);
    EXPECT_EQ(c.strategy, KernelStrategy::wgmma) << c.reason;
    EXPECT_EQ(c.tileN, 256);
    EXPECT_EQ(c.sharedBytes,
              wgmmaSharedBytes(wgmmaFootprint(shape, c.tileN, c.stages)));
    EXPECT_GT(wgmmaSharedBytes(wgmmaFootprint(shape, c.tileN, c.stages + 1)),
              h200.sharedBytesPerBlock);
    return c;
  };
  // K3, K4: B (256 rows of 128 bytes) lands: two 32 KiB slots, 3 stages.
  KernelConfig k3 = select(b.getF32Type(), true, false);
  EXPECT_EQ(k3.stages, 3);
  EXPECT_EQ(k3.sharedBytes, kBarriers + 3 * kStage + 2 * 256 * 128);
  EXPECT_NE(k3.reason.find("MN-major ones transposed in shared memory"),
            std::string::npos)
      << k3.reason;
  // K5, K6: A and B land: two 48 KiB slots, 2 stages.
  KernelConfig k5 = select(b.getF32Type(), false, false);
  EXPECT_EQ(k5.stages, 2);
  EXPECT_EQ(k5.sharedBytes, kBarriers + 2 * kStage + 2 * kStage);
  // K-major fp32 and MN-major 16-bit operands: no slots, 4 stages.
  EXPECT_EQ(select(b.getF32Type(), true, true).sharedBytes,
            kBarriers + 4 * kStage);
  EXPECT_EQ(select(b.getBF16Type(), false, false).sharedBytes,
            kBarriers + 4 * kStage);
  // Three slots (--fmlp-tf32-landing-slots=3): K5's 256-wide tiles do not
  // fit two stages beside three 48 KiB slots; 128-wide ones take 4 stages.
  llvm::cl::Option *slots =
      llvm::cl::getRegisteredOptions()["fmlp-tf32-landing-slots"];
  ASSERT_NE(slots, nullptr);
  ASSERT_FALSE(slots->addOccurrence(0, "fmlp-tf32-landing-slots", "3"));
  KernelConfig narrowed =
      selectGemmConfig(h200, shapeOf(b.getF32Type(), false, false));
  EXPECT_EQ(narrowed.strategy, KernelStrategy::wgmma) << narrowed.reason;
  EXPECT_EQ(narrowed.tileN, 128);
  EXPECT_EQ(narrowed.stages, 4);
  EXPECT_EQ(narrowed.sharedBytes, kBarriers + 4 * 256 * 128 + 3 * 256 * 128);
  ASSERT_FALSE(slots->addOccurrence(0, "fmlp-tf32-landing-slots", "2"));
  // Copied by cp.async (--fmlp-tf32-transpose=cp-async): no slots, so the
  // transposed operands leave the ring as many stages as K-major ones.
  llvm::cl::Option *transpose =
      llvm::cl::getRegisteredOptions()["fmlp-tf32-transpose"];
  ASSERT_NE(transpose, nullptr);
  ASSERT_FALSE(transpose->addOccurrence(0, "fmlp-tf32-transpose", "cp-async"));
  EXPECT_EQ(select(b.getF32Type(), true, false).sharedBytes,
            kBarriers + 4 * kStage);
  EXPECT_EQ(select(b.getF32Type(), false, false).sharedBytes,
            kBarriers + 4 * kStage);
  ASSERT_FALSE(transpose->addOccurrence(0, "fmlp-tf32-transpose", "landing"));
  EXPECT_EQ(select(b.getF32Type(), false, false).stages, 2);
}

// tf32x3's MN-major operands (K4, K6: B MN-major, A read as stored and
// split in registers) land by TMA and are split as they are transposed
// (--fmlp-tf32x3-transpose=landing, the default): two slots of B's k-step
// tile beside the ring; cp.async copying them (=copy) takes no slots. The
// config's bytes are the kernel's either way (wgmmaSharedBytes of its
// footprint).
TEST(TileSelection, Tf32x3LandingTakesLandingSlots) {
  MLIRContext context;
  Builder b(&context);
  const Target &h100 = target("sm_90a");
  GemmShape shape{b.getF32Type(), 1, true, ""};
  shape.precision = Precision::tf32x3;
  shape.aKMajor = false;
  shape.bKMajor = {false};
  auto select = [&] {
    KernelConfig c = selectGemmConfig(h100, shape);
    EXPECT_EQ(c.strategy, KernelStrategy::wgmma) << c.reason;
    EXPECT_EQ(c.sharedBytes,
              wgmmaSharedBytes(wgmmaFootprint(shape, c.tileN, c.stages)));
    EXPECT_GT(wgmmaSharedBytes(wgmmaFootprint(shape, c.tileN, c.stages + 1)),
              h100.sharedBytesPerBlock);
    return c;
  };
  constexpr int64_t kBarriers = 1024;
  // A stage: the high part (A's 128 rows, B's tileN), then B's low part.
  auto stage = [](int64_t tileN) { return (128 + 2 * tileN) * 128; };
  KernelConfig landing = select();
  EXPECT_EQ(landing.sharedBytes, kBarriers +
                                     landing.stages * stage(landing.tileN) +
                                     2 * landing.tileN * 128);
  llvm::cl::Option *transpose =
      llvm::cl::getRegisteredOptions()["fmlp-tf32x3-transpose"];
  ASSERT_NE(transpose, nullptr);
  ASSERT_FALSE(transpose->addOccurrence(0, "fmlp-tf32x3-transpose", "copy"));
  KernelConfig copy = select();
  EXPECT_EQ(copy.sharedBytes, kBarriers + copy.stages * stage(copy.tileN));
  ASSERT_FALSE(transpose->addOccurrence(0, "fmlp-tf32x3-transpose", "landing"));
}

// The strategy asked for (fmlp-select-tiles' strategy=) replaces faster
// ones where the operands allow it, and says so.
TEST(TileSelection, AskedStrategiesReplaceFasterOnes) {
  MLIRContext context;
  Builder b(&context);
  GemmShape ready{b.getBF16Type(), 2, true, ""};
  ready.mmaSyncReady = true;
  const Target &h200 = target("sm_90a");
  EXPECT_EQ(selectGemmConfig(h200, ready).strategy, KernelStrategy::wgmma);
  KernelConfig mma = selectGemmConfig(h200, ready, StrategyChoice::mmaSync);
  EXPECT_EQ(mma.strategy, KernelStrategy::mma_sync);
  EXPECT_EQ(mma.tileN, 128); // two accumulators share the 256 columns
  EXPECT_EQ(mma.reason,
            "the mma_sync strategy was asked for; mma.sync on sm_90a");
  KernelConfig simt = selectGemmConfig(h200, ready, StrategyChoice::simt);
  EXPECT_EQ(simt.strategy, KernelStrategy::simt);
  EXPECT_EQ(simt.reason, "the simt strategy was asked for");
  EXPECT_EQ(selectGemmConfig(target("sm_120"), ready).reason,
            "sm_120 has no WGMMA; mma.sync on sm_120");
  // Operands by TMA where they are TMA-addressable (k-tiles of 128-byte
  // rows: on sm_90a in 4 stages, on sm_120 in the 2 that fit); else the
  // reason says why not.
  EXPECT_TRUE(mma.stagesByTma);
  KernelConfig sm120 = selectGemmConfig(target("sm_120"), ready);
  EXPECT_TRUE(sm120.stagesByTma);
  EXPECT_EQ(sm120.tileK, 64);
  EXPECT_EQ(sm120.stages, 2);
  GemmShape odd = ready;
  odd.tmaReady = false;
  odd.notTmaReady = "x's rows are not 16-byte aligned";
  KernelConfig byCpAsync = selectGemmConfig(h200, odd, StrategyChoice::mmaSync);
  EXPECT_FALSE(byCpAsync.stagesByTma);
  EXPECT_EQ(byCpAsync.reason,
            "the mma_sync strategy was asked for; mma.sync on sm_90a; operands "
            "by cp.async: x's rows are not 16-byte aligned");
  // sm_120 by cp.async: 3 stages of 128-byte rows do not fit, so 64-byte.
  KernelConfig sm120Odd = selectGemmConfig(target("sm_120"), odd);
  EXPECT_FALSE(sm120Odd.stagesByTma);
  EXPECT_EQ(sm120Odd.tileK, 32);
  EXPECT_EQ(sm120Odd.reason, "sm_120 has no WGMMA; mma.sync on sm_120; "
                             "operands by cp.async: x's rows are not 16-byte "
                             "aligned");
  // fp32 contracted as ieee stays on SIMT whatever is asked.
  GemmShape f32{b.getF32Type(), 1, true, ""};
  f32.mmaSyncReady = true;
  KernelConfig fp32 = selectGemmConfig(h200, f32, StrategyChoice::mmaSync);
  EXPECT_EQ(fp32.strategy, KernelStrategy::simt);
  EXPECT_EQ(fp32.reason, "the mma_sync strategy was asked for; fp32 operands "
                         "contracted as ieee take the IEEE fp32 SIMT path");
}

// Two mma_sync blocks a multiprocessor (--fmlp-mma-sync-blocks-per-
// multiprocessor=2, A/B runs): on every chip with mma.sync, both resident
// blocks fit its shared memory (each less the chip's reservation) and its
// register file, on 128 columns; tf32x3 keeps one block.
TEST(TileSelection, TwoMmaSyncBlocksShareAMultiprocessor) {
  MLIRContext context;
  Builder b(&context);
  GemmShape bf16{b.getBF16Type(), 1, true, ""};
  bf16.mmaSyncReady = true;
  GemmShape x3{b.getF32Type(), 1, true, ""};
  x3.mmaSyncReady = true;
  x3.precision = Precision::tf32x3;
  llvm::cl::Option *blocks = llvm::cl::getRegisteredOptions()
      ["fmlp-mma-sync-blocks-per-multiprocessor"];
  ASSERT_NE(blocks, nullptr);
  ASSERT_FALSE(
      blocks->addOccurrence(0, "fmlp-mma-sync-blocks-per-multiprocessor", "2"));
  for (const Target &chip : kTargets) {
    if (!chip.has(kMmaSync))
      continue;
    SCOPED_TRACE(chip.chip);
    KernelConfig c = selectGemmConfig(chip, bf16, StrategyChoice::mmaSync);
    ASSERT_EQ(c.strategy, KernelStrategy::mma_sync);
    EXPECT_EQ(c.tileN, kMmaSyncNarrowTileColumns);
    // 4 warps, each on 64 x 64 as one block's are: 255 registers a thread
    // (allocated in eights).
    EXPECT_EQ(mmaSyncThreads(c.tileN, /*tf32x3=*/false), 128);
    EXPECT_EQ(c.maxRegisters, kMmaSyncMaxRegisters);
    EXPECT_LE(2 * int64_t(llvm::alignTo(c.maxRegisters, 8)) * 128,
              chip.registersPerMultiprocessor);
    EXPECT_LE(2 * (c.sharedBytes + chip.sharedBytesReservedPerBlock()),
              chip.sharedBytesPerMultiprocessor);
    EXPECT_GE(c.stages, 2);
    KernelConfig one = selectGemmConfig(chip, x3, StrategyChoice::mmaSync);
    EXPECT_EQ(one.maxRegisters, kMmaSyncMaxRegisters);
  }
  ASSERT_FALSE(
      blocks->addOccurrence(0, "fmlp-mma-sync-blocks-per-multiprocessor", "1"));
  KernelConfig c =
      selectGemmConfig(target("sm_90a"), bf16, StrategyChoice::mmaSync);
  EXPECT_EQ(c.tileN, kMmaSyncTileColumns);
  EXPECT_EQ(c.maxRegisters, kMmaSyncMaxRegisters);
}

// With M and N static the tile width follows the waves on 132
// multiprocessors: waves x width is the busiest multiprocessor's work.
TEST(TileSelection, StaticGridsChooseTheWidthByWaves) {
  MLIRContext context;
  Builder b(&context);
  const Target &h200 = target("sm_90a");
  auto tileN = [&](unsigned accumulators, int64_t rows, int64_t cols) {
    GemmShape shape{b.getBF16Type(), accumulators, true, "", rows, cols};
    KernelConfig c = selectGemmConfig(h200, shape);
    EXPECT_EQ(c.strategy, KernelStrategy::wgmma);
    EXPECT_LE(c.sharedBytes, h200.sharedBytesPerBlock);
    return c.tileN;
  };
  // K6 at D = 1024, H = 2816: 8 x 11 tiles of 256 (1 wave of 256) or 8 x 15
  // of 192 (1 wave of 192); 8 x 22 of 128 are 2 waves (256).
  EXPECT_EQ(tileN(1, 1024, 2816), 192);
  // K5 at the same shape: 44 x 4 of 256 (2 waves: 512), 44 x 6 of 192 (2
  // waves: 384), 44 x 8 of 128 (3 waves: 384): the wider of the two.
  EXPECT_EQ(tileN(1, 2 * 2816, 1024), 192);
  // D = 4096, H = 11008: 256 is within 10 % of the best (K6: 11 waves of
  // 256 = 2816 against 21 of 128 = 2688).
  EXPECT_EQ(tileN(1, 4096, 11008), 256);
  EXPECT_EQ(tileN(1, 2 * 11008, 4096), 256);
  // T-dependent grids and two accumulators keep the fixed widths.
  EXPECT_EQ(tileN(1, 0, 2816), 256);
  EXPECT_EQ(tileN(2, 0, 2816), 128);
  EXPECT_EQ(h200.multiprocessors, 132);
}

// The mma_sync kernels of one block a multiprocessor take the same rule
// between 256 and 192 columns (8 warps of 64 x 48), on each chip's own
// multiprocessors; the weight gradients of (1024, 2816) and (4096, 11008)
// as rows x cols. With --fmlp-mma-sync-grid-tiles=false (an A/B knob),
// 256.
TEST(TileSelection, MmaSyncStaticGridsChooseTheWidthByWaves) {
  MLIRContext context;
  Builder b(&context);
  llvm::cl::Option *gridTiles =
      llvm::cl::getRegisteredOptions()["fmlp-mma-sync-grid-tiles"];
  ASSERT_NE(gridTiles, nullptr);
  auto tileN = [&](const char *chip, unsigned accumulators, int64_t rows,
                   int64_t cols) {
    GemmShape shape{b.getBF16Type(), accumulators, true, "", rows, cols};
    shape.mmaSyncReady = true;
    KernelConfig c =
        selectGemmConfig(target(chip), shape, StrategyChoice::mmaSync);
    EXPECT_EQ(c.strategy, KernelStrategy::mma_sync) << chip;
    EXPECT_EQ(c.sharedBytes,
              mmaSyncSharedBytes(c.tileK, c.stages, 2, c.tileN * accumulators,
                                 c.stagesByTma));
    EXPECT_LE(c.sharedBytes, target(chip).sharedBytesPerBlock);
    return c.tileN;
  };
  {
    ASSERT_FALSE(
        gridTiles->addOccurrence(0, "fmlp-mma-sync-grid-tiles", "false"));
    llvm::scope_exit reset([&] {
      EXPECT_FALSE(
          gridTiles->addOccurrence(0, "fmlp-mma-sync-grid-tiles", "true"));
    });
    EXPECT_EQ(tileN("sm_90a", 1, 1024, 2816), 256);
  }
  // The H200's 132: as WGMMA's (88 blocks of 256 against 120 of 192; 176
  // against 264, two waves either way).
  EXPECT_EQ(tileN("sm_90a", 1, 1024, 2816), 192);
  EXPECT_EQ(tileN("sm_90a", 1, 2 * 2816, 1024), 192);
  EXPECT_EQ(tileN("sm_90a", 1, 4096, 11008), 256);
  EXPECT_EQ(tileN("sm_90a", 1, 2 * 11008, 4096), 256);
  // An A100's 108: 88 blocks of 256 are one wave, 120 of 192 two; 176
  // of 256 two waves (512), 264 of 192 three (576).
  EXPECT_EQ(tileN("sm_80", 1, 1024, 2816), 256);
  EXPECT_EQ(tileN("sm_80", 1, 2 * 2816, 1024), 256);
  // An RTX 5090's 170: 120 blocks of 192 are one wave; 264 two (384
  // against 176 of 256 in two: 512).
  EXPECT_EQ(tileN("sm_120", 1, 1024, 2816), 192);
  EXPECT_EQ(tileN("sm_120", 1, 2 * 2816, 1024), 192);
  // 8 warps of 48 columns need 192 columns in all: two accumulators and
  // T-dependent grids keep 256.
  EXPECT_EQ(tileN("sm_90a", 2, 1024, 2816), 128);
  EXPECT_EQ(tileN("sm_90a", 1, 0, 2816), 256);
  EXPECT_EQ(mmaSyncThreads(kMmaSyncGridTileColumns, /*tf32x3=*/false), 256);
}

// The WGMMA time model (TileSelection.h) against what it was fitted to: a
// few per-kernel times measured on the H200 (bench/NOTES.md item 55), each
// within 25 %, and the orders between configurations the rule acts on.
TEST(TileSelection, WgmmaTimeModelFollowsTheH200) {
  MLIRContext context;
  Builder b(&context);
  const Target &h200 = target("sm_90a");
  auto gemm = [&](unsigned accumulators, int64_t n, int64_t k) {
    GemmShape shape{b.getBF16Type(), accumulators, true, ""};
    shape.n = n;
    shape.k = k;
    return shape;
  };
  GemmShape k2 = gemm(1, 4096, 11008), k4small = gemm(1, 1024, 2 * 2816),
            k1 = gemm(2, 11008, 4096);
  auto near = [&](const GemmShape &shape, int64_t tokens, int64_t tileN,
                  int64_t splitK, double measured) {
    double model = wgmmaMicroseconds(h200, shape, tokens, tileN, splitK);
    EXPECT_NEAR(model / measured, 1.0, 0.25)
        << tokens << " tokens, " << tileN << " wide, " << splitK
        << " slices: " << model << " us modelled, " << measured << " measured";
    return model;
  };
  // K2 at (4096, 11008): T = 1024 on 128 blocks of 256 beats 512 of 64.
  EXPECT_LT(near(k2, 1024, 256, 1, 114.4), near(k2, 1024, 64, 1, 185.6));
  // T = 256: 128 wide in 2 slices (128 blocks) beats 64 wide (128 blocks
  // of twice the k-tiles, each loading more per product).
  EXPECT_LT(near(k2, 256, 128, 2, 37.9), near(k2, 256, 64, 1, 45.1));
  // K4 at (1024, 2816), T = 1024: 32 blocks of 256 take over twice as long
  // as 64 of 128 in 2 slices.
  EXPECT_LT(2 * near(k4small, 1024, 128, 2, 23.4),
            near(k4small, 1024, 256, 1, 54.1));
  // K1 at (4096, 11008), T = 256: 172 tiles of 256 columns (1.3 waves)
  // lose to 344 of 128 (2.6 waves).
  EXPECT_LT(near(k1, 256, 64, 1, 85.5), near(k1, 256, 128, 1, 95.0));
  // Never below reading the operands once at HBM speed: K4 at (4096,
  // 11008), T = 16, 128 columns in 4 slices (128 blocks, one wave) takes
  // 40.6 us by its k-tiles and split-K costs, under the 43.2 us of reading
  // its weights; the model gives the floor.
  GemmShape k4 = gemm(1, 4096, 2 * 11008);
  EXPECT_DOUBLE_EQ(wgmmaMicroseconds(h200, k4, 16, 128, 4),
                   2.0 * (4096.0 * 22016 + 16 * 22016 + 16 * 4096) / 4.19e6);
}

// The token variants with N and K known: per count of 128-row tiles, the
// time model's choice (TileSelection.h), each within the chip and
// surviving the attribute; ranges past the last that differs from the
// kernel_config are its own.
TEST(TileSelection, TokenVariantsPerCountOfRowTiles) {
  MLIRContext context;
  context.loadDialect<FMLPDialect>();
  Builder b(&context);
  const Target &h200 = target("sm_90a");
  // (max_tokens, tile width, K slices) of each WGMMA variant.
  using Ranges = SmallVector<std::tuple<int64_t, int64_t, int64_t>>;
  auto variants = [&](unsigned accumulators, int64_t n, int64_t k,
                      bool splitKReady) {
    GemmShape shape{b.getBF16Type(), accumulators, true, ""};
    shape.tokenVariantsReady = true;
    shape.splitKReady = splitKReady;
    shape.n = n;
    shape.k = k;
    KernelConfig base = selectGemmConfig(h200, shape);
    EXPECT_EQ(base.splitK, 1);
    Ranges ranges;
    SmallVector<KernelConfig> chosen = selectTokenVariants(h200, shape, base);
    for (const KernelConfig &v : chosen) {
      EXPECT_EQ(v.strategy, KernelStrategy::wgmma);
      EXPECT_LE(v.sharedBytes, h200.sharedBytesPerBlock);
      EXPECT_LE(v.tileN * accumulators, 256);
      if (v.splitK > 1) {
        EXPECT_TRUE(splitKReady);
        EXPECT_LE(v.tileN, 128);
      }
      KernelConfig back = KernelConfig::fromAttr(v.toAttr(&context));
      EXPECT_TRUE(back.sameKernel(v));
      EXPECT_EQ(back.maxTokens, v.maxTokens);
      ranges.push_back({v.maxTokens, v.tileN, v.splitK});
    }
    if (!chosen.empty()) {
      EXPECT_FALSE(chosen.back().sameKernel(base));
    }
    return ranges;
  };
  // (4096, 11008): K1 (two accumulators of H), K2 (N = D, K = H), K3
  // (N = H, K = D), K4 (N = D, K = 2H). Each count r of 128-row tiles is
  // timed alone, so a variant may sit between two others with the
  // kernel_config's tiles (K2's 256 columns at T in (768, 1024]: 128
  // blocks, one wave, where 192 would take two).
  EXPECT_EQ(variants(2, 11008, 4096, false),
            (Ranges{{128, 128, 1}, {256, 64, 1}}));
  EXPECT_EQ(variants(1, 4096, 11008, true),
            (Ranges{{128, 128, 4}, {256, 128, 2}, {512, 128, 1}, {768, 192, 1},
                    {1024, 256, 1}, {1536, 192, 1}}));
  EXPECT_EQ(variants(1, 11008, 4096, false),
            (Ranges{{128, 128, 1}, {256, 192, 1}, {384, 256, 1}, {512, 192, 1}}));
  EXPECT_EQ(variants(1, 4096, 2 * 11008, true),
            (Ranges{{128, 128, 4}, {256, 128, 2}, {512, 128, 1}, {768, 192, 1},
                    {1024, 256, 1}, {1536, 192, 1}}));
  // (1024, 2816). K1 takes 64 columns a gate and up up to 3 row tiles
  // (T <= 384: 132 blocks, one wave, against 66 of the kernel_config's
  // 128; measured on an H100, bench/NOTES.md item 103: K1 10.6 against
  // 15.2 us at T = 384).
  EXPECT_EQ(variants(2, 2816, 1024, false), (Ranges{{384, 64, 1}}));
  EXPECT_EQ(variants(1, 1024, 2816, true),
            (Ranges{{256, 64, 4}, {512, 64, 2}, {1024, 64, 1}, {2048, 128, 1}}));
  EXPECT_EQ(variants(1, 2816, 1024, false),
            (Ranges{{384, 64, 1}, {768, 128, 1}, {1024, 192, 1}, {1536, 256, 1},
                    {2048, 192, 1}}));
  EXPECT_EQ(variants(1, 1024, 2 * 2816, true),
            (Ranges{{128, 64, 8}, {256, 64, 4}, {512, 128, 4}, {1024, 128, 2},
                    {2048, 128, 1}}));
  // Every shape above: the ranges end on whole counts of row tiles, rise,
  // stop by 2048 tokens, and two adjacent ones are never the same kernel.
  for (auto [accumulators, n, k, splitKReady] :
       {std::tuple<unsigned, int64_t, int64_t, bool>{2, 11008, 4096, false},
        {1, 4096, 11008, true}, {1, 11008, 4096, false},
        {1, 4096, 2 * 11008, true}, {2, 2816, 1024, false},
        {1, 1024, 2816, true}, {1, 2816, 1024, false},
        {1, 1024, 2 * 2816, true}}) {
    Ranges ranges = variants(accumulators, n, k, splitKReady);
    for (size_t i = 0; i < ranges.size(); ++i) {
      EXPECT_EQ(std::get<0>(ranges[i]) % 128, 0);
      EXPECT_LE(std::get<0>(ranges[i]), 2048);
      if (i > 0) {
        EXPECT_LT(std::get<0>(ranges[i - 1]), std::get<0>(ranges[i]));
        EXPECT_NE(std::make_pair(std::get<1>(ranges[i - 1]), std::get<2>(ranges[i - 1])),
                  std::make_pair(std::get<1>(ranges[i]), std::get<2>(ranges[i])));
      }
    }
  }
  // Without split K (K2 with a bias): widths only.
  for (auto [maxTokens, tileN, splitK] : variants(1, 1024, 2816, false))
    EXPECT_EQ(splitK, 1) << maxTokens;
  // K = 384 (6 k-tiles): a slice takes at least 4, so none is split,
  // though 64 columns of N = 4096 leave multiprocessors idle at T <= 128.
  Ranges fewKTiles = variants(1, 4096, 384, true);
  EXPECT_FALSE(fewKTiles.empty());
  for (auto [maxTokens, tileN, splitK] : fewKTiles)
    EXPECT_EQ(splitK, 1) << maxTokens;
  // N or K unknown (T): none.
  EXPECT_TRUE(variants(1, 0, 2816, true).empty());
  EXPECT_TRUE(variants(1, 1024, 0, true).empty());
}

// The small_tokens variant serves T <= 32 where the model ranks its
// 32-token kernel at most 0.9x the WGMMA variant at T = 32 (K1 and K2 at
// D = 1024, whose weights sit in L2; not at D = 4096, unless K2 has a bias
// and so no split-K variant), else T <= 16; ranges after it start past it.
TEST(TileSelection, SmallTokensServe32WhereTheModelRanksItFaster) {
  MLIRContext context;
  Builder b(&context);
  const Target &h200 = target("sm_90a");
  auto smallTokensMax = [&](unsigned accumulators, int64_t n, int64_t k,
                            bool splitKReady) {
    GemmShape shape{b.getBF16Type(), accumulators, true, ""};
    shape.tokenVariantsReady = shape.smallTokensReady = true;
    shape.splitKReady = splitKReady;
    shape.n = n;
    shape.k = k;
    SmallVector<KernelConfig> variants =
        selectTokenVariants(h200, shape, selectGemmConfig(h200, shape));
    // small_tokens for T <= 16, maybe a 32-token one, then WGMMA's.
    int64_t most = 0;
    for (const KernelConfig &v : variants) {
      if (v.strategy != KernelStrategy::small_tokens) {
        EXPECT_GT(v.maxTokens, most);
        continue;
      }
      EXPECT_EQ(v.tileM, v.maxTokens);
      EXPECT_EQ(v.maxTokens, most == 0 ? 16 : 32);
      most = v.maxTokens;
    }
    return most;
  };
  EXPECT_EQ(smallTokensMax(2, 2816, 1024, false), 32); // K1 at (1024, 2816)
  EXPECT_EQ(smallTokensMax(1, 1024, 2816, true), 32);  // K2
  EXPECT_EQ(smallTokensMax(2, 11008, 4096, false), 16); // K1 at (4096, 11008)
  EXPECT_EQ(smallTokensMax(1, 4096, 11008, true), 16);  // K2
  EXPECT_EQ(smallTokensMax(1, 4096, 11008, false), 32); // K2 with a bias
}

// Two configurations are the same kernel unless something that shapes the
// code differs; the T they serve and the reason do not.
TEST(TileSelection, SameKernelIgnoresOnlyTheRangeAndReason) {
  KernelConfig a;
  a.strategy = KernelStrategy::wgmma;
  a.tileM = 128;
  a.tileN = 128;
  a.tileK = 64;
  a.stages = 4;
  a.sharedBytes = 131072;
  a.maxRegisters = 168;
  KernelConfig b = a;
  b.maxTokens = 256;
  b.reason = "another range";
  EXPECT_TRUE(a.sameKernel(b));
  for (auto change : std::initializer_list<void (*)(KernelConfig &)>{
           [](KernelConfig &c) { c.tileN = 64; },
           [](KernelConfig &c) { c.stages = 3; },
           [](KernelConfig &c) { c.splitK = 2; },
           [](KernelConfig &c) { c.maxRegisters = 128; },
           [](KernelConfig &c) { c.sharedBytes = 65536; },
           [](KernelConfig &c) { c.roundsInStages = true; },
           [](KernelConfig &c) { c.strategy = KernelStrategy::mma_sync; }}) {
    KernelConfig c = a;
    change(c);
    EXPECT_FALSE(a.sameKernel(c));
  }
}

// tf32's rounded weights (fmlp-round-tf32-weights) read as stored and
// rounded in the stages by the WGMMA token variants of up to 768 tokens
// (the default bound), never by the kernel_config (every larger T: the
// copies), another strategy, or a GEMM that reads no rounded copies.
TEST(TileSelection, Tf32TokenVariantsRoundInTheirStages) {
  MLIRContext context;
  Builder b(&context);
  GemmShape shape{b.getF32Type(), 2, true, ""};
  shape.precision = Precision::tf32;
  shape.readsRoundedWeightCopies = true;
  KernelConfig config;
  config.strategy = KernelStrategy::wgmma;
  auto upTo = [&](int64_t maxTokens) {
    KernelConfig variant = config;
    variant.maxTokens = maxTokens;
    return variant;
  };
  EXPECT_TRUE(roundsTf32InStages(shape, upTo(128)));
  EXPECT_TRUE(roundsTf32InStages(shape, upTo(768)));
  EXPECT_FALSE(roundsTf32InStages(shape, upTo(1024)));
  EXPECT_FALSE(roundsTf32InStages(shape, upTo(0))); // the kernel_config
  KernelConfig mmaSync = upTo(128);
  mmaSync.strategy = KernelStrategy::mma_sync;
  EXPECT_FALSE(roundsTf32InStages(shape, mmaSync));
  GemmShape noCopies = shape;
  noCopies.readsRoundedWeightCopies = false;
  EXPECT_FALSE(roundsTf32InStages(noCopies, upTo(128)));
}

/// A WGMMA token variant serving T up to `maxTokens` (0: the kernel_config)
/// with tiles `tileN` wide and K in `splitK` slices, its reason as the rule
/// writes one ("T <= N: ...").
KernelConfig wgmma(int64_t maxTokens, int64_t tileN, int64_t splitK = 1) {
  KernelConfig config;
  config.strategy = KernelStrategy::wgmma;
  config.maxTokens = maxTokens;
  config.tileN = tileN;
  config.splitK = splitK;
  config.reason = "T <= " + std::to_string(maxTokens) + ": tiles";
  return config;
}

// Every T up to the bound (768) gets a variant that rounds in its stages:
// the kernel_config's tiles up to it where the rule's variants end below
// it, a variant serving T on both sides of it split there; none for a GEMM
// reading no rounded copies or off WGMMA.
TEST(TileSelection, RoundingVariantsUpTo768Tokens) {
  MLIRContext context;
  Builder b(&context);
  GemmShape shape{b.getF32Type(), 1, true, ""};
  shape.precision = Precision::tf32;
  shape.readsRoundedWeightCopies = true;
  shape.tokenVariantsReady = true;
  KernelConfig base = wgmma(0, 256, 1);
  auto rounding = [&](ArrayRef<KernelConfig> variants) {
    SmallVector<KernelConfig> served =
        roundingTokenVariants(shape, variants, base);
    SmallVector<std::tuple<int64_t, int64_t, bool>> got;
    for (const KernelConfig &v : served)
      got.emplace_back(v.maxTokens, v.tileN, roundsTf32InStages(shape, v));
    return got;
  };
  using Got = SmallVector<std::tuple<int64_t, int64_t, bool>>;
  // Variants to 256: the kernel_config's tiles serve 257 .. 768.
  EXPECT_EQ(rounding({wgmma(128, 64, 4), wgmma(256, 128, 2)}),
            (Got{{128, 64, true}, {256, 128, true}, {768, 256, true}}));
  // A variant of T <= 1024 split at 768, the copies past it.
  EXPECT_EQ(
      rounding({wgmma(512, 128, 4), wgmma(1024, 128, 2), wgmma(2048, 192, 1)}),
      (Got{{512, 128, true},
           {768, 128, true},
           {1024, 128, false},
           {2048, 192, false}}));
  SmallVector<KernelConfig> split =
      roundingTokenVariants(shape, {wgmma(1024, 128, 2)}, base);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0].splitK, 2);
  EXPECT_EQ(split[0].reason, "T <= 768: tiles (split at the rounding bound)");
  // A variant ending at the bound: nothing added, nothing split past it.
  EXPECT_EQ(rounding({wgmma(768, 128, 1)}), (Got{{768, 128, true}}));
  EXPECT_EQ(rounding({wgmma(768, 128, 1), wgmma(1024, 192, 1)}),
            (Got{{768, 128, true}, {1024, 192, false}}));
  // No variant at all: the kernel_config's tiles.
  EXPECT_EQ(rounding({}), (Got{{768, 256, true}}));
  // A variant on another strategy (small_tokens at few T) stays as it is,
  // the WGMMA ones past it are taken as above.
  KernelConfig smallTokens = wgmma(16, 64, 1);
  smallTokens.strategy = KernelStrategy::small_tokens;
  EXPECT_EQ(rounding({smallTokens, wgmma(1024, 128, 2)}),
            (Got{{16, 64, false}, {768, 128, true}, {1024, 128, false}}));
  // Nothing for a GEMM that reads no rounded copies, has no token variants
  // (save=u's gate recomputation), or is off WGMMA.
  GemmShape noCopies = shape;
  noCopies.readsRoundedWeightCopies = false;
  EXPECT_TRUE(roundingTokenVariants(noCopies, {}, base).empty());
  GemmShape noVariants = shape;
  noVariants.tokenVariantsReady = false;
  EXPECT_TRUE(roundingTokenVariants(noVariants, {}, base).empty());
  KernelConfig simt = base;
  simt.strategy = KernelStrategy::simt;
  EXPECT_TRUE(roundingTokenVariants(shape, {}, simt).empty());
}

// The backward's K3 and K4 reading transposed copies: up to T = 512 (the
// default bound) the variants of the op reading the weights as stored,
// transposing in their stages (one serving T on both sides of the bound cut
// there; its kernel_config up to the bound where they end below it); past
// it those reading the copies; where the stored layout takes no WGMMA, the
// copies' variants stay.
TEST(TileSelection, TransposingVariantsUpTo512Tokens) {
  MLIRContext context;
  Builder b(&context);
  GemmShape shape{b.getF32Type(), 1, true, ""};
  shape.precision = Precision::tf32;
  shape.readsTransposedWeightCopies = true;
  shape.tokenVariantsReady = true;
  SmallVector<KernelConfig> copies = {wgmma(128, 64), wgmma(256, 128),
                                      wgmma(512, 128), wgmma(1024, 192)};
  KernelConfig base = wgmma(0, 256), storedBase = wgmma(0, 128);
  // (maxTokens, tileN, transposes) of each variant.
  using Got = SmallVector<std::tuple<int64_t, int64_t, bool>>;
  auto merged = [&](ArrayRef<KernelConfig> stored) {
    Got got;
    for (const KernelConfig &v :
         transposingTokenVariants(shape, copies, stored, base, storedBase))
      got.emplace_back(v.maxTokens, v.tileN, v.transposesInStages);
    return got;
  };
  // The stored layout's variants to the bound, then the copies' past it.
  EXPECT_EQ(merged({wgmma(64, 64), wgmma(192, 64), wgmma(512, 128)}),
            (Got{{64, 64, true},
                 {192, 64, true},
                 {512, 128, true},
                 {1024, 192, false}}));
  // One serving T on both sides of the bound: cut there.
  EXPECT_EQ(merged({wgmma(64, 64), wgmma(1024, 192)}),
            (Got{{64, 64, true}, {512, 192, true}, {1024, 192, false}}));
  SmallVector<KernelConfig> cut = transposingTokenVariants(
      shape, copies, {wgmma(1024, 192)}, base, storedBase);
  EXPECT_EQ(cut[0].reason, "T <= 512: tiles; B's weights transposed in the "
                           "stages (to the transposing bound)");
  // Ending below the bound, or none at all: the stored layout's
  // kernel_config up to it.
  EXPECT_EQ(merged({wgmma(64, 64), wgmma(192, 64)}), (Got{{64, 64, true},
                                                          {192, 64, true},
                                                          {512, 128, true},
                                                          {1024, 192, false}}));
  EXPECT_EQ(merged({}), (Got{{512, 128, true}, {1024, 192, false}}));
  SmallVector<KernelConfig> filled =
      transposingTokenVariants(shape, copies, {}, base, storedBase);
  EXPECT_TRUE(StringRef(filled[0].reason)
                  .starts_with("T <= 512: the stored layout's kernel_config "
                               "tiles; "))
      << filled[0].reason;
  SmallVector<KernelConfig> stored = {wgmma(64, 64), wgmma(192, 64),
                                      wgmma(512, 128)};
  EXPECT_FALSE(base.transposesInStages);
  EXPECT_EQ(base.tileN, 256);
  // The stored layout on no WGMMA: the copies' variants as they were.
  KernelConfig simt = storedBase;
  simt.strategy = KernelStrategy::simt;
  SmallVector<KernelConfig> kept =
      transposingTokenVariants(shape, copies, stored, base, simt);
  ASSERT_EQ(kept.size(), copies.size());
  EXPECT_TRUE(llvm::none_of(
      kept, [](const KernelConfig &c) { return c.transposesInStages; }));
  // tf32x3 (highest too), an op on no transposed copy, or one without
  // token variants (save=u's gate recomputation): the copies'.
  for (auto [precision, copied, variants] :
       {std::tuple(Precision::tf32x3, true, true),
        std::tuple(Precision::highest, true, true),
        std::tuple(Precision::tf32, false, true),
        std::tuple(Precision::tf32, true, false)}) {
    GemmShape other = shape;
    other.precision = precision;
    other.readsTransposedWeightCopies = copied;
    other.tokenVariantsReady = variants;
    kept = transposingTokenVariants(other, copies, stored, base, storedBase);
    ASSERT_EQ(kept.size(), copies.size());
    EXPECT_FALSE(kept[0].transposesInStages);
  }
}

// The split-K workspace: a counter per tile, then 128-byte aligned fp32
// partials per tile and slice.
TEST(TileSelection, SplitKWorkspaceLayout) {
  SplitKWorkspace w = splitKWorkspace(128, 4096, 64, 1, 2);
  EXPECT_EQ(w.counters, 64);
  EXPECT_EQ(w.partialsOffset, 256);
  EXPECT_EQ(w.partialBytes, 128 * 64 * 4);
  EXPECT_EQ(w.bytes, 256 + 64 * 2 * 128 * 64 * 4);
  // Ragged edges round up to whole tiles; two accumulators double a tile.
  w = splitKWorkspace(200, 1000, 64, 2, 3);
  EXPECT_EQ(w.counters, 2 * 16);
  EXPECT_EQ(w.partialsOffset, 128);
  EXPECT_EQ(w.partialBytes, 128 * 64 * 2 * 4);
  EXPECT_EQ(w.bytes, 128 + 32 * 3 * w.partialBytes);
}

// The table's rows against the CUDA Programming Guide's limits and what
// PTX and LLVM 22's NVPTX backend require of each chip.
TEST(Target, TableRows) {
  EXPECT_EQ(target("sm_90a").sharedBytesPerBlock, 232448);
  EXPECT_EQ(target("sm_80").sharedBytesPerBlock, 166912);
  EXPECT_EQ(target("sm_120").sharedBytesPerBlock, 101376);
  EXPECT_EQ(target("sm_120a").sharedBytesPerBlock, 101376);
  // WGMMA is sm_90a's alone; tcgen05 the 'a' Blackwell datacenter parts'.
  for (const Target &row : kTargets) {
    SCOPED_TRACE(std::string(row.chip));
    EXPECT_EQ(row.has(kWgmma), row.chip == "sm_90a");
    EXPECT_EQ(row.has(kTcgen05), row.chip == "sm_100a" || row.chip == "sm_103a");
    EXPECT_TRUE(row.has(kMmaSync));
    EXPECT_EQ(row.tma, row.major >= 9);
    EXPECT_EQ(row.clusters, row.major >= 9);
    EXPECT_EQ(row.archSpecific, row.chip.back() == 'a');
    EXPECT_EQ(row.ptxasArch, row.chip);
    EXPECT_LE(row.sharedBytesPerBlock, row.sharedBytesPerMultiprocessor);
    EXPECT_EQ(findTarget(row.chip), &row);
  }
  // PTX ISA: 8.0 through sm_90a (as always emitted), 8.6 for sm_100a, 8.8
  // for sm_103a, 8.7 for sm_120a (the first versions that know them).
  EXPECT_EQ(target("sm_90a").ptxFeature(), "+ptx80");
  EXPECT_EQ(target("sm_100a").ptxFeature(), "+ptx86");
  EXPECT_EQ(target("sm_103a").ptxFeature(), "+ptx88");
  EXPECT_EQ(target("sm_120a").ptxFeature(), "+ptx87");
  EXPECT_EQ(findTarget("sm_garbage"), nullptr);
  EXPECT_EQ(findTarget("sm_90A"), nullptr);
  EXPECT_EQ(unknownTargetMessage("sm_75"),
            "unknown chip 'sm_75': fmlp knows sm_80, sm_86, sm_89, sm_90, "
            "sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_120, sm_120a");
}

// The chip a device of each compute capability gets: the 'a' form where it
// adds an MMA family, else the plain one; for a capability not listed, the
// plain row of its major just below it (its PTX runs there); none for a
// major not listed.
TEST(Target, ForCapability) {
  auto chipOf = [](int major, int minor) -> std::string {
    const Target *row = targetForCapability(major, minor);
    return row ? std::string(row->chip) : "";
  };
  EXPECT_EQ(chipOf(8, 0), "sm_80");
  EXPECT_EQ(chipOf(8, 6), "sm_86");
  EXPECT_EQ(chipOf(8, 9), "sm_89");
  EXPECT_EQ(chipOf(9, 0), "sm_90a");
  EXPECT_EQ(chipOf(10, 0), "sm_100a");
  EXPECT_EQ(chipOf(10, 3), "sm_103a");
  EXPECT_EQ(chipOf(12, 0), "sm_120");
  EXPECT_EQ(chipOf(8, 7), "sm_86");   // Jetson Orin
  EXPECT_EQ(chipOf(12, 1), "sm_120"); // GB10
  EXPECT_EQ(chipOf(10, 1), "sm_100"); // not sm_100a: its PTX runs on 10.0 only
  EXPECT_EQ(chipOf(7, 5), "");
  EXPECT_EQ(chipOf(7, 0), "");
  EXPECT_EQ(chipOf(11, 0), "");
  EXPECT_EQ(chipOf(8, -1), "");
}

} // namespace
