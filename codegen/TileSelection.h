//===- TileSelection.h - Tile and stage choice per kernel -------*- C++ -*-===//
//
// Which kernel strategy a GEMM takes on a target, and its tiles and
// pipeline depth, such that it fits the target's shared memory per block
// and its register file (both from the chip table, fmlp/Target.h). The
// rule:
//
//   WGMMA (targets with wgmma: sm_90a): 16-bit operands contracted in
//     their own format (no precision, or the precision of their type),
//     both K-major and TMA-addressable (16-byte aligned rows
//     and views); tile 128 x (256 / accumulators) x 64, as many stages (at
//     most 6) as the shared memory takes. When M and N are static (the
//     weight gradients, whose K is T) the grid is known: a narrower tile
//     (192 or 128) is taken when it cuts waves x width, the time of the
//     busiest multiprocessor, by at least 10 %.
//   Few tokens, variants beside either (fmlp.token_variants, each serving
//   T up to its max_tokens; the kernel_config every larger T):
//   - small_tokens, T <= 16: on chips with mma.sync (sm_80 onwards), for
//     a GEMM whose M is T with 16-bit operands contracted in their own
//     format, both stored K-major in 16-byte pieces, K a multiple of 32
//     and N of 16 (K1 and K2 with nn.Linear's weights; K3 with [in, out]
//     weights would qualify but is left out until a GPU test runs it),
//     tile 16 x 16 x 32. Below 17 tokens a GEMM streams its weights; the
//     128-row WGMMA tile (or 64-row SIMT tile) would leave most
//     multiprocessors idle and most of its rows empty.
//   - narrow WGMMA tiles, T <= 256: where the kernel_config is WGMMA and
//     the GEMM has one accumulator and an epilogue that only stores (K2,
//     K4; GemmShape::narrowTilesForFewTokens), tile 128 x 64 x 64: at a
//     few hundred tokens a 256-wide tile gives N / 256 blocks (16 at
//     D = 4096), too few to stream the weights at full bandwidth.
//     Measured on the H200 (bench/NOTES.md item 47): K2 and K4 0.41-0.57x
//     the 256-wide time at T = 64 and 256, but 1.5x at T = 1024.
//     Split-K (selectSplitK): with N and K static, each range of row tiles
//     (T <= 128: one, T <= 256: two) takes the S that makes the grid's
//     time, waves x K per block ~ ceil(B S / P) / S (B blocks of one row of
//     tiles times the row tiles, P multiprocessors of the target table, one
//     block each), least, the smaller S on a tie; S is at most 2 waves' worth
//     (B S <= 2 P) and leaves each slice at least 4 k-tiles (K / S >= 256).
//     D = 4096 (N / 64 = 64 blocks a row of tiles) on 132 multiprocessors:
//     S = 2 at T <= 128 (128 blocks, half of K each), none at T <= 256
//     (128 blocks already); D = 1024 (16): S = 8 at T <= 128, 4 at
//     T <= 256. The two ranges are one variant where their S agree. Each
//     tile's last slice adds the fp32 partials in slice order and runs the
//     epilogue (deterministic: codegen/WgmmaGemm.cpp).
//   mma_sync (chips with mma.sync but no WGMMA: sm_80, sm_86, sm_89, sm_90,
//     sm_100[a], sm_103[a], sm_120[a]; on sm_90a where WGMMA's TMA cannot
//     read an operand, or for fp32 operands contracted on tf32): 16-bit
//     operands contracted in their own format, or fp32 ones with precision
//     tf32 or tf32x3 (m16n8k8), each part with a unit stride along one
//     index (K or M/N) and 16-byte aligned rows and offset (cp.async
//     pieces); tile 128 x 256 (256 / accumulators per accumulator), one
//     block of 8 warps per multiprocessor; k-tiles of 128-byte rows (64
//     16-bit elements, 32 fp32) where three stages of 48 KiB fit (sm_80:
//     3, sm_90, sm_100, sm_103: 4), else of 64-byte rows (sm_86, sm_89,
//     sm_120: 4 stages of 24 KiB). Measured on the H200 (bench/NOTES.md
//     item 49): k-tiles of 64 take 0.86-0.99x the time of 32 at (4096,
//     11008), T = 8192. tf32x3 takes tiles of 128 columns (64 accumulators
//     a thread: registers for each step's sum, added in fp32) and 64-byte
//     rows (bench/NOTES.md item 50). Precision `highest` (IEEE fp32's
//     accuracy) takes it as tf32x3 where the contraction has at least 84
//     terms (kHighestTf32x3MinTerms: tf32x3's bound is within fp32's from
//     there on); with K = T (the weight gradients) a SIMT variant serves
//     T < 84.
//   SIMT otherwise: fp32 FMA, 64 x 64 x 16 tiles, any chip, any strides;
//     fp32 operands contracted as ieee (and highest's of fewer than 84
//     terms), and tf32 ones the mma_sync
//     strategy cannot stage (computed as IEEE fp32: never less accurate
//     than asked).
//
// fmlp-select-tiles records the choice on each kernel op as a typed
// #fmlp.kernel_config; convert-fmlp-to-nvvm follows it.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_CODEGEN_TILESELECTION_H
#define FMLP_CODEGEN_TILESELECTION_H

