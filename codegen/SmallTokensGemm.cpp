//===- SmallTokensGemm.cpp - GEMMs of a few tokens on mma.sync ------------===//
//
// buildSmallTokensGemm (KernelBuilder.h): C(t, n) = sum_k x(t, k) W_j(n, k)
// for T <= 16 tokens (32 where the rule takes it; 64 for A/B runs), at
// the speed of reading the weights. With so few tokens the GEMM is a
// stream of W: the kernel computes its transpose, C^T = W x^T, so that
// the weights are mma.sync's A operand (16 rows of n) and the tokens its
// N = 8 (token tiles of 8: tokens 0-7, 8-15, ...).
//
// Block: W = 8 R warps on 16 R output columns n0 .. n0 + 16 R - 1 (grid:
// N / (16 R) blocks; R = spec.tileN / 16 row tiles, 1 or 2: with 2, K is
// split twice as finely, so a multiprocessor runs as many warps on as
// many weight bytes, and each token piece serves twice the weight rows:
// the tokens are read half as often); warp w takes the chunks [w C / W,
// (w + 1) C / W) of the C = ceil(K / 32) chunks of 32 k, reads them as
// 16-byte pieces straight into registers and multiplies (where K is 16
// more than a multiple of 32, the pieces of the last chunk past K read
// k = 0 and count as zeros); the W partial sums are added in shared memory
// in warp order (deterministic; one weight at a time where all of them
// exceed 48 KiB: K1 at R = 2), and each thread runs the epilogue of one
// (token, n).
//
// Operands in registers without shuffles: the sum over k does not depend
// on the order of k, so A and B only need to agree on which k each of
// their fragment registers holds. In chunk u, thread (g = lane / 4,
// q = lane mod 4) loads the 8 elements at k = 32 u + 8 q .. + 7 of W rows
// n0 + 16 r + g and n0 + 16 r + g + 8 (r < R) and of tokens g, g + 8, ...,
// one 16-byte piece each;
// its 32-bit word 2 s + i (i = 0, 1) is the fragment register of the
// m16n8k16 k positions {2 q, 2 q + 1} (i = 0) or {2 q + 8, 2 q + 9} (i = 1)
// of the chunk's step s = 0, 1 (PTX ISA, "Matrix Fragments for
// mma.m16n8k16"): both operands map k position p of step s of thread q to
// the same k, so every product pairs the right elements. An operand of
// parts concatenated along k (an adapter's [x | Z] and [Wg | Bg]) reads
// each piece from the part its k lies in (MatrixView::further; parts start
// at multiples of a piece).
//
//===----------------------------------------------------------------------===//

#include "codegen/CheckedOption.h"
#include "codegen/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace mlir::fmlp;

// A tuning knob for A/B runs on a GPU (bench/compare_bundles.py; the
// register cap beside it is tile selection's, recorded in the config); the
// default is the measured choice.
namespace {
struct PiecesInFlight {
  static bool accepts(int n) { return n >= 1 && n <= 8; }
  static constexpr const char *expected = "1 to 8";
};
} // namespace
static llvm::cl::opt<int, false, CheckedIntParser<PiecesInFlight>>
    piecesInFlight(
        "fmlp-small-tokens-pieces", llvm::cl::Hidden, llvm::cl::init(4),
        llvm::cl::desc("small_tokens kernels: 16-byte weight-row pairs each "
                       "warp loads before multiplying (divided among the "
                       "weights' row tiles), 1 to 8"));

