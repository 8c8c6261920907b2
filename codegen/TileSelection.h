//===- TileSelection.h - Tile and stage choice per kernel -------*- C++ -*-===//
//
// Which kernel strategy a GEMM takes on a target, and its tiles and
// pipeline depth, such that it fits the target's shared memory per block
// and its register file (both from the chip table, fmlp/Target.h). The
// rule:
//
//   WGMMA (targets with wgmma: sm_90a): 16-bit operands contracted in
//     their own format (no precision, or the precision of their type), or
//     fp32 operands contracted on tf32 (tf32's one product each, tf32x3's
//     and highest's three of their split parts), all TMA-addressable
//     (16-byte aligned rows and views); WGMMA reads fp32 operands K-major
//     only, so an MN-major one (the backward's K3..K6; K1 and K2 with [in,
//     out] weights) is transposed into the stages by the producer or read
//     from a K-major copy of the weights (below; codegen/WgmmaGemm.cpp);
//     tile 128 x (256 / accumulators) x one 128-byte
//     row of k (64 16-bit elements, 32 fp32), as many stages (at most 6)
//     as the shared memory takes (a stage's bytes do not depend on the
//     element: 4 of 48 KiB at 256 columns on sm_90a's 232,448 B). When M
//     and N are static (the weight gradients, whose K is T) the grid is
//     known: a narrower tile
//     (192 or 128) is taken when it cuts waves x width, the time of the
//     busiest multiprocessor, by at least 10 %.
//     tf32x3 (and highest's tensor-core products) sums the three products
//     of g k8 steps from zero on the tensor core before each fp32 add to
//     the accumulators (tf32x3GroupK8s): g = 4 for tf32x3; for highest 2
//     over a static K (at most: the longest group whose bound stays within
//     IEEE fp32's for K, getHighestTf32x3MinTerms: 142 terms for 2) and 1
//     over T (the weight gradients: K unknown when the kernel is built).
//     Measured on an H100 at T = 8192 (bench/NOTES.md item 90): groups of
//     4 take 0.75-0.87x the time of single k8s on K1, K2, K3 and K5,
//     groups of 2 0.81-0.94x; on the weight gradients, whose MN-major B
//     the producer splits as it transposes it (item 95), 4 take 0.86-0.89x
//     (2 0.86-0.91x; with B copied by cp.async before session 44, 4 took
//     1.22-1.31x).
//     Each output's error against float64, beside PyTorch strict fp32's:
//     groups of 2 0.36-0.45x at T = 8192 and 0.74-1.10x at T = 74 (single
//     k8s 0.39-0.54x, 0.76-1.26x), groups of 4 over D, H and 2H 0.53-0.62x
//     and 1.16-1.50x, and over T too 0.53-0.58x and 1.41-1.71x (item 97):
//     highest, PyTorch's default, takes the more accurate.
//   Few tokens, variants beside either (fmlp.token_variants, each serving
//   T up to its max_tokens; the kernel_config every larger T):
//   - small_tokens, T <= 16 (and a kernel of 32 tokens for T = 17..32
//     where the WGMMA kernel_config and a time model, smallTokens32-
//     Microseconds, rank it at most 0.9x the WGMMA variant: weights that
//     L2 holds, as at D = 1024): on chips with mma.sync (sm_80 onwards), for
//     a GEMM whose M is T with 16-bit operands contracted in their own
//     format, both stored K-major in 16-byte pieces, K and N multiples
//     of 16 (K1 and K2 with nn.Linear's weights; K3 with [in, out]
//     weights would qualify but is left out until a GPU test runs it),
//     tile 16 x 16 x 32. Below 17 tokens a GEMM streams its weights; the
//     128-row WGMMA tile (or 64-row SIMT tile) would leave most
//     multiprocessors idle and most of its rows empty.
//   - WGMMA token variants, T <= 2048: where the kernel_config is WGMMA,
//     M is T and N and K are static (K1..K4; GemmShape::
//     tokenVariantsReady), each count r of 128-row tiles (T in (128 (r -
//     1), 128 r], r <= 16; fp32 operands in the ranges T <= 128, 256, 512,
//     1024, 2048, which the tf32 variants were measured in) takes the tile
//     width (64, 128, 192, 256 per accumulator, at most 256 columns) and K
//     slices S (1, 2, 4, 8; only K2 without a bias and K4, tiles at most
//     128 wide, width x slices at most 512, slices of at least 4 k-tiles,
//     at most 2 waves) that a time model (wgmmaMicroseconds) gives the
//     least time (summed over a range's row tiles), where that is at most
//     0.9x the kernel_config's. Per count, not per range: the model ranks
//     each count's widths as measured, and a range's shared choice left
//     K1 at (1024, 2816), T = 384 on 66 blocks of 132 multiprocessors
//     (10.6 us at 64 columns a gate and up against 15.2; H100,
//     bench/NOTES.md item 103). The model: the
//     busiest multiprocessor's time, waves x (a wave's fixed cost + k-tiles per
//     block x a k-tile's time, the longer of its products (per column) and its
//     loads (per row of A and B)), plus split-K's fixed cost and its partials
//     read back, but never below the bytes read once at HBM speed; its five
//     constants fitted to 216 per-kernel times on the H200 (bench/NOTES.md
//     item 55; bench/fit_token_tiles.py), among which it picks the
//     measured fastest of up to 7 configurations in 39 of 40 (kernel,
//     shape, T) cases, the other within 3 %. Few
//     tokens want narrow tiles or split K (at D = 4096, T <= 128, K2's
//     tiles of 256 are 16 blocks on 132 multiprocessors); a few hundred a
//     width that ends in a full wave; thousands the widest tiles, whose
//     loads per product are fewest. Adjacent ranges with one config are
//     one variant; ranges past the last that differs from the
//     kernel_config are its own. Each tile's last slice adds the fp32
//     partials in slice order and runs the epilogue (deterministic:
//     codegen/WgmmaGemm.cpp).
//   - tf32 with its operands rounded to nearest (fmlp-round-tf32-weights:
//     each weight a WGMMA kernel reads as B copied, rounded, once per
//     call; GemmShape::readsRoundedWeightCopies): the WGMMA token variants
//     serving T <= 768 (--fmlp-tf32-round-in-stages-max-tokens; 0: none,
//     -1: the kernel_config too) read the weights as stored and round B in
//     their stages (KernelConfig::roundsInStages: the producer rewrites
//     each word rna(x) in place, WgmmaGemm.cpp), the kernel_config's tiles
//     serving as such a variant up to the bound where the rule's variants
//     end below it (a variant straddling it is split there), and the
//     copies are made only for the T a kernel reads them at. At T = 1 a
//     copy reads and writes the weights once more than the GEMMs read
//     them (2.8x the no-grad forward's time at (4096, 11008) on an H100,
//     bench/NOTES.md item 84; rounding in the stages brings it back to
//     1.02x the truncating kernels', item 85); from about a thousand T
//     the kernels are bound by shared memory's bandwidth, of which the
//     producer's pass over each stage (a read and a write of B's tile
//     besides TMA's write and each consumer's WGMMA reads) costs more than
//     the copy (the no-grad forward 0.88-0.92x at T = 513 .. 768, about
//     1.0x at 896, 1.02x at 1024; every kernel rounding, 1.24x at 2048,
//     1.26x at 8192: item 87).
//   - tf32 on WGMMA where a kernel reads the weights MN-major (the
//     backward's K3 and K4; K1 and K2 where the weights are stored [in,
//     out]; GemmShape::readsTransposedWeightCopies: they read the K-major
//     copies fmlp-transpose-weights makes once per call): the token variants
//     serving T <= 512 (--fmlp-transpose-in-stages-max-tokens; 0: none, -1:
//     the kernel_config too) are those of the op reading the weights as
//     stored and transposing them in the landing slots
//     (KernelConfig::transposesInStages; their tiles and stages chosen for
//     that layout; its kernel_config's up to the bound where its variants
//     end below it), and the copies are made only for the T a kernel reads
//     them at. At few T the copies read and write the weights once more
//     than the GEMMs read them: the training step at (4096, 11008) took
//     1.49x the time of transposing in the stages at T = 1, 1.21x at 256,
//     1.00x at 512, 0.94x at 1024; [in, out] weights at (1024, 2816): the
//     no-grad forward 1.15x at T = 1 and 16, the step 1.63x at T = 1 (H100,
//     bench/NOTES.md item 86). Not for
//     tf32x3, whose three products per pair make the stages' pass cost
//     more than the copies (1.02-1.03x the step at (1024, 2816), T <= 256).
//   mma_sync (chips with mma.sync but no WGMMA: sm_80, sm_86, sm_89, sm_90,
//     sm_100[a], sm_103[a], sm_120[a]; on sm_90a where WGMMA's TMA cannot
//     read an operand, for fp32 operands contracted as tf32x3 or highest,
//     and for tf32 ones not both K-major): 16-bit
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

