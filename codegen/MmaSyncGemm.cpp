//===- MmaSyncGemm.cpp - The GEMM skeleton on mma.sync --------------------===//
//
// buildMmaSyncGemm (KernelBuilder.h): the tensor-core strategy of every chip
// since sm_80 (the one that sm_80, sm_86, sm_89 and sm_120 have; sm_90a and
// sm_100a can run it too).
//
// Block: a tile of 128 rows x 256 columns (tileN per accumulator), 8 warps,
// one block a multiprocessor (192 columns of one accumulator over a
// static grid whose waves they cut: staticGridTileN); or of 128
// columns, 4 warps, two blocks a multiprocessor
// (--fmlp-mma-sync-blocks-per-multiprocessor); tf32x3: 128 columns, 8
// warps (mmaSyncThreads). The W warps stand in 2 rows of W / 2 = wn: warp
// w holds rows 64 (w / wn) .. + 63 and columns (w mod wn) tileN / wn ..
// + tileN / wn - 1 of every accumulator: 4 x tileN / (8 wn) tiles of m16n8
// each, 4 fp32 registers a tile, 128 in all (96 at 192 columns, 64 for
// tf32x3). Per k16 step of 64 columns a warp loads 8 ldmatrix.x4 (4 of A,
// 4 of the B_j) for 32 MMAs (of 48 columns: 7 for 24).
//
// Operands: each stored in shared memory the way it is in global memory,
// so that one cp.async of 16 bytes moves 8 consecutive elements:
//  - K-contiguous (A(m, k) with k contiguous; B_j(k, n) with k contiguous,
//    i.e. stored [n][k]): [rows][tileK k], rows of P = tileK / 8 16-byte
//    chunks; chunk c of row r at 16 (P r + (c ^ s(r))).
//  - MN-contiguous: [tileK k][rows], rows of P = rows / 8 chunks, the same
//    formula.
// The swizzle s(r) is r mod 8 for P >= 8 (128-byte rows), (r / 2) mod 4
// for P = 4 (64-byte rows, K-contiguous at tileK = 32). ldmatrix reads 8
// rows' 16-byte chunks at once (rows r .. r + 7 from a multiple of 8, one
// logical chunk); s puts them in distinct 16-byte bank groups of 128 bytes
// (they differ in r mod 8, or in r mod 2 and (r / 2) mod 4), so every read
// is conflict free.
//
// Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16"): A's four
// registers are the 8 x 8 blocks (rows 0-7, k 0-7), (8-15, 0-7), (0-7,
// 8-15), (8-15, 8-15) of its 16 x 16 tile, each thread holding row
// lane / 4, k 2 (lane mod 4) + {0, 1} of a block; B's two are (k 0-7,
// n 0-7) and (k 8-15, n 0-7), each thread holding k 2 (lane mod 4) +
// {0, 1}, n lane / 4. ldmatrix.x4 loads four 8 x 8 blocks whose rows lanes
// 8 q .. 8 q + 7 address (block q); without .trans lane l gets row l / 4,
// columns 2 (l mod 4) + {0, 1} of each, with .trans the transpose. So a
// K-contiguous tile gives A's and B's fragments as stored, an
// MN-contiguous one (rows are k) through .trans.
//
// fp32 operands ("Matrix Fragments for mma.m16n8k8", .tf32): a 16-byte
// chunk is 4 elements and a k8 step, like a k16 step of 16-bit ones, spans
// 2 chunks of a row. A's four registers are (row lane / 4, k lane mod 4),
// rows + 8, k + 4, both; B's two (k lane mod 4, n lane / 4), k + 4. An
// ldmatrix block of 8 rows x 16 bytes gives lane l row l / 4, 32-bit column
// l mod 4: the K-contiguous fragments load as the 16-bit ones do. There is
// no 32-bit transpose in ldmatrix, so a thread reads its MN-contiguous
// elements by 32-bit shared loads: lanes with the same lane mod 4 read one
// row k, 8 consecutive m or n, over 4 consecutive rows. Such a tile is not
// swizzled but its rows padded by 8 words (kMmaSyncFp32RowPadding; rows of
// 128 or 256 words), so that those 32 words fall in 32 distinct banks
// (8 k + mn mod 32) and a thread's addresses are one register plus
// constants. Each register is rounded to
// tf32 (cvt.rna) before the MMA; tf32x3 also keeps the rounding's
// remainder, rounded again (x = hi + lo + e, |e| <= 2^-22 |x|), sums
// lo * hi, hi * lo, hi * hi of a k8 step on the tensor core from zero and
// adds that to the accumulator in fp32, on tiles of 128 columns.
//
// Pipeline: K in tiles of tileK (rows of 64 or 128 bytes) through a ring
// of `stages` slots. Tiles 0 .. stages - 2 are issued first, one cp.async group
// each; the iteration of tile t waits until at most stages - 2 groups are
// pending (its own arrived), meets the block (everyone's arrived; everyone is
// done with slot (t - 1) mod stages), issues tile t + stages - 1 into that
// slot, and multiplies tile t. An operand chunk past an extent reads fewer
// bytes (cp.async's src-size) and the rest is zero-filled.
//
// Staging by TMA (MmaSyncGemmSpec::tma: chips with TMA, 16-bit k-tiles of
// 128-byte rows): thread 0 loads a tile's boxes through the operands'
// tensor maps (loadTmaTile), counted on the slot's mbarrier
// (arrive.expect_tx of the stage's bytes: TMA zero-fills a box past an
// extent and counts its bytes all the same; A's boxes of token rows wholly
// past T are neither loaded nor counted). The iteration of tile t waits on
// that mbarrier's phase; thread 0 then waits until every thread has
// released the slot of tile t - 1 (an arrive on the slot's second
// mbarrier after its last ldmatrix there, or at the top of iteration t:
// --fmlp-mma-sync-release-after-next-wait) and loads tile t + stages - 1
// into it. No block barrier: a warp runs ahead of the others by up to
// stages - 1 tiles, but warp 0, whose thread 0 waits for every thread's
// release, keeps to the slowest (on the H100 0.86-0.97x the time of a
// barrier a k-tile, bench/NOTES.md item 105). No thread computes
// addresses or bounds for the copies: beside a k-tile's 128 MMAs and 32
// ldmatrix the loop's PTX has 95 instructions, not 217 (input_grad at
// (1024, 2816)), and the kernels use 209-227 registers, not 255 (bench/
// NOTES.md item 104). TMA's 128-byte swizzle is the K-contiguous layout
// above (s(r) = r mod 8 on 128-byte rows); an MN-contiguous tile arrives
// in boxes of 64 m/n (128 bytes) x tileK k rows, one after the other, the
// same swizzle within each.
//
//===----------------------------------------------------------------------===//

#include "codegen/CheckedOption.h"
#include "codegen/KernelBuilder.h"
#include "codegen/StagedEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace mlir::fmlp;