// The weights' loads: each 16-byte piece is read once by one thread of
// the grid and never again, and a row's next pieces are the next chunk's,
// so the load asks L2 to fetch the whole 128-byte line from memory
// (.L2::128B). Measured on the H200 at (4096, 11008), T = 1, 4, 16, raw
// launches against plain loads in the same run (bench/NOTES.md item 69):
// the no-grad forward 0.94-0.96x the time with .L2::128B, 0.97-0.98x with
// .L2::256B, 1.00x with .L2::64B; skipping L1 as well (.L1::no_allocate)
// gave the no-grad forward 0.94x but the training step 1.01x (alone:
// 0.97-1.00x and 1.02x), so it stays off; `skip-nograd` skips it in the
// no-grad forward's kernels only (an A/B knob, not measured yet).
namespace {
struct PrefetchBytes {
  static bool accepts(int n) {
    return n == 0 || n == 64 || n == 128 || n == 256;
  }
  static constexpr const char *expected = "0, 64, 128 or 256";
};
} // namespace
static llvm::cl::opt<int, false, CheckedIntParser<PrefetchBytes>>
    weightPrefetchBytes(
        "fmlp-small-tokens-l2-prefetch", llvm::cl::Hidden, llvm::cl::init(128),
        llvm::cl::desc("small_tokens kernels: the L2 prefetch size of the "
                       "weights' loads (ld's .L2::<n>B), 0 for none"));
namespace {
enum class WeightsL1 { allocate, skip, skipNoGrad };
} // namespace
static llvm::cl::opt<WeightsL1> weightsL1(
    "fmlp-small-tokens-weights-l1", llvm::cl::Hidden,
    llvm::cl::init(WeightsL1::allocate),
    llvm::cl::desc("small_tokens kernels: whether the weights' loads "
                   "allocate in L1"),
    llvm::cl::values(
        clEnumValN(WeightsL1::allocate, "allocate", "as plain loads do"),
        clEnumValN(WeightsL1::skip, "skip", "ld's .L1::no_allocate"),
        clEnumValN(WeightsL1::skipNoGrad, "skip-nograd",
                   ".L1::no_allocate in the no-grad forward's kernels")));

namespace {

/// One chunk's pieces: W_j rows n0 + 16 r + g, n0 + 16 r + g + 8, and x
/// rows g + 8 i.
struct Chunk {
  SmallVector<std::array<Value, 2>> weights; // [j R + r], vector<4xi32> each
  SmallVector<Value> tokens;                 // one per token tile
};

class SmallTokens {
public:
  SmallTokens(KernelBuilder &kb, const SmallTokensGemmSpec &spec)
      : kb(kb), spec(spec), b(kb.b), loc(kb.loc), i32(b.getI32Type()),
        piece(VectorType::get({4}, i32)), tokenTiles(spec.tokens / 8),
        rowTiles(spec.tileN / kSmallTokensTileN),
        warps(smallTokensThreads(spec.tileN) / 32), tokenRows(tokenTiles),
        hasToken(tokenTiles) {}

  void build() {
    Value tid = kb.threadIdX();
    Value warp = kb.udiv(tid, 32), lane = kb.urem(tid, 32);
    Value g = kb.toI64(kb.udiv(lane, 4));
    q8 = kb.toI64(kb.mul(kb.urem(lane, 4), kb.i32(8)));
    n0 = kb.toI64(kb.mul(kb.blockId(0), kb.i32(spec.tileN)));
    for (int64_t i = 0; i < 2 * rowTiles; ++i)
      rows.push_back(kb.add(n0, kb.add(g, kb.i64(8 * i))));
    // Tokens past T read row T - 1 (in bounds) and use zeros instead.
    Value last = kb.add(kb.tokens(), kb.i64(-1));
    for (int64_t i = 0; i < tokenTiles; ++i) {
      Value token = kb.add(g, kb.i64(8 * i));
      tokenRows[i] = arith::MinSIOp::create(b, loc, token, last);
      hasToken[i] = kb.lessThan(token, kb.tokens());
    }

    // This warp's chunks, U at a time, then one at a time (U halved at 64
    // tokens: a chunk's 8 token pieces take as many registers as its
    // weights' pieces).
    int64_t chunks = llvm::divideCeil(spec.k, kSmallTokensChunk);
    int64_t unroll = std::max<int64_t>(
        1, piecesInFlight / (int64_t(spec.b.size()) * rowTiles *
                             std::max<int64_t>(1, spec.tokens / 32)));
    Value begin = kb.udiv(kb.mul(warp, kb.i32(chunks)), warps);
    Value end = kb.udiv(kb.mul(kb.add(warp, kb.i32(1)), kb.i32(chunks)), warps);
    Value whole = kb.add(
        begin, kb.mul(kb.udiv(arith::SubIOp::create(b, loc, end, begin),
                              unroll),
                      kb.i32(unroll)));
    SmallVector<Value> acc(spec.b.size() * rowTiles * tokenTiles,
                           LLVM::ZeroOp::create(b, loc, accumulatorType()));
    acc = loop(begin, whole, unroll, acc);
    acc = loop(whole, end, 1, acc);
    reduceAndFinish(tid, warp, lane, acc);
  }

private:
  Type accumulatorType() { return mmaAccumulatorType(b.getContext()); }