#include "codegen/KernelBuilder.h"
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
  /// WGMMA, tf32 rounded: B read as stored and rounded in the stages
  /// (WgmmaGemmSpec::roundsBInStages), not from rounded copies.
  bool roundsInStages = false;
  /// WGMMA, fp32: B's weights read as stored, MN-major, and transposed in
  /// the landing slots (WgmmaGemm.cpp), not from the K-major copies of
  /// fmlp-transpose-weights.
  bool transposesInStages = false;
  /// mma_sync: the operands loaded into the ring by TMA (MmaSyncGemmSpec::
  /// tma), not by every thread's cp.async.
  bool stagesByTma = false;
  /// Reads weights as stored where the op names their per-call copies.
  bool readsStoredWeights() const {
    return roundsInStages || transposesInStages;
  }

  /// The same kernel (everything but the range of T it serves and why).
  /// A split-K kernel's workspace grows with the T it serves, so the range
  /// matters there; ConvertFMLPToNVVM shares a kernel only with the
  /// kernel_config's, which never splits K.
  bool sameKernel(const KernelConfig &other) const;

  KernelConfigAttr toAttr(MLIRContext *context) const;
  static KernelConfig fromAttr(KernelConfigAttr attr);
};

/// What the selection needs to know of one GEMM.
struct GemmShape {
  Type element;
  unsigned accumulators = 1;
  /// Every operand TMA-addressable (16-byte aligned rows and views) in a
  /// layout the WGMMA strategy reads (planTma).
  bool tmaReady = false;
  std::string notTmaReady; // why not, when !tmaReady
  /// M and N when both are static (0 when either is T).
  int64_t rows = 0, cols = 0;
  /// M is T and the operands suit the small_tokens kernel (its rule above).
  bool smallTokensReady = false;
  std::string notSmallTokensReady; // why not, when !smallTokensReady
  /// M is T and its kernel is verified at every WGMMA tile width (K1..K4):
  /// WGMMA token variants per count of row tiles, where N and K are static.
  bool tokenVariantsReady = false;
  /// N and K when static (0 when T): the token variants need both;
  /// `highest` takes tensor cores for a static K of at least
  /// kHighestTf32x3MinTerms.
  int64_t n = 0, k = 0;
  /// Whether its token variants may split K: one accumulator and an
  /// epilogue that only stores (K2 without a bias, K4; SelectTiles.cpp).
  bool splitKReady = false;
  /// Every operand part one buffer (or two split at a multiple of 8 along
  /// its contiguous index) with a unit stride along one index and 16-byte
  /// aligned rows and offset: the mma_sync strategy stages it by cp.async.
  bool mmaSyncReady = false;
  std::string notMmaSyncReady; // why not, when !mmaSyncReady
  /// The contractions' operand format (the block's precision attribute);
  /// without one, that of the element type (bf16, f16, ieee for f32).
  std::optional<Precision> precision;
  /// Whether A and each B_j are K-major in memory (an MN-major fp32 one
  /// takes the WGMMA kernel's landing slots: wgmmaSharedBytes).
  bool aKMajor = true;
  SmallVector<bool, 2> bKMajor; // one per accumulator; empty: all K-major
  /// Its tf32 products take rounded operands (fmlp-round-tf32-weights),
  /// every B_j a rounded copy of a weight and A K-major: a WGMMA kernel
  /// may read the weights as stored and round B in its stages instead
  /// (KernelConfig::roundsInStages; the rule above).
  bool readsRoundedWeightCopies = false;
  /// fp32, every B_j a K-major copy of a weight that the op would read
  /// MN-major as stored (fmlp-transpose-weights; A K-major): a WGMMA
  /// kernel may read the weights and transpose them in its landing slots
  /// instead (KernelConfig::transposesInStages; the rule above).
  bool readsTransposedWeightCopies = false;
  /// Its tf32 products take operands rounded to nearest (fmlp-round-tf32-
  /// weights marked it): where the WGMMA kernel rounds an MN-major A in
  /// registers as stored (--fmlp-mn-major-a-in-registers=all), A takes no
  /// landing slot (wgmmaSharedBytes).
  bool tf32Rounded = false;
};