// For A/B runs on a GPU: over how many of a k-tile's k-steps the main loop
// spreads the next k-tile's cp.async pieces (1: all before the first).
namespace {
struct CopySteps {
  static bool accepts(int n) { return n >= 1 && n <= 8; }
  static constexpr const char *expected = "1 to 8";
};
} // namespace
static llvm::cl::opt<int, false, CheckedIntParser<CopySteps>> copySteps(
    "fmlp-mma-sync-copy-steps", llvm::cl::Hidden, llvm::cl::init(1),
    llvm::cl::desc("mma_sync kernels: the k-steps over which the next "
                   "k-tile's copies are spread, 1 to 8"));

// The epilogue of the blocks of 8 warps stages the views it reads and
// writes at its element in the ring (StagedEpilogue.h) instead of
// accessing each element's column pair in global memory: views a tensor
// map can address move by TMA (those read prefetched into the ring as the
// main loop frees it: planEpilogue; those written stored box by box), the
// others by threads in coalesced 16-byte pieces. Each staged element
// stays under its bounds guard (StagedEpilogueSpec::guardStagedElements):
// unguarded, a part's elements form one basic block whose chains ptxas
// interleaves, and the no-grad K1 of a GeGLU block with [in, out] weights
// spills 4 B at 255 registers on sm_100 (218 guarded). On an H100 (bf16,
// T = 8192, with the 192-column weight-gradient tiles) staged and guarded
// ran at 0.97-1.24x the unstaged kernels' speed (gate_up and down_grad at
// (1024, 2816) most), the guard at 0.94-1.06x the unguarded one's
// (bench/NOTES.md items 106-108). Both knobs are for A/B runs.
static llvm::cl::opt<bool> stagedEpilogue(
    "fmlp-mma-sync-staged-epilogue", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("mma_sync kernels of 8 warps: stage the epilogue's views "
                   "in the ring"));

bool mlir::fmlp::mmaSyncStagesEpilogue() { return stagedEpilogue; }

static llvm::cl::opt<bool> guardStagedElements(
    "fmlp-mma-sync-staged-epilogue-guarded", llvm::cl::Hidden,
    llvm::cl::init(true),
    llvm::cl::desc("mma_sync kernels' staged epilogue: each element under "
                   "its bounds guard"));

// For A/B runs on a GPU: each thread releases k-tile t's slot at the top
// of iteration t + 1, once tile t + 1's bytes have arrived, instead of
// after tile t's last MMA. The release's proxy fence (MEMBAR.ALL.CTA and
// FENCE.VIEW.ASYNC.S in SASS) waits for the thread's outstanding shared
// reads: after tile t's last ldmatrix, where ptxas puts it otherwise,
// that is the last ldmatrix's data with a third of the k-tile's MMAs
// behind it (bench/NOTES.md item 108); at the top of the next iteration
// every read of tile t has been consumed and none of tile t + 1 can have
// been issued above the wait. In iteration t + 1 thread 0 then waits for
// every thread's release of tile t and loads tile t + stages into its
// slot, as before; the last k-tile's slot is released after the loop
// where a virtual tile needs it.
static llvm::cl::opt<bool> releaseAfterNextWait(
    "fmlp-mma-sync-release-after-next-wait", llvm::cl::Hidden,
    llvm::cl::init(false),
    llvm::cl::desc("mma_sync kernels staged by TMA: release k-tile t's slot "
                   "once tile t + 1 has arrived"));

namespace {

constexpr int64_t kWarpRows = 64, kMmaRows = 16;
/// A cp.async piece and an ldmatrix row; an MMA's k step is two of them.
constexpr int64_t kChunkBytes = 16;

/// One operand as staged: `view` indexed (outer, inner), inner contiguous.
struct StagedOperand {
  MatrixView view;
  bool kContiguous; // inner is k (else inner is m or n, outer k)
  int64_t rows;     // the tile's extent in m (A) or n (B_j)
  int64_t offset;   // bytes into a ring slot
  Value extent;     // M (A) or N (B_j), i64
};

/// The fragment of the epilogue engine (StagedEpilogue.h): a part is the
/// `warpsAlongN` warps of 64 rows; register r = (i nt + jn) 4 + c of a
/// thread is element c of its m16n8 tile (i, jn), i < 4 along m, jn < nt =
/// tileN / (8 warpsAlongN) along n: row 16 i + lane / 4 + 8 (c / 2),
/// column 8 jn + 2 (lane mod 4) + c mod 2 past the warp's origin.
AccumulatorFragment mmaSyncFragment(int64_t tileN, int64_t warpsAlongN) {
  int64_t tilesN = tileN / (8 * warpsAlongN);
  AccumulatorFragment fragment;
  fragment.threadRow = [](KernelBuilder &kb, Value tid, Value) {
    return kb.udiv(kb.urem(tid, 32), 4);
  };
  fragment.threadCol = [tileN, warpsAlongN](KernelBuilder &kb, Value tid) {
    Value warpCol = kb.mul(kb.urem(kb.udiv(tid, 32), warpsAlongN),
                           kb.i32(tileN / warpsAlongN));
    return kb.add(warpCol, kb.mul(kb.urem(kb.urem(tid, 32), 4), kb.i32(2)));
  };
  fragment.rowOffset = [tilesN](int64_t r) {
    return kMmaRows * (r / (4 * tilesN)) + 8 * ((r % 4) / 2);
  };
  fragment.colOffset = [tilesN](int64_t r) {
    return 8 * ((r / 4) % tilesN) + r % 2;
  };
  // A thread's registers all lie in its warp's columns, not box by box:
  // every box of a part is done with its last element (a box stored by
  // TMA then).
  fragment.registersPerBox = 0;
  return fragment;
}

class MmaSync : public EpilogueHost {
public:
  MmaSync(KernelBuilder &kb, const MmaSyncGemmSpec &spec)
      : kb(kb), spec(spec), b(kb.b), loc(kb.loc), i32(b.getI32Type()),
        ptr3(LLVM::LLVMPointerType::get(b.getContext(), 3)),
        words(LLVM::LLVMStructType::getLiteral(b.getContext(),
                                               {i32, i32, i32, i32})),
        elementBytes(spec.element.getIntOrFloatBitWidth() / 8),
        chunkElements(kChunkBytes / elementBytes),
        stepK(2 * chunkElements) {}