  /// Chunks [from, to) in steps of `step`, each step's loads before its
  /// MMAs.
  SmallVector<Value> loop(Value from, Value to, int64_t step,
                          ArrayRef<Value> acc) {
    auto forOp = scf::ForOp::create(b, loc, from, to, kb.i32(step), acc);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forOp.getBody());
    SmallVector<Chunk> loaded;
    for (int64_t u = 0; u < step; ++u)
      loaded.push_back(load(kb.add(forOp.getInductionVar(), kb.i32(u))));
    SmallVector<Value> sums(forOp.getRegionIterArgs());
    for (const Chunk &chunk : loaded)
      multiply(chunk, sums);
    scf::YieldOp::create(b, loc, sums);
    return SmallVector<Value>(forOp.getResults());
  }

  Value loadPiece(const MatrixView &view, Value row, Value k) {
    return LLVM::LoadOp::create(b, loc, piece, kb.address(view, row, k),
                                /*alignment=*/16);
  }

  /// A weight piece, with the cache qualifiers above (LLVM's load has no
  /// way to say them: inline PTX). `.nc` as LLVM gives the plain load: no
  /// kernel writes its weights. The asm has side effects so that it stays
  /// after griddepcontrol.wait (a previous kernel, an optimizer's step, may
  /// have written the weights).
  Value loadWeightPiece(const MatrixView &view, Value row, Value k) {
    bool skipL1 = weightsL1 == WeightsL1::skip ||
                  (weightsL1 == WeightsL1::skipNoGrad && spec.noGradForward);
    if (weightPrefetchBytes == 0 && !skipL1)
      return loadPiece(view, row, k);
    std::string qualifiers;
    if (skipL1)
      qualifiers += ".L1::no_allocate";
    if (weightPrefetchBytes)
      qualifiers += ".L2::" + std::to_string(weightPrefetchBytes) + "B";
    auto words = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                  SmallVector<Type>(4, i32));
    auto asmOp = LLVM::InlineAsmOp::create(
        b, loc, words, ValueRange{kb.address(view, row, k)},
        "ld.global.nc" + qualifiers + ".v4.b32 {$0, $1, $2, $3}, [$4];",
        "=r,=r,=r,=r,l", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
        ArrayAttr());
    Value vector = LLVM::PoisonOp::create(b, loc, piece);
    for (int64_t w = 0; w < 4; ++w)
      vector = LLVM::InsertElementOp::create(
          b, loc, vector,
          LLVM::ExtractValueOp::create(b, loc, asmOp.getResult(0), w),
          kb.i32(w));
    return vector;
  }

  Chunk load(Value chunk) {
    Value k = kb.add(kb.toI64(kb.mul(chunk, kb.i32(kSmallTokensChunk))), q8);
    Value zero = LLVM::ZeroOp::create(b, loc, piece);
    // K = 32 C - 16: the last chunk's pieces from k = K on read k = 0 and
    // are zeros (every other piece is inside K).
    Value inside;
    if (spec.k % kSmallTokensChunk) {
      inside = kb.lessThan(k, kb.i64(spec.k));
      k = kb.select(inside, k, kb.i64(0));
    }
    auto inK = [&](Value loaded) {
      return inside ? kb.select(inside, loaded, zero) : loaded;
    };
    Chunk loaded;
    loaded.tokens.resize(tokenTiles);
    for (const MatrixView &w : spec.b)
      for (int64_t r = 0; r < rowTiles; ++r)
        loaded.weights.push_back({inK(loadWeightPiece(w, rows[2 * r], k)),
                                  inK(loadWeightPiece(w, rows[2 * r + 1], k))});
    for (int64_t i = 0; i < tokenTiles; ++i)
      loaded.tokens[i] = kb.select(
          hasToken[i], inK(loadPiece(spec.a, tokenRows[i], k)), zero);
    return loaded;
  }

  /// Word `word` (32 bits: two elements) of `pieceValue`.
  Value word(Value pieceValue, int64_t word) {
    return LLVM::ExtractElementOp::create(b, loc, pieceValue, kb.i32(word));
  }

  void multiply(const Chunk &chunk, SmallVector<Value> &acc) {
    for (int64_t s = 0; s < 2; ++s)
      for (auto [jr, w] : llvm::enumerate(chunk.weights)) {
        Value a[] = {word(w[0], 2 * s), word(w[1], 2 * s),
                     word(w[0], 2 * s + 1), word(w[1], 2 * s + 1)};
        for (int64_t i = 0; i < tokenTiles; ++i) {
          Value x[] = {word(chunk.tokens[i], 2 * s),
                       word(chunk.tokens[i], 2 * s + 1)};
          Value &sum = acc[jr * tokenTiles + i];
          sum = mmaM16N8K16(kb, spec.element, a, x, sum);
        }
      }
  }

  /// The warps' partial sums into shared memory, added in warp order, in
  /// rounds of `perRound` weights (smallTokensWeightsPerRound); then
  /// thread t runs the epilogue of register r = (t / 32) mod 4 of lane
  /// t mod 32's fragment f = t / 128 + (warps / 4) p, for each pass p <
  /// R tokenTiles / (warps / 4) (f = rowTile tokenTiles + tile): row (n)
  /// 16 rowTile + g + 8 (r / 2), token 8 tile + 2 q + r mod 2 (m16n8
  /// accumulator fragment).
  void reduceAndFinish(Value tid, Value warp, Value lane,
                       ArrayRef<Value> acc) {
    int64_t weights = static_cast<int64_t>(spec.b.size());
    int64_t perRound = smallTokensWeightsPerRound(weights, spec.tokens,
                                                  spec.tileN);
    int64_t fragments = rowTiles * tokenTiles; // accumulators a weight
    int64_t values = perRound * fragments * 4 * 32; // a warp's, a round
    assert(warps * values * 4 <= kSmallTokensPartialBytesLimit &&
           "a round's partial sums fit static shared memory");
    Value partial = kb.sharedF32("partial", warps * values);
    // Fragment f = rowTile tokenTiles + tile is accumulator j R tokenTiles
    // + f of weight j; 128 threads a fragment, warps / 4 fragments a pass.
    int64_t perPass = warps * 32 / 128;
    assert(fragments % perPass == 0 && "whole passes of fragments");
    int64_t passes = fragments / perPass;
    // sums[pass][j]: the block's sum of the thread's value of weight j;
    // each pass's epilogue runs once its last round's sums are in.
    SmallVector<SmallVector<Value>> sums(passes);
    Value slot, r, l, row; // the thread's place in a pass (after a barrier)
    Value warpBase = kb.mul(warp, kb.i32(values));
    for (int64_t first = 0; first < weights; first += perRound) {
      if (first > 0)
        kb.barrier(); // every thread has read the previous round
      // Value v (accumulator a of the round, register r, lane l) of warp w
      // at w values + (a 4 + r) 32 + l: consecutive lanes, consecutive
      // words.
      for (int64_t a = 0; a < perRound * fragments; ++a)
        for (int64_t reg = 0; reg < 4; ++reg) {
          Value at =
              kb.add(warpBase, kb.add(kb.i32((a * 4 + reg) * 32), lane));
          Value sum = acc[first * fragments + a];
          LLVM::StoreOp::create(b, loc,
                                LLVM::ExtractValueOp::create(b, loc, sum, reg),
                                kb.sharedAt(partial, at));
        }
      kb.barrier();
      if (first == 0) {
        slot = kb.udiv(tid, 128);
        r = kb.urem(kb.udiv(tid, 32), 4);
        l = kb.urem(tid, 32);
        row = kb.add(kb.udiv(l, 4), kb.mul(kb.udiv(r, 2), kb.i32(8)));
      }
      bool lastRound = first + perRound >= weights;
      for (int64_t pass = 0; pass < passes; ++pass) {
        Value f = pass == 0 ? slot : kb.add(slot, kb.i32(perPass * pass));
        Value tile = kb.urem(f, tokenTiles), rowTile = kb.udiv(f, tokenTiles);
        Value token =
            kb.add(kb.mul(tile, kb.i32(8)),
                   kb.add(kb.mul(kb.urem(l, 4), kb.i32(2)), kb.urem(r, 2)));
        // (a 4 + r) 32 + l for accumulator a = f of the round's first
        // weight.
        Value element =
            kb.add(kb.mul(kb.add(kb.mul(f, kb.i32(4)), r), kb.i32(32)), l);
        for (int64_t j = first; j < first + perRound; ++j) {
          Value sum;
          Value at =
              kb.add(element, kb.i32((j - first) * fragments * 4 * 32));
          for (int64_t w = 0; w < warps; ++w) {
            Value v = LLVM::LoadOp::create(
                b, loc, b.getF32Type(),
                kb.sharedAt(partial, kb.add(at, kb.i32(w * values))));
            sum = sum ? arith::AddFOp::create(b, loc, sum, v).getResult() : v;
          }
          sums[pass].push_back(sum);
        }
        if (!lastRound)
          continue;
        Value m = kb.toI64(token);
        Value n = kb.add(
            n0, kb.toI64(kb.add(
                    row, kb.mul(rowTile, kb.i32(kSmallTokensTileN)))));
        kb.ifThen(kb.lessThan(m, kb.tokens()),
                  [&] { spec.epilogue(kb, m, n, sums[pass]); });
      }
    }
  }

  KernelBuilder &kb;
  const SmallTokensGemmSpec &spec;
  OpBuilder &b;
  Location loc;
  Type i32;
  VectorType piece;
  Value n0;                             // the block's first column (i64)
  Value q8;                             // 8 q: this thread's first k
  int64_t tokenTiles;                   // spec.tokens / 8
  int64_t rowTiles;                     // spec.tileN / 16
  int64_t warps;                        // 8 rowTiles
  SmallVector<Value, 4> rows;           // n0 + g + 8 i, i < 2 rowTiles
  SmallVector<Value> tokenRows, hasToken; // per token tile
};

} // namespace

void mlir::fmlp::buildSmallTokensGemm(KernelBuilder &kb,
                                      const SmallTokensGemmSpec &spec) {
  assert(spec.k % (kSmallTokensChunk / 2) == 0 &&
         (spec.tileN == kSmallTokensTileN ||
          spec.tileN == 2 * kSmallTokensTileN) &&
         spec.n % spec.tileN == 0 &&
         (spec.b.size() == 1 || spec.b.size() == 2) && spec.tokens > 0 &&
         spec.tokens % 16 == 0 &&
         "a GEMM the small-tokens strategy does not take");
  SmallTokens(kb, spec).build();
  LaunchGeometry geometry;
  geometry.block = {smallTokensThreads(spec.tileN), 1, 1};
  geometry.tile(0, Extent::of(spec.n), spec.tileN);
  geometry.maxRegisters = spec.maxRegisters;
  kb.finish(geometry);
}