/// Which strategies the rule may take (fmlp-select-tiles' `strategy`):
/// every one (auto), or mma_sync or simt in place of the faster ones, so
/// that one chip (the H200) can run the kernels another gets.
enum class StrategyChoice { automatic, mmaSync, simt };

/// The choice a pass option names: "auto", "mma_sync" or "simt"; nullopt
/// for anything else.
std::optional<StrategyChoice> parseStrategyChoice(llvm::StringRef name);

/// The WGMMA kernel of `shape` as far as its shared memory goes (element,
/// layouts, tile width, stages): for wgmmaSharedBytes.
WgmmaGemmSpec wgmmaFootprint(const GemmShape &shape, int64_t tileN,
                             int64_t stages);

/// tf32x3 on WGMMA: the k8 steps a kernel of `precision` (tf32x3, or
/// highest's products) over `k` terms (0: K = T) sums from zero on the
/// tensor core, three products each, before each fp32 add to its
/// accumulators (WgmmaGemmSpec::tf32x3GroupK8s; the rule above).
int64_t tf32x3GroupK8s(Precision precision, int64_t k);

KernelConfig selectGemmConfig(const Target &target, const GemmShape &shape,
                              StrategyChoice choice = StrategyChoice::automatic);
/// The time model's microseconds for one launch of `shape`'s WGMMA kernel
/// at `tokens` rows with tiles `tileN` wide per accumulator and K in
/// `splitK` slices (the rule in this file's comment; N and K static).
double wgmmaMicroseconds(const Target &target, const GemmShape &shape,
                         int64_t tokens, int64_t tileN, int64_t splitK);