  void build() {
    shared = kb.dynamicShared();
    tid = kb.threadIdX();
    lane = kb.urem(tid, 32);
    Value warp = kb.udiv(tid, 32);
    warpRow = kb.mul(kb.udiv(warp, warpsAlongN()), kb.i32(kWarpRows));
    warpCol = kb.mul(kb.urem(warp, warpsAlongN()),
                     kb.i32(spec.tileN / warpsAlongN()));
    // Staged by TMA, tiles in grouped order as the WGMMA kernels take them
    // (on the H100 0.95-1.02x the time of the grid's order: bench/NOTES.md
    // item 105). The cp.async kernels keep the grid's: the order's few
    // registers spill sm_120's tf32 weight gradients.
    if (spec.tma) {
      auto [mTile, nTile] = kb.tileOfBlockGrouped();
      m0 = kb.mul(kb.toI64(mTile), kb.i64(kMmaSyncTileM));
      n0 = kb.mul(kb.toI64(nTile), kb.i64(spec.tileN));
    } else {
      m0 = kb.mul(kb.toI64(kb.blockId(0)), kb.i64(kMmaSyncTileM));
      n0 = kb.mul(kb.toI64(kb.blockId(1)), kb.i64(spec.tileN));
    }
    extentK = kb.extent(spec.k);

    operands.push_back(staged(spec.a, /*isA=*/true, 0));
    int64_t offset = tileBytes(operands.back());
    for (const MatrixView &bj : spec.b) {
      operands.push_back(staged(bj, /*isA=*/false, offset));
      offset += tileBytes(operands.back());
    }
    assert(offset <= stageBytes() && "the ring's layout");

    Value kTiles = arith::CeilDivSIOp::create(b, loc, extentK,
                                              kb.i64(spec.tileK));
    planEpilogue();
    if (spec.tma) {
      m0i32 = arith::TruncIOp::create(b, loc, i32, m0);
      n0i32 = arith::TruncIOp::create(b, loc, i32, n0);
      // A of token rows in boxes of rowsPerBox (planTma): those wholly
      // past T are not loaded (rows past T are never stored) and their
      // bytes not expected.
      tmaBytes = kb.i32(stageBytes());
      if (spec.tma->a.rowsPerBox) {
        TmaBoxesBelow below =
            tmaBoxesBelow(kb, spec.tma->a, spec.m, m0i32, kMmaSyncTileM);
        aBoxes = below.boxes;
        tmaBytes = arith::SubIOp::create(b, loc, tmaBytes, below.skippedBytes);
      }
      kb.initBarriers(tid, [&] {
        for (int64_t s = 0; s < spec.stages; ++s) {
          kb.initBarrier(full(kb.i32(s)), 1);
          kb.initBarrier(empty(kb.i32(s)), spec.threads());
        }
      });
    }
    for (int64_t s = 0; s + 1 < spec.stages; ++s) {
      if (spec.tma) {
        kb.ifThen(kb.both(kb.eq(tid, 0), hasLoad(kb.i64(s), kTiles)),
                  [&] { loadOrPrefetch(kb.i64(s), kTiles); });
        continue;
      }
      issue(kb.i64(s), kb.i32(s), kTiles);
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }

    SmallVector<Value> zeros(accumulatorCount(),
                             LLVM::ZeroOp::create(b, loc, accType()));
    auto loop = scf::ForOp::create(b, loc, kb.i64(0), kTiles, kb.i64(1), zeros);
    keepRolled(loop);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value t = loop.getInductionVar();
      std::optional<TileCopy> copy; // cp.async's pieces of the next tile
      if (spec.tma) {
        // Tile t has arrived. Tile t + stages - 1 takes the slot of tile
        // t - 1 once every thread has released that; no block barrier.
        kb.waitParity(full(slotOf(t)), roundParity(t));
        if (releaseAfterNextWait)
          kb.ifThen(kb.lessThan(kb.i64(0), t),
                    [&] { releaseSlot(kb.add(t, kb.i64(-1))); });
        Value next = kb.add(t, kb.i64(spec.stages - 1));
        kb.ifThen(kb.both(kb.eq(tid, 0), hasLoad(next, kTiles)), [&] {
          kb.ifThen(kb.lessThan(kb.i64(0), t), [&] {
            kb.waitParity(empty(slotOf(next)),
                          roundParity(kb.add(t, kb.i64(-1))));
          });
          loadOrPrefetch(next, kTiles);
        });
      } else {
        NVVM::CpAsyncWaitGroupOp::create(b, loc, spec.stages - 2);
        kb.barrier();
        Value next = kb.add(t, kb.i64(spec.stages - 1));
        copy = tileCopy(next, slotOf(next), kTiles);
      }
      SmallVector<Value> acc(loop.getRegionIterArgs());
      Value slot = kb.mul(slotOf(t), kb.i32(stageBytes()));
      // cp.async: the next tile's pieces spread over the first `spread`
      // steps (the first step's MMAs then issue sooner after the barrier).
      int64_t steps = spec.tileK / stepK;
      int64_t spread = copy ? std::min(copyStepsOf(steps), steps) : 0;
      for (int64_t step = 0; step < steps; ++step) {
        if (step < spread) {
          int64_t pieces = copyPieces();
          for (int64_t piece = pieces * step / spread;
               piece < pieces * (step + 1) / spread; ++piece)
            issuePiece(*copy, piece);
          if (step == spread - 1)
            NVVM::CpAsyncCommitGroupOp::create(b, loc);
        }
        if (spec.element.isF32())
          multiplyTf32(slot, step, acc);
        else
          multiply(slot, step, acc);
      }
      if (spec.tma && !releaseAfterNextWait)
        releaseSlot(t);
      scf::YieldOp::create(b, loc, acc);
    }
    if (!spec.tma)
      NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    if (prefetching()) {
      // The last virtual tile, kTiles + stages - 1, takes the slot of the
      // last k-tile once every thread has released it.
      Value last = kb.add(kTiles, kb.i64(spec.stages - 1));
      Value loadsLast = holdsBoxes(last);
      Value anyKTile = kb.lessThan(kb.i64(0), kTiles);
      if (releaseAfterNextWait)
        kb.ifThen(kb.both(anyKTile, loadsLast),
                  [&] { releaseSlot(kb.add(kTiles, kb.i64(-1))); });
      kb.ifThen(kb.both(kb.eq(tid, 0), loadsLast), [&] {
        kb.ifThen(anyKTile, [&] {
          kb.waitParity(empty(slotOf(last)),
                        roundParity(kb.add(kTiles, kb.i64(-1))));
        });
        prefetch(last);
      });
    }
    this->kTiles = kTiles;
    epilogue(loop.getResults());
  }

