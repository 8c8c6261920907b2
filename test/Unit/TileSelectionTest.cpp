//===- TileSelectionTest.cpp - fmlp-select-tiles' rule --------------------===//
//
// Every configuration the selection can return fits its chip: shared memory
// per block within the limit, the register cap within the register file,
// WGMMA only where the chip, the precision and the operands allow it, and
// as many pipeline stages as fit.
//
//===----------------------------------------------------------------------===//

#include "lib/CodeGen/TileSelection.h"
#include "lib/CodeGen/KernelBuilder.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

TEST(TileSelection, EveryConfigurationFitsItsChip) {
  MLIRContext context;
  Builder b(&context);
  unsigned wgmmaCount = 0, simtCount = 0;
  for (StringRef chip :
       {"sm_90a", "sm_90", "sm_80", "sm_86", "sm_89", "sm_120", "sm_75"}) {
    int64_t limit = sharedMemoryPerBlock(chip);
    for (Type element :
         {Type(b.getBF16Type()), Type(b.getF16Type()), Type(b.getF32Type())})
      for (unsigned accumulators : {1u, 2u})
        for (bool tmaReady : {true, false}) {
          GemmShape shape{element, accumulators, tmaReady,
                          tmaReady ? "" : "x is not K-major"};
          KernelConfig c = selectGemmConfig(chip, shape);
          SCOPED_TRACE((chip + " " + std::to_string(accumulators) + " acc " +
                        (tmaReady ? "tma" : "no tma"))
                           .str());
          EXPECT_LE(c.sharedBytes, limit);
          EXPECT_GT(c.sharedBytes, 0);
          int64_t threads = c.path == KernelPath::Wgmma ? 384 : 256;
          EXPECT_LE(c.maxRegisters * threads, 65536);
          EXPECT_LE(c.maxRegisters, 255);
          bool wgmmaAllowed = chip == "sm_90a" && !element.isF32() && tmaReady;
          EXPECT_EQ(c.path == KernelPath::Wgmma, wgmmaAllowed) << c.reason;
          EXPECT_FALSE(c.reason.empty());
          if (c.path == KernelPath::Wgmma) {
            ++wgmmaCount;
            EXPECT_EQ(c.tileN * accumulators, 256); // T-dependent grid
            EXPECT_EQ(c.tileM, 128);
            EXPECT_GE(c.stages, 2);
            // Maximal: one more stage would not fit (or the cap of 6).
            WgmmaGemmSpec more;
            more.b.resize(accumulators);
            more.tileN = c.tileN;
            more.stages = c.stages + 1;
            EXPECT_TRUE(c.stages == 6 || wgmmaSharedBytes(more) > limit);
          } else {
            ++simtCount;
            EXPECT_EQ(c.tileM, 64);
            EXPECT_EQ(c.sharedBytes, (1 + accumulators) * 64 * 16 * 4);
          }
          // The record on the op reads back the same.
          std::optional<KernelConfig> back =
              KernelConfig::fromAttr(c.toAttr(&context));
          ASSERT_TRUE(back.has_value());
          EXPECT_EQ(back->path, c.path);
          EXPECT_EQ(back->stages, c.stages);
          EXPECT_EQ(back->tileN, c.tileN);
          EXPECT_EQ(back->reason, c.reason);
        }
  }
  EXPECT_EQ(wgmmaCount, 4u); // sm_90a, bf16/f16, 1/2 accumulators, TMA
  EXPECT_GT(simtCount, 0u);
}

TEST(TileSelection, ReasonsNameWhatRuledWgmmaOut) {
  MLIRContext context;
  Builder b(&context);
  EXPECT_EQ(selectGemmConfig("sm_80", {b.getBF16Type(), 1, true, ""}).reason,
            "sm_80 has no WGMMA");
  EXPECT_EQ(selectGemmConfig("sm_90a", {b.getF32Type(), 1, true, ""}).reason,
            "fp32 operands take the IEEE fp32 SIMT path");
  EXPECT_EQ(selectGemmConfig("sm_90a", {b.getBF16Type(), 1, false, "dy is odd"})
                .reason,
            "dy is odd");
}

// With M and N static the tile width follows the waves on 132
// multiprocessors: waves x width is the busiest multiprocessor's work.
TEST(TileSelection, StaticGridsChooseTheWidthByWaves) {
  MLIRContext context;
  Builder b(&context);
  auto tileN = [&](unsigned accumulators, int64_t rows, int64_t cols) {
    GemmShape shape{b.getBF16Type(), accumulators, true, "", rows, cols};
    KernelConfig c = selectGemmConfig("sm_90a", shape);
    EXPECT_EQ(c.path, KernelPath::Wgmma);
    EXPECT_LE(c.sharedBytes, sharedMemoryPerBlock("sm_90a"));
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
  EXPECT_EQ(multiprocessorCount("sm_90a"), 132);
}

TEST(TileSelection, SharedMemoryLimits) {
  EXPECT_EQ(sharedMemoryPerBlock("sm_90a"), 232448);
  EXPECT_EQ(sharedMemoryPerBlock("sm_80"), 166912);
  EXPECT_EQ(sharedMemoryPerBlock("sm_120"), 101376);
}

} // namespace