/// The variants for launches of few tokens beside `base` (the shape's
/// selectGemmConfig), ascending by maxTokens; empty when the rule gives
/// none.
SmallVector<KernelConfig> selectTokenVariants(const Target &target,
                                              const GemmShape &shape,
                                              const KernelConfig &base);
/// Whether `config` (the kernel_config or a token variant of `shape`)
/// reads the weights as stored and rounds B in its stages (the rule
/// above).
bool roundsTf32InStages(const GemmShape &shape, const KernelConfig &config);
/// `variants` (selectTokenVariants of `shape`) with every T up to the
/// rounding bound that a WGMMA variant or `base` would serve served by a
/// WGMMA variant that rounds in its stages, where `shape` reads rounded
/// weight copies on WGMMA: a variant serving T on both sides of the bound
/// split at it, and `base`'s tiles as a variant up to the bound where the
/// variants end below it (the rule above). Not applied to the fixed tiles
/// of --fmlp-token-tiles (A/B runs: they round where they end within the
/// bound).
SmallVector<KernelConfig> roundingTokenVariants(const GemmShape &shape,
                                                ArrayRef<KernelConfig> variants,
                                                const KernelConfig &base);
/// The token variants of an op that reads transposed copies of weights
/// (GemmShape::readsTransposedWeightCopies): `stored`, the variants of the
/// op reading the weights as stored (selectTokenVariants of that shape),
/// for T up to the bound (--fmlp-transpose-in-stages-max-tokens: the WGMMA
/// ones up to it, marked transposesInStages, one serving T on both sides
/// cut at it; where they end below it, storedBase up to it), then
/// `copies`, those of the op as it is, for the T beyond. With the bound at -1,
/// `stored` and `storedBase` serve every T and `base` becomes storedBase,
/// transposing too. Only where the products are tf32: tf32x3's three products
/// per pair make the stages' transposition cost more than the copies at few T
/// (bench/NOTES.md item 86).
SmallVector<KernelConfig>
transposingTokenVariants(const GemmShape &shape, ArrayRef<KernelConfig> copies,
                         ArrayRef<KernelConfig> stored, KernelConfig &base,
                         const KernelConfig &storedBase);
/// The WGMMA variant of `shape` serving T up to `maxTokens` with tiles
/// `tileN` wide per accumulator and K in `splitK` slices, or nullopt when two
/// stages do not fit the target: for A/B runs that fix the variants
/// (fmlp-select-tiles' --fmlp-token-tiles).
std::optional<KernelConfig> wgmmaTokenVariant(const Target &target,
                                              const GemmShape &shape,
                                              int64_t tileN, int64_t splitK,
                                              int64_t maxTokens);

} // namespace mlir::fmlp

#endif // FMLP_CODEGEN_TILESELECTION_H