  // EpilogueHost: every thread runs the epilogue, both parts the same
  // barriers in the same order, so a block-wide one serves for all. Staged
  // blocks with a tensor map move by TMA (read ones prefetched by thread 0:
  // planEpilogue), the others by the parts' threads.
  Value sharedAt(Value byteOffset) override {
    return LLVM::GEPOp::create(b, loc, ptr3, b.getI8Type(), shared,
                               ValueRange{byteOffset});
  }
  void syncAllParts() override { kb.barrier(); }
  void syncPart(const EpiloguePart &, Value) override { kb.barrier(); }
  /// Part `part`'s prefetched boxes are there: the full mbarrier of each
  /// slot holding one has completed the phase of its virtual tile
  /// (prefetch).
  void waitPrefetched(Value part) override {
    for (int64_t c = 0; c < 2; ++c)
      kb.ifThen(kb.eq(part, c), [&] {
        for (auto [stage, boxes] : llvm::enumerate(prefetchedByStage)) {
          if (llvm::none_of(boxes, [&](const StagingPlan::PrefetchedBox &box) {
                return box.part == c;
              }))
            continue;
          Value tile = virtualTile(int64_t(stage), kTiles);
          kb.waitParity(full(slotOf(tile)), roundParity(tile));
        }
      });
  }

private:
  /// Over how many of a k-tile's `steps` k-steps its cp.async pieces are
  /// spread: --fmlp-mma-sync-copy-steps (1: all before the first), or, for
  /// tf32x3 with an operand of three parts (the LoRA input gradient's
  /// [dG dU dZ] and [Wg; Wu; A]), every step: each piece's address picks
  /// among the parts, and all of them at once beside the fragments' hi and
  /// lo parts took sm_100's 255 registers and spilled 4 B (ptxas 13.0,
  /// test/Tools/ptxas-resources.mlir).
  int64_t copyStepsOf(int64_t steps) const {
    if (copySteps.getNumOccurrences() || !spec.tf32x3)
      return copySteps;
    bool threeParts = llvm::any_of(operands, [](const StagedOperand &op) {
      return op.view.further.size() > 1;
    });
    return threeParts ? steps : int64_t(copySteps);
  }
  /// Warps along n (two rows of them, kWarpRows each).
  int64_t warpsAlongN() const { return spec.threads() / 64; }
  /// A warp's m16n8 tiles along n, per accumulator.
  int64_t tilesN() const { return spec.tileN / (8 * warpsAlongN()); }
  int64_t stageBytes() const {
    return mmaSyncStageBytes(spec.tileK, elementBytes, spec.columns());
  }
  int64_t accumulatorCount() const {
    return static_cast<int64_t>(spec.b.size()) * 4 * tilesN();
  }
  Type accType() { return mmaAccumulatorType(b.getContext()); }

  /// Asks LLVM not to unroll `loop` (its back edge's llvm.loop metadata,
  /// carried through scf-to-cf): a short static K would be unrolled whole,
  /// and the copies' address arithmetic beside the accumulators spilled
  /// (at D = 64).
  void keepRolled(scf::ForOp loop) {
    MLIRContext *context = b.getContext();
    auto unroll = LLVM::LoopUnrollAttr::get(context, b.getBoolAttr(true), {},
                                            {}, {}, {}, {}, {});
    loop->setAttr("loop_annotation",
                  LLVM::LoopAnnotationAttr::get(context, {}, {}, {}, unroll,
                                                {}, {}, {}, {}, {}, {}, {}, {},
                                                {}, {}, {}));
  }
  /// Staging by TMA: ring slot `slot`'s mbarrier (i32), past the ring; it
  /// completes a phase when a tile's bytes have arrived in the slot.
  Value full(Value slot) {
    return sharedAt(kb.add(kb.i32(spec.stages * stageBytes()),
                           kb.mul(slot, kb.i32(8))));
  }
  /// Staging by TMA: slot `slot`'s mbarrier past the full ones; it
  /// completes a phase when every thread is done with a tile there.
  Value empty(Value slot) {
    return sharedAt(kb.add(kb.i32(spec.stages * (stageBytes() + 8)),
                           kb.mul(slot, kb.i32(8))));
  }
  /// The thread's ldmatrix reads of k-tile `tile`'s (i64) slot are done:
  /// the arrive on the slot's second mbarrier releases them, fenced first
  /// for the async proxy of the TMA load that overwrites the slot (as the
  /// WGMMA kernels' consumers that read stages into registers do).
  void releaseSlot(Value tile) {
    kb.fenceProxyAsync();
    NVVM::MBarrierArriveOp::create(b, loc, /*res=*/Type(), empty(slotOf(tile)),
                                   /*count=*/Value());
  }
  /// The phase parity of tile `tile`'s (i64) use of its slot.
  Value roundParity(Value tile) {
    Value round = arith::DivUIOp::create(b, loc, tile, kb.i64(spec.stages));
    return arith::TruncIOp::create(
        b, loc, i32, arith::AndIOp::create(b, loc, round, kb.i64(1)));
  }
  /// Every operand's tile `tile` (i64) by TMA into its slot, counted there.
  void loadTileByTma(Value tile) {
    Value slot = slotOf(tile);
    Value barrier = full(slot);
    kb.expectBytes(barrier, tmaBytes);
    Value base = kb.mul(slot, kb.i32(stageBytes()));
    Value k0 =
        arith::TruncIOp::create(b, loc, i32, kb.mul(tile, kb.i64(spec.tileK)));
    for (auto [index, op] : llvm::enumerate(operands)) {
      const WgmmaOperand &maps = index ? spec.tma->b[index - 1] : spec.tma->a;
      loadTmaTile(
          kb, maps, shared, base, kb.i32(op.offset), index ? n0i32 : m0i32,
          op.rows, k0, spec.tileK, aBoxes, [&] { return barrier; },
          spec.tma->ctaOnly);
    }
  }

  Value slotOf(Value tile) {
    return arith::TruncIOp::create(
        b, loc, i32, arith::RemUIOp::create(b, loc, tile, kb.i64(spec.stages)));
  }

  /// Operand A(m, k) (`isA`) or B_j(k, n) as staged.
  StagedOperand staged(const MatrixView &view, bool isA, int64_t offset) {
    StagedOperand op;
    // The view whose columns are contiguous: (m, k) or (k, m) for A,
    // (n, k) or (k, n) for B_j.
    bool inOrder = view.colStride == 1;
    op.view = inOrder ? view : view.transposed();
    op.kContiguous = isA == inOrder;
    op.rows = isA ? kMmaSyncTileM : spec.tileN;
    op.offset = offset;
    op.extent = kb.extent(isA ? spec.m : spec.n);
    assert(mmaSyncStageable(view) && "an operand mma.sync cannot stage");
    return op;
  }

  /// Whether `op`'s tile has padded rows instead of a swizzle.
  bool paddedRows(const StagedOperand &op) const {
    return spec.element.isF32() && !op.kContiguous;
  }
  int64_t rowBytes(const StagedOperand &op) const {
    return chunksPerRow(op) * kChunkBytes +
           (paddedRows(op) ? kMmaSyncFp32RowPadding : 0);
  }
  int64_t tileBytes(const StagedOperand &op) const {
    return (op.kContiguous ? op.rows : spec.tileK) * rowBytes(op);
  }