#include "dialects/FMLP/FMLPAttrs.h"
#include "fmlp/Target.h"

#include "mlir/IR/Types.h"

#include <cstdint>
#include <string>

namespace mlir::fmlp {

struct KernelConfig {
  KernelStrategy strategy = KernelStrategy::simt;
  int64_t tileM = 64, tileN = 64, tileK = 16, stages = 1;
  int64_t clusterM = 1, clusterN = 1;
  /// Per block: the ring (or SIMT tiles) and its barriers. The WGMMA
  /// lowering may add an epilogue hand-off area past the ring where it fits
  /// (WgmmaGemm.cpp, StagingPlan); a bundle's manifest has the launch's
  /// exact dynamic shared bytes.
  int64_t sharedBytes = 0;
  int64_t maxRegisters = 0; // per thread
  std::string reason;       // why this strategy (for remarks and tests)
  /// The largest T it serves, as a variant for few tokens (0: any T).
  int64_t maxTokens = 0;
  /// WGMMA: the K slices, one block each (WgmmaGemmSpec::splitK).
  int64_t splitK = 1;

  KernelConfigAttr toAttr(MLIRContext *context) const;
  static KernelConfig fromAttr(KernelConfigAttr attr);
};

/// What the selection needs to know of one GEMM.
struct GemmShape {
  Type element;
  unsigned accumulators = 1;
  /// Both operands K-major with 16-byte aligned rows and views (TMA boxes).
  bool tmaReady = false;
  std::string notTmaReady; // why not, when !tmaReady
  /// M and N when both are static (0 when either is T).
  int64_t rows = 0, cols = 0;
  /// M is T and the operands suit the small_tokens kernel (its rule above).
  bool smallTokensReady = false;
  std::string notSmallTokensReady; // why not, when !smallTokensReady
  /// M is T, one accumulator, and its epilogue only stores (K2, K4): the
  /// WGMMA kernels that take narrow tiles at a few hundred tokens.
  bool narrowTilesForFewTokens = false;
  /// N and K when static (0 when T): split-K needs both; `highest` takes
  /// tensor cores for a static K of at least kHighestTf32x3MinTerms.
  int64_t n = 0, k = 0;
  /// Whether the narrow variants may split K (SelectTiles.cpp says when
  /// not).
  bool splitKReady = true;
  /// Every operand part one buffer (or two split at a multiple of 8 along
  /// its contiguous index) with a unit stride along one index and 16-byte
  /// aligned rows and offset: the mma_sync strategy stages it by cp.async.
  bool mmaSyncReady = false;
  std::string notMmaSyncReady; // why not, when !mmaSyncReady
  /// The contractions' operand format (the block's precision attribute);
  /// without one, that of the element type (bf16, f16, ieee for f32).
  std::optional<Precision> precision;
};

/// Which strategies the rule may take (fmlp-select-tiles' `strategy`):
/// every one (auto), or mma_sync or simt in place of the faster ones, so
/// that one chip (the H200) can run the kernels another gets.
enum class StrategyChoice { automatic, mmaSync, simt };

KernelConfig selectGemmConfig(const Target &target, const GemmShape &shape,
                              StrategyChoice choice = StrategyChoice::automatic);
/// The variants for launches of few tokens beside `base` (the shape's
/// selectGemmConfig), ascending by maxTokens; empty when the rule gives
/// none.
/// The K slices of a WGMMA grid of `blocks` tiles (one block per
/// multiprocessor: 384 threads x 168 registers) whose K has `kTiles` tiles
/// of 64: the rule in this file's comment.
int64_t selectSplitK(const Target &target, int64_t blocks, int64_t kTiles);
SmallVector<KernelConfig> selectTokenVariants(const Target &target,
                                              const GemmShape &shape,
                                              const KernelConfig &base);

} // namespace mlir::fmlp

#endif // FMLP_CODEGEN_TILESELECTION_H