  /// Byte offset (i32) of chunk `chunk` of shared row `row` of `op`'s tile.
  Value chunkAt(const StagedOperand &op, Value row, Value chunk) {
    int64_t perRow = chunksPerRow(op);
    if (paddedRows(op))
      return kb.add(kb.mul(row, kb.i32(rowBytes(op))),
                    kb.mul(chunk, kb.i32(kChunkBytes)));
    if (spec.tma && !op.kContiguous) {
      // TMA's boxes of 64 m/n (128 bytes, 8 chunks) x tileK rows k, one
      // after the other; TMA's 128-byte swizzle within each.
      Value box = kb.udiv(chunk, kTmaRowBytes / kChunkBytes);
      Value inBox = kb.urem(chunk, kTmaRowBytes / kChunkBytes);
      Value swizzled = arith::XOrIOp::create(b, loc, inBox, kb.urem(row, 8));
      return kb.add(kb.mul(box, kb.i32(spec.tileK * kTmaRowBytes)),
                    kb.add(kb.mul(row, kb.i32(kTmaRowBytes)),
                           kb.mul(swizzled, kb.i32(kChunkBytes))));
    }
    // The 8 rows one ldmatrix reads span 8 x 16-byte bank groups of 128
    // bytes (TMA's 128-byte swizzle, where it stages 128-byte rows): a row
    // of 4 chunks shares them with its odd or even neighbour.
    Value swizzle = perRow >= 8 ? kb.urem(row, 8)
                                : kb.urem(kb.udiv(row, 8 / perRow), perRow);
    Value swizzled = arith::XOrIOp::create(b, loc, chunk, swizzle);
    return kb.add(kb.mul(row, kb.i32(perRow * 16)),
                  kb.mul(swizzled, kb.i32(16)));
  }
  int64_t chunksPerRow(const StagedOperand &op) const {
    return (op.kContiguous ? spec.tileK : op.rows) / chunkElements;
  }

  /// A k-tile's copy into its ring slot: chunk L = tid + threads i of an
  /// operand's tile is shared row L / (chunks per row), chunk L mod (chunks
  /// per row), each one cp.async piece. A tile at or past `kTiles` reads
  /// nothing (its slot is zero-filled and never read): the main loop's
  /// body stays one basic block, which ptxas schedules as a whole.
  struct TileCopy {
    Value exists, k0, slotBytes;
  };
  TileCopy tileCopy(Value tile, Value slot, Value kTiles) {
    return {kb.lessThan(tile, kTiles), kb.mul(tile, kb.i64(spec.tileK)),
            kb.mul(slot, kb.i32(stageBytes()))};
  }
  /// A thread's pieces of a k-tile, every operand's in turn.
  int64_t piecesOf(const StagedOperand &op) const {
    return op.rows * spec.tileK / chunkElements / spec.threads();
  }
  int64_t copyPieces() const {
    int64_t pieces = 0;
    for (const StagedOperand &op : operands)
      pieces += piecesOf(op);
    return pieces;
  }
  /// cp.async of k-tile `tile` (i64) of every operand into ring slot `slot`
  /// (i32).
  void issue(Value tile, Value slot, Value kTiles) {
    TileCopy copy = tileCopy(tile, slot, kTiles);
    for (int64_t piece = 0; piece < copyPieces(); ++piece)
      issuePiece(copy, piece);
  }
  /// The thread's piece `piece` (of copyPieces()) of `copy`.
  void issuePiece(const TileCopy &copy, int64_t piece) {
    size_t index = 0;
    while (piece >= piecesOf(operands[index]))
      piece -= piecesOf(operands[index++]);
    const StagedOperand &op = operands[index];
    Value mn0 = index == 0 ? m0 : n0;
    int64_t perRow = chunksPerRow(op);
    Value linear = kb.add(tid, kb.i32(piece * spec.threads()));
    Value row = kb.udiv(linear, perRow), chunk = kb.urem(linear, perRow);
    Value rowIndex = kb.toI64(row);
    Value inner = kb.toI64(kb.mul(chunk, kb.i32(chunkElements)));
    Value outer, outerExtent, innerExtent;
    if (op.kContiguous) {
      outer = kb.add(mn0, rowIndex);
      inner = kb.add(copy.k0, inner);
      outerExtent = op.extent;
      innerExtent = extentK;
    } else {
      outer = kb.add(copy.k0, rowIndex);
      inner = kb.add(mn0, inner);
      outerExtent = extentK;
      innerExtent = op.extent;
    }
    // Elements of the chunk inside the extents: 0 .. chunkElements.
    Value left = arith::SubIOp::create(b, loc, innerExtent, inner);
    Value valid = arith::MaxSIOp::create(
        b, loc, kb.i64(0),
        arith::MinSIOp::create(b, loc, left, kb.i64(chunkElements)));
    valid = kb.select(kb.both(copy.exists, kb.lessThan(outer, outerExtent)),
                      valid, kb.i64(0));
    // A chunk wholly outside reads nothing; its address is the view's
    // first element all the same (one that exists).
    Value any = kb.lessThan(kb.i64(0), valid);
    Value source = kb.address(op.view, kb.select(any, outer, kb.i64(0)),
                              kb.select(any, inner, kb.i64(0)));
    Value bytes = arith::TruncIOp::create(
        b, loc, i32, kb.mul(valid, kb.i64(elementBytes)));
    Value target = sharedAt(kb.add(
        copy.slotBytes, kb.add(kb.i32(op.offset), chunkAt(op, row, chunk))));
    NVVM::CpAsyncOp::create(b, loc, target, source, 16,
                            NVVM::LoadCacheModifierKind::CG, bytes);
  }

  /// Four 8 x 8 blocks of `op`'s tile in slot `slot` (byte offset), each
  /// lane addressing shared row `row`, chunk `chunk` (quarterAt).
  Value ldmatrix(const StagedOperand &op, Value slot, Value row, Value chunk) {
    Value address = sharedAt(kb.add(
        slot, kb.add(kb.i32(op.offset), chunkAt(op, row, chunk))));
    return NVVM::LdMatrixOp::create(
        b, loc, words, address, 4,
        op.kContiguous ? NVVM::MMALayout::row : NVVM::MMALayout::col,
        NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
  }
  /// The shared row and chunk that a lane addresses in an ldmatrix.x4 of
  /// the 16 x 16 block of `op` at m or n `mn` (i32) and k16 step `step` (of
  /// 16-bit elements; of fp32 ones, the 16 x 8 block of a k8 step, only
  /// K-contiguous):
  /// lanes 8 q .. 8 q + 7 address rows row8 = lane mod 8 of quarter q, and
  /// `mnHigh`, `kHigh` (lane bits) say whether it is the upper half along
  /// m or n and along k, in the order of the fragment being loaded.
  std::pair<Value, Value> quarterAt(const StagedOperand &op, Value mn,
                                    int64_t step, Value row8, Value mnHigh,
                                    Value kHigh) {
    if (op.kContiguous) // rows m or n, chunks k
      return {kb.add(mn, kb.add(row8, kb.mul(mnHigh, kb.i32(8)))),
              kb.add(kb.i32(2 * step), kHigh)};
    // rows k, chunks m or n
    return {kb.add(kb.i32(stepK * step), kb.add(row8, kb.mul(kHigh, kb.i32(8)))),
            kb.add(kb.udiv(mn, chunkElements), mnHigh)};
  }
  SmallVector<Value> wordsOf(Value loaded) {
    SmallVector<Value> result;
    for (int64_t r = 0; r < 4; ++r)
      result.push_back(LLVM::ExtractValueOp::create(b, loc, loaded, r));
    return result;
  }

  /// k16 step `step` of the tile in slot `slot` (byte offset, i32): every
  /// B_j fragment of the warp first (2 registers per n8 tile: 16 in all),
  /// then one m16 tile of A at a time (4), so that beside the 128
  /// accumulators only 20 fragment registers are live.
  void multiply(Value slot, int64_t step, SmallVector<Value> &acc) {
    Value row8 = kb.urem(lane, 8);
    Value bit3 = kb.urem(kb.udiv(lane, 8), 2), bit4 = kb.udiv(lane, 16);
    // Each B_j's fragments, two n8 tiles per ldmatrix: quarters (n lo,
    // k lo), (n lo, k hi), (n hi, k lo), (n hi, k hi).
    SmallVector<SmallVector<std::array<Value, 2>>> bFrags(spec.b.size());
    for (size_t j = 0; j < spec.b.size(); ++j) {
      const StagedOperand &bj = operands[1 + j];
      for (int64_t jn = 0; jn < tilesN(); jn += 2) {
        Value n = kb.add(warpCol, kb.i32(8 * jn));
        auto [row, chunk] = quarterAt(bj, n, step, row8, /*mnHigh=*/bit4,
                                      /*kHigh=*/bit3);
        SmallVector<Value> w = wordsOf(ldmatrix(bj, slot, row, chunk));
        bFrags[j].push_back({w[0], w[1]});
        bFrags[j].push_back({w[2], w[3]});
      }
    }
    // A's fragment of each of the warp's four m16 tiles: quarters (m lo,
    // k lo), (m hi, k lo), (m lo, k hi), (m hi, k hi).
    const StagedOperand &a = operands[0];
    for (int64_t i = 0; i < 4; ++i) {
      Value m = kb.add(warpRow, kb.i32(kMmaRows * i));
      auto [row, chunk] = quarterAt(a, m, step, row8, /*mnHigh=*/bit3,
                                    /*kHigh=*/bit4);
      SmallVector<Value> aWords = wordsOf(ldmatrix(a, slot, row, chunk));
      for (size_t j = 0; j < spec.b.size(); ++j)
        for (int64_t jn = 0; jn < tilesN(); ++jn) {
          Value &c = acc[(j * 4 + i) * tilesN() + jn];
          c = mmaM16N8K16(kb, spec.element, aWords, bFrags[j][jn], c);
        }
    }
  }

  /// Element (k, mn) of `op`'s MN-contiguous fp32 tile (padded rows) in
  /// slot `slot` as a 32-bit word.
  Value loadWord(const StagedOperand &op, Value slot, Value k, Value mn) {
    Value byte = kb.add(kb.mul(k, kb.i32(rowBytes(op))), kb.mul(mn, kb.i32(4)));
    Value address =
        sharedAt(kb.add(slot, kb.add(kb.i32(op.offset), byte)));
    return LLVM::LoadOp::create(b, loc, i32, address);
  }

  /// A fragment's fp32 words as tf32 operands: each rounded to nearest
  /// (ties away: cvt.rna), and for tf32x3 also the remainder x - hi (exact
  /// in fp32) rounded the same way.
  struct Tf32Parts {
    SmallVector<Value> hi, lo;
  };
  Tf32Parts tf32Parts(ArrayRef<Value> fp32Words) {
    Tf32Parts parts;
    for (Value word : fp32Words) {
      Value x = LLVM::BitcastOp::create(b, loc, b.getF32Type(), word);
      if (!spec.tf32x3) {
        parts.hi.push_back(kb.roundToTf32(x));
        continue;
      }
      auto [hi, lo] = kb.tf32Parts(x);
      parts.hi.push_back(hi);
      parts.lo.push_back(lo);
    }
    return parts;
  }
  /// c + A B for tf32 parts: one MMA (tf32), or lo hi + hi lo + hi hi, the
  /// small products first (tf32x3). A tensor core truncates its sums (bench/
  /// tensor_core_sum.cu), an error that grows with K and that fp32's
  /// round-to-nearest sums do not have: tf32x3 sums a step's three products
  /// from zero on the tensor core and adds that to c in fp32 (its tiles are
  /// 128 columns wide, so that a thread has the registers).
  Value multiplyParts(const Tf32Parts &a, const Tf32Parts &bParts, Value c) {
    if (!spec.tf32x3)
      return mmaM16N8K8Tf32(kb, a.hi, bParts.hi, c);
    Value step = LLVM::ZeroOp::create(b, loc, accType());
    step = mmaM16N8K8Tf32(kb, a.lo, bParts.hi, step);
    step = mmaM16N8K8Tf32(kb, a.hi, bParts.lo, step);
    step = mmaM16N8K8Tf32(kb, a.hi, bParts.hi, step);
    for (int64_t r = 0; r < 4; ++r) {
      Value sum = arith::AddFOp::create(
          b, loc, LLVM::ExtractValueOp::create(b, loc, c, r),
          LLVM::ExtractValueOp::create(b, loc, step, r));
      c = LLVM::InsertValueOp::create(b, loc, c, sum, r);
    }
    return c;
  }

  /// k8 step `step` of an fp32 tile in slot `slot` (byte offset, i32), in
  /// the order of `multiply`: B fragments, then A's one m16 tile at a time.
  /// tf32x3 keeps two parts of every fragment: it takes the warp's n8
  /// tiles in two halves (A loaded once per half), so that half of B's
  /// parts are live at a time.
  void multiplyTf32(Value slot, int64_t step, SmallVector<Value> &acc) {
    Value row8 = kb.urem(lane, 8);
    Value bit3 = kb.urem(kb.udiv(lane, 8), 2), bit4 = kb.udiv(lane, 16);
    Value group = kb.udiv(lane, 4), quad = kb.urem(lane, 4);
    // Row k of the tile holding a fragment's k `high` (0: k lane mod 4, 1:
    // + 4).
    auto kRow = [&](int64_t high) {
      return kb.add(quad, kb.i32(stepK * step + 4 * high));
    };
    // The four words of `op`'s 8 x 4 blocks at m or n `mn`: block q covers
    // mn + 8 (bit `mnBit` of q) and k + 4 (the other bit), the order of an
    // ldmatrix.x4 whose lanes 8 q .. 8 q + 7 address block q (A: mnBit 0,
    // giving registers (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4); B:
    // mnBit 1, the two n8 tiles' (k t, k t + 4) in turn).
    auto blocks = [&](const StagedOperand &op, Value mn, int64_t mnBit) {
      if (op.kContiguous) {
        Value mnHigh = mnBit == 0 ? bit3 : bit4, kHigh = mnBit == 0 ? bit4 : bit3;
        auto [row, chunk] = quarterAt(op, mn, step, row8, mnHigh, kHigh);
        return wordsOf(ldmatrix(op, slot, row, chunk));
      }
      SmallVector<Value> words;
      for (int64_t q = 0; q < 4; ++q) {
        int64_t mnHalf = (q >> mnBit) & 1, kHalf = (q >> (1 - mnBit)) & 1;
        words.push_back(loadWord(op, slot, kRow(kHalf),
                                 kb.add(mn, kb.add(group, kb.i32(8 * mnHalf)))));
      }
      return words;
    };
    // Every (B_j, pair of n8 tiles) the warp multiplies, in halves.
    SmallVector<std::pair<size_t, int64_t>> pairs;
    for (size_t j = 0; j < spec.b.size(); ++j)
      for (int64_t jn = 0; jn < tilesN(); jn += 2)
        pairs.push_back({j, jn});
    int64_t halves = spec.tf32x3 ? 2 : 1;
    int64_t perHalf = static_cast<int64_t>(pairs.size()) / halves;
    for (int64_t half = 0; half < halves; ++half) {
      auto tilePairs = ArrayRef(pairs).slice(half * perHalf, perHalf);
      SmallVector<std::array<Tf32Parts, 2>> bFrags;
      for (auto [j, jn] : tilePairs) {
        const StagedOperand &bj = operands[1 + j];
        SmallVector<Value> w =
            blocks(bj, kb.add(warpCol, kb.i32(8 * jn)), /*mnBit=*/1);
        bFrags.push_back({tf32Parts({w[0], w[1]}), tf32Parts({w[2], w[3]})});
      }
      const StagedOperand &a = operands[0];
      for (int64_t i = 0; i < 4; ++i) {
        Tf32Parts aParts = tf32Parts(
            blocks(a, kb.add(warpRow, kb.i32(kMmaRows * i)), /*mnBit=*/0));
        for (auto [index, pair] : llvm::enumerate(tilePairs)) {
          auto [j, jn] = pair;
          for (int64_t t = 0; t < 2; ++t) {
            Value &c = acc[(j * 4 + i) * tilesN() + jn + t];
            c = multiplyParts(aParts, bFrags[index][t], c);
          }
        }
      }
    }
  }

  /// Each accumulator's registers in the order of mmaSyncFragment, handed
  /// to the epilogue engine as one part per 64 rows.
  void epilogue(ValueRange acc) {
    int64_t registers = epilogueSpec.registers();
    assert(registers == 16 * tilesN() && "the fragment's registers");
    auto all = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(registers, b.getF32Type()));
    SmallVector<Value> perAccumulator;
    for (size_t j = 0; j < spec.b.size(); ++j) {
      Value values = LLVM::UndefOp::create(b, loc, all);
      for (int64_t r = 0; r < registers; ++r) {
        Value tile = acc[j * 4 * tilesN() + r / 4];
        Value v = LLVM::ExtractValueOp::create(b, loc, tile, r % 4);
        values = LLVM::InsertValueOp::create(b, loc, values, v, r);
      }
      perAccumulator.push_back(values);
    }
    EpiloguePart part;
    part.accumulators = perAccumulator;
    part.begin = 0;
    part.end = registers;
    buildStagedEpilogue(kb, epilogueSpec, *this, epilogueViews, plan,
                        kb.udiv(tid, epilogueSpec.partThreads), part, m0, n0);
  }

  /// The epilogue's spec, the views it reads and writes at its element and,
  /// staged (--fmlp-mma-sync-staged-epilogue), where it stages them: each
  /// part's blocks take the ring's bytes from 0 on. A block read through
  /// a tensor map (TmaStaging::outputMaps) is prefetched into its slot by
  /// TMA as the main loop frees the ring stage it lies in (prefetch);
  /// every other block's bytes are touched once every warp is past its
  /// last k-tile (syncAllParts): no k-tile's copy is in flight then (TMA
  /// loads none past the last k-tile but the prefetched boxes, which lie
  /// elsewhere; cp.async's are waited for above).
  void planEpilogue() {
    epilogueSpec.m = spec.m;
    epilogueSpec.n = spec.n;
    epilogueSpec.tileN = spec.tileN;
    epilogueSpec.element = spec.element;
    epilogueSpec.epilogue = spec.epilogue;
    epilogueSpec.fragment = mmaSyncFragment(spec.tileN, warpsAlongN());
    epilogueSpec.partThreads = 32 * warpsAlongN();
    epilogueSpec.guardStagedElements = guardStagedElements;
    if (spec.tma)
      epilogueSpec.outputMaps = spec.tma->outputMaps;
    epilogueViews = EpilogueViews::discover(kb, spec.epilogue, spec.b.size());
    if (stagedEpilogue)
      plan = StagingPlan::of(epilogueSpec, epilogueViews, /*slotsBase=*/0,
                             spec.stages * stageBytes());
    // A stage (128 + columns rows of 128 bytes) holds whole boxes (64
    // rows of 128 bytes).
    if (plan && !plan->prefetched.empty())
      prefetchedByStage = plan->prefetchedByStage(epilogueSpec, /*ringBase=*/0,
                                                  stageBytes(), spec.stages);
  }

  /// Staging by TMA with blocks to prefetch: after the k-tiles [0,
  /// kTiles), the ring's loads go on with virtual tiles [kTiles, kTiles +
  /// stages), each the prefetched boxes that lie in its slot's stage,
  /// issued by thread 0 where the next k-tile would be once the slot is
  /// released (the last, in the last k-tile's slot, after the main loop)
  /// and counted on the slot's full mbarrier as a k-tile is.
  bool prefetching() const { return !prefetchedByStage.empty(); }
  /// Whether thread 0 loads something as tile `tile` (i64): a k-tile, or
  /// a virtual one whose stage holds boxes.
  Value hasLoad(Value tile, Value kTiles) {
    Value real = kb.lessThan(tile, kTiles);
    if (!prefetching())
      return real;
    Value virtualOne =
        kb.both(kb.lessThan(tile, kb.add(kTiles, kb.i64(spec.stages))),
                holdsBoxes(tile));
    return arith::OrIOp::create(b, loc, real, virtualOne);
  }
  /// Whether the stage of tile `tile`'s (i64) slot holds prefetched boxes.
  Value holdsBoxes(Value tile) {
    Value slot = slotOf(tile);
    Value any = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    for (auto [stage, boxes] : llvm::enumerate(prefetchedByStage))
      if (!boxes.empty())
        any = arith::OrIOp::create(b, loc, any, kb.eq(slot, int64_t(stage)));
    return any;
  }
  /// By thread 0: k-tile `tile` (i64) if below `kTiles`, else its virtual
  /// tile's boxes.
  void loadOrPrefetch(Value tile, Value kTiles) {
    if (!prefetching())
      return loadTileByTma(tile);
    auto ifOp = scf::IfOp::create(b, loc, kb.lessThan(tile, kTiles),
                                  /*withElseRegion=*/true);
    OpBuilder::InsertionGuard insertion(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    loadTileByTma(tile);
    b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
    prefetch(tile);
  }
  /// The prefetched boxes of virtual tile `tile` (i64) into its slot, if
  /// its stage holds any.
  void prefetch(Value tile) {
    Value slot = slotOf(tile);
    for (auto [stage, boxes] : llvm::enumerate(prefetchedByStage)) {
      if (boxes.empty())
        continue;
      kb.ifThen(kb.eq(slot, int64_t(stage)), [&, &boxes = boxes] {
        Value barrier = full(slot);
        kb.expectBytes(barrier,
                       kb.i32(int64_t(boxes.size()) * StagingPlan::kBoxBytes));
        for (const StagingPlan::PrefetchedBox &box : boxes)
          kb.tmaLoad(box.map, sharedAt(kb.i32(box.offset)),
                     kb.add(n0i32, kb.i32(box.column)),
                     kb.add(m0i32, kb.i32(box.part * kEpiloguePartRows)),
                     barrier, spec.tma->ctaOnly);
      });
    }
  }
  /// The virtual tile whose slot is stage `stage` (i64): kTiles + ((stage -
  /// kTiles) mod stages).
  Value virtualTile(int64_t stage, Value kTiles) {
    Value stages = kb.i64(spec.stages);
    Value past = arith::RemUIOp::create(b, loc, kTiles, stages);
    Value ahead = arith::RemUIOp::create(
        b, loc,
        arith::SubIOp::create(b, loc, kb.i64(stage + spec.stages), past),
        stages);
    return kb.add(kTiles, ahead);
  }

  KernelBuilder &kb;
  const MmaSyncGemmSpec &spec;
  OpBuilder &b;
  Location loc;
  Type i32, ptr3;
  LLVM::LLVMStructType words;
  int64_t elementBytes, chunkElements;
  int64_t stepK; // k of one MMA: 16 (16-bit elements) or 8 (tf32)
  Value shared, tid, lane, warpRow, warpCol, m0, n0, extentK;
  // Staging by TMA: the tile's origin (i32), the boxes of A below M (null:
  // every box) and the bytes a stage's loads bring.
  Value m0i32, n0i32, aBoxes, tmaBytes;
  SmallVector<StagedOperand> operands; // A, then each B_j
  Value kTiles;                        // i64, for the epilogue (waitPrefetched)
  // The epilogue (planEpilogue).
  StagedEpilogueSpec epilogueSpec;
  EpilogueViews epilogueViews;
  std::optional<StagingPlan> plan;
  /// The prefetched boxes in each ring stage (empty: none prefetched).
  SmallVector<SmallVector<StagingPlan::PrefetchedBox>> prefetchedByStage;
};

} // namespace

bool mlir::fmlp::mmaSyncStageable(const MatrixView &view) {
  return view.vectors() || view.transposed().vectors();
}

Type mlir::fmlp::mmaAccumulatorType(MLIRContext *context) {
  Type f32 = Float32Type::get(context);
  return LLVM::LLVMStructType::getLiteral(context, {f32, f32, f32, f32});
}

/// D = A B + C on one mma.sync of `shape` (m, n, k), A row-major and B
/// column-major, C and D fp32 as mmaAccumulatorType.
static Value mmaRowCol(KernelBuilder &kb, std::array<int64_t, 3> shape,
                       std::optional<std::array<NVVM::MMATypes, 2>> types,
                       ArrayRef<Value> a, ArrayRef<Value> bv, Value c) {
  OpBuilder &b = kb.b;
  SmallVector<Value> cv;
  for (int64_t r = 0; r < 4; ++r)
    cv.push_back(LLVM::ExtractValueOp::create(b, kb.loc, c, r));
  std::array<NVVM::MMALayout, 2> layouts{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col};
  return NVVM::MmaOp::create(b, kb.loc, mmaAccumulatorType(b.getContext()), a,
                             bv, cv, shape, std::nullopt, std::nullopt, types,
                             layouts);
}

Value mlir::fmlp::mmaM16N8K8Tf32(KernelBuilder &kb, ArrayRef<Value> aWords,
                                 ArrayRef<Value> bWords, Value c) {
  return mmaRowCol(kb, {16, 8, 8},
                   std::array{NVVM::MMATypes::tf32, NVVM::MMATypes::tf32},
                   aWords, bWords, c);
}

Value mlir::fmlp::mmaM16N8K16(KernelBuilder &kb, Type element,
                              ArrayRef<Value> aWords, ArrayRef<Value> bWords,
                              Value c) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  // bf16 pairs are i32 registers; f16 pairs vector<2xf16> (the types
  // follow from them).
  std::optional<std::array<NVVM::MMATypes, 2>> types;
  auto asOperand = [&](Value word) -> Value {
    if (element.isBF16())
      return word;
    return LLVM::BitcastOp::create(b, loc, VectorType::get({2}, element), word);
  };
  if (element.isBF16())
    types = {NVVM::MMATypes::bf16, NVVM::MMATypes::bf16};
  SmallVector<Value> a, bv;
  for (Value w : aWords)
    a.push_back(asOperand(w));
  for (Value w : bWords)
    bv.push_back(asOperand(w));
  return mmaRowCol(kb, {16, 8, 16}, types, a, bv, c);
}

void mlir::fmlp::buildMmaSyncGemm(KernelBuilder &kb,
                                  const MmaSyncGemmSpec &spec) {
  int64_t columns = spec.columns();
  assert((spec.b.size() == 1 || spec.b.size() == 2) &&
         mmaSyncTakesColumns(columns, spec.b.size()) && spec.stages >= 2 &&
         (!spec.tf32x3 || spec.element.isF32()) && "an mma.sync configuration");
  assert((!spec.tma || (spec.element.getIntOrFloatBitWidth() == 16 &&
                        spec.tileK * 2 == kTmaRowBytes)) &&
         "TMA stages 16-bit k-tiles of 128-byte rows");
  MmaSync(kb, spec).build();
  LaunchGeometry geometry;
  geometry.block = {spec.threads(), 1, 1};
  geometry.tile(0, spec.m, kMmaSyncTileM);
  geometry.tile(1, spec.n, spec.tileN);
  geometry.dynamicSharedBytes = mmaSyncSharedBytes(
      spec.tileK, spec.stages, spec.element.getIntOrFloatBitWidth() / 8,
      columns, spec.tma.has_value());
  geometry.maxRegisters = spec.maxRegisters;
  kb.finish(geometry);
}
