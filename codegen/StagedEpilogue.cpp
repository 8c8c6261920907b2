//===- StagedEpilogue.cpp - Epilogues of tensor-core main loops -----------===//

#include "codegen/StagedEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fmlp;

namespace {

/// 16-byte pieces each thread has in flight when threads move a staged
/// block (Epilogue::copy; more would spill the accumulators).
constexpr int64_t kPiecesAtOnce = 4;

class Discovery : public EpilogueAccess {
public:
  static EpilogueViews run(KernelBuilder &kb,
                           const GemmSpec::Epilogue &epilogue,
                           unsigned accumulators) {
    Discovery discovery(kb);
    auto scratch = std::make_unique<Block>();
    {
      OpBuilder::InsertionGuard insertion(kb.b);
      kb.b.setInsertionPointToStart(scratch.get());
      discovery.row = kb.i64(0);
      discovery.col = kb.i64(0);
      SmallVector<Value> acc(accumulators, kb.f32(0.0));
      EpilogueAccess *outer = kb.epilogueAccess;
      kb.epilogueAccess = &discovery;
      epilogue(kb, discovery.row, discovery.col, acc);
      kb.epilogueAccess = outer;
    }
    for (Operation &op : *scratch)
      op.dropAllReferences();
    return discovery.views;
  }

  Value load(const MatrixView *view, Value row, Value col, Value pointer,
             Type element) override {
    if (view && row == this->row && col == this->col)
      EpilogueViews::add(views.read, *view);
    else
      views.loadsElsewhere = true;
    return kb.emitLoad(pointer, element);
  }
  void store(const MatrixView *view, Value row, Value col, Value pointer,
             Type element, Value value) override {
    if (view && row == this->row && col == this->col)
      EpilogueViews::add(views.written, *view);
    else
      views.storesElsewhere = true;
  }

private:
  explicit Discovery(KernelBuilder &kb) : kb(kb) {}

  KernelBuilder &kb;
  Value row, col; // the element's
  EpilogueViews views;
};

/// The epilogue of one part: spec.epilogue on each element of its
/// kEpiloguePartRows x tileN block (register r of a thread at the element
/// spec.fragment says). With N even, the stores of registers r and r + 1
/// (r even, columns n and n + 1) pair up into one 32-bit word.
///
/// spec.epilogue is built through EpilogueAccess (after Discovery has
/// learnt the views it accesses at its element), in phases:
///  - per batch of 8 elements (or pairs), gather: every load issued (from
///    global memory under the element's bounds guard, 0 outside; from the
///    staged block unguarded), stores dropped, the arithmetic left dead;
///    then replay: the same loads, in the same order, return the gathered
///    values and the stores are made. K3 reads G and U where it writes dG
///    and dU: without batches each element's loads would wait for the
///    previous element's stores (which may alias them), and its chain of
///    arithmetic could not overlap the next one's.
///
/// Staging: when every view read or written at the element takes 16-byte
/// pieces and their tiles fit in the stage ring, each consumer's 64 x tileN
/// block of each view moves between global and shared memory (in before
/// the elements for views read, out after for views written), and the
/// element accesses go to shared memory. The block of view j of consumer c
/// sits at StagingPlan::boxOffset(j, c, 0) as boxes of 64 rows x 128
/// bytes, 128-byte swizzled (16-byte piece p of row r at piece
/// p xor (r mod 8)): a warp's pair accesses (8 rows x 4 lanes) hit 32
/// distinct banks. A view with a tensor map (spec.outputMaps) moves by TMA,
/// issued by one thread: in, by the main loop's producer as the ring frees
/// (StagingPlan::prefetched, EpilogueHost::waitPrefetched); out, box by box
/// as the elements finish it (under the next box's elements; all boxes
/// after the last element where the fragment is not box-ordered), as bulk
/// stores the consumer's first thread waits to have read at the end (the
/// global writes drain while the next block runs). Any other moves in coalesced
/// 16-byte pieces by all its threads. The slots are free once every part is
/// past the main loop (EpilogueHost::syncAllParts).
class Epilogue : public EpilogueAccess {
public:
  Epilogue(KernelBuilder &kb, const StagedEpilogueSpec &spec,
           EpilogueHost &host, const EpilogueViews &views,
           const std::optional<StagingPlan> &plan, Value consumer,
           const EpiloguePart &part, Value m0, Value n0)
      : kb(kb), spec(spec), host(host), views(views), consumer(consumer),
        part(part), col0(n0), i32(kb.b.getI32Type()) {
    if (plan) {
      staging = &*plan;
      // This part's block of view 0.
      slotBase = kb.add(c32(plan->boxOffset(0, 0, 0)),
                        kb.mul(consumer, c32(plan->slotBytes)));
    }
    row0 = kb.add(m0, kb.toI64(kb.mul(consumer, c32(kEpiloguePartRows))));
    Value tid = kb.threadIdX();
    thread = urem(tid, spec.partThreads);
    rowBase = kb.add(row0, kb.toI64(spec.fragment.threadRow(kb, tid, thread)));
    colBase = kb.add(col0, kb.toI64(spec.fragment.threadCol(kb, tid)));
    extentM = kb.extent(spec.m);
    extentN = kb.extent(spec.n);
    pairColumns = spec.pairsColumns();
  }

  void build() {
    kb.epilogueAccess = this;
    if (staging) {
      // Both consumers (256 threads) past the main loop: the ring is free
      // for the slots its threads touch. (The producer waits for that
      // stage by stage before it loads a slot.)
      if (!staging->allPrefetched())
        host.syncAllParts();
      copyIn();
    }
    int64_t step = pairColumns ? 2 : 1;
    constexpr int64_t kBatch = 8;
    for (int64_t begin = part.begin; begin < part.end; begin += kBatch * step) {
      int64_t end = std::min(part.end, begin + kBatch * step);
      phase = Phase::Gather;
      gathered.clear();
      next = 0;
      for (int64_t r = begin; r < end; r += step) {
        guard = inBounds(rowOf(r), colOf(r));
        buildElements(r);
      }
      phase = Phase::Replay;
      // Staged, an element touches only the consumer's slots, which span
      // its whole block, and the copy-out skips what lies past the extents:
      // no guard, so the batch is one basic block whose elements' chains
      // ptxas can interleave. Not with loads elsewhere (biases, from global
      // memory): their values live through the batch, and interleaved
      // chains on top of them overflow the registers beside the
      // accumulators (ptxas spills).
      bool unguarded =
          staging && !views.loadsElsewhere && !spec.guardStagedElements;
      for (int64_t r = begin; r < end; r += step) {
        if (unguarded)
          buildElements(r);
        else
          kb.ifThen(inBounds(rowOf(r), colOf(r)), [&] { buildElements(r); });
      }
      assert(next == gathered.size() && "the epilogue's loads differ");
      // Box b (its columns' registers [b perBox, (b + 1) perBox)) is
      // stored as soon as its batches are done, under the next box's
      // elements.
      int64_t perBox = spec.fragment.registersPerBox;
      if (staging && perBox && end % perBox == 0)
        storeBoxes(end / perBox - 1, end / perBox);
    }
    if (staging) {
      // A fragment whose registers are not box by box (registersPerBox 0)
      // finishes every box with its last element.
      if (!spec.fragment.registersPerBox)
        storeBoxes(0, spec.boxesPerPart());
      copyOut();
    }
    kb.epilogueAccess = nullptr;
  }

  Value load(const MatrixView *view, Value row, Value col, Value pointer,
             Type element) override {
    bool atElement = view && row == this->row && col == this->col;
    std::optional<unsigned> slot = atElement ? slotOf(*view) : std::nullopt;
    if (phase == Phase::Gather) {
      // A staged element is in the consumer's slots whatever its bounds.
      gathered.push_back(slot ? loadStaged(*slot, row, col, element)
                              : kb.ifElseZero(guard, [&] {
                                  return kb.emitLoad(pointer, element);
                                }));
      return gathered.back();
    }
    return gathered[next++];
  }

  void store(const MatrixView *view, Value row, Value col, Value pointer,
             Type element, Value value) override {
    if (phase == Phase::Gather)
      return;
    if (view && collected)
      return collected->push_back({*view, row, col, value});
    kb.emitStore(pointer, element, value);
  }

private:
  enum class Phase { Gather, Replay };
  /// A store held back to pair with its neighbour column.
  struct PendingStore {
    MatrixView view;
    Value row, col, value;
  };

  Value rowOf(int64_t r) {
    return kb.add(rowBase, kb.i64(spec.fragment.rowOffset(r)));
  }
  Value colOf(int64_t r) {
    return kb.add(colBase, kb.i64(spec.fragment.colOffset(r)));
  }
  Value inBounds(Value m, Value n) {
    return kb.both(kb.lessThan(m, extentM), kb.lessThan(n, extentN));
  }
  SmallVector<Value> valuesAt(int64_t r) {
    if (part.byOtherThreads()) { // one accumulator
      Value offset =
          kb.add(c32(part.handoff + StagingPlan::handedOffAt(r - part.begin)),
                 kb.mul(thread, c32(16)));
      return {LLVM::LoadOp::create(kb.b, kb.loc, kb.b.getF32Type(),
                                   at(offset))};
    }
    SmallVector<Value> values;
    for (Value accumulator : part.accumulators)
      values.push_back(
          LLVM::ExtractValueOp::create(kb.b, kb.loc, accumulator, r));
    return values;
  }
  void buildElement(int64_t r, Value m, Value n) {
    row = m;
    col = n;
    spec.epilogue(kb, m, n, valuesAt(r));
  }
  /// The epilogue of register r, and of r + 1 when columns pair up.
  void buildElements(int64_t r) {
    Value m = rowOf(r), n = colOf(r);
    if (!pairColumns)
      return buildElement(r, m, n);
    SmallVector<PendingStore> first, second;
    collected = &first;
    half = PairHalf::First;
    pairedUpper.clear();
    buildElement(r, m, n);
    collected = &second;
    half = PairHalf::Second;
    nextUpper = 0;
    buildElement(r + 1, m, kb.add(n, kb.i64(1)));
    assert(nextUpper == pairedUpper.size() && "the pair's loads differ");
    half = PairHalf::None;
    collected = nullptr;
    if (phase == Phase::Replay)
      for (auto [a, b] : llvm::zip_equal(first, second))
        storePair(a, b.value);
  }

  /// Element (row, col) of slot j, as f32. Where columns pair up, the
  /// first element of a pair loads both (col is even: one 32-bit word of
  /// the staged block) and the second takes its half.
  Value loadStaged(unsigned j, Value row, Value col, Type element) {
    bool paired = half != PairHalf::None && !element.isF32();
    if (paired && half == PairHalf::Second)
      return pairedUpper[nextUpper++];
    Value address = at(staged(j, row, col));
    if (!paired)
      return kb.emitLoad(address, element);
    Value pair = LLVM::LoadOp::create(
        kb.b, kb.loc, VectorType::get({2}, element), address, /*alignment=*/4);
    auto ofPair = [&](int32_t i) -> Value {
      Value bits = LLVM::ExtractElementOp::create(kb.b, kb.loc, pair, c32(i));
      return arith::ExtFOp::create(kb.b, kb.loc, kb.b.getF32Type(), bits);
    };
    pairedUpper.push_back(ofPair(1));
    return ofPair(0);
  }

  std::optional<unsigned> slotOf(const MatrixView &view) const {
    if (!staging)
      return std::nullopt;
    for (auto [j, v] : llvm::enumerate(staging->views))
      if (v.sameMemory(view))
        return j;
    return std::nullopt;
  }
  /// Byte offset of slot j's box of columns [64 box, 64 box + 64).
  Value boxAt(unsigned j, int64_t box) {
    return kb.add(slotBase, c32(staging->boxOffset(j, 0, box) -
                                  staging->boxOffset(0, 0, 0)));
  }
  /// Byte offset of element (row, col) (i32, in the block) of slot j.
  Value stagedAt(unsigned j, Value localRow, Value localCol) {
    Value slot = boxAt(j, 0);
    Value box = udiv(localCol, spec.boxColumns());
    int64_t perPiece = spec.pieceColumns();
    Value piece = urem(udiv(localCol, perPiece), 8);
    Value swizzled =
        arith::XOrIOp::create(kb.b, kb.loc, piece, urem(localRow, 8));
    Value inBox = kb.add(
        kb.mul(localRow, c32(kEpilogueBoxRowBytes)),
        kb.add(kb.mul(swizzled, c32(16)),
               kb.mul(urem(localCol, perPiece), c32(spec.elementBytes()))));
    return kb.add(kb.add(slot, kb.mul(box, c32(StagingPlan::kBoxBytes))),
                  inBox);
  }
  /// The same for global indices (i64) of this consumer's block.
  Value staged(unsigned j, Value row, Value col) {
    auto local = [&](Value index, Value origin) {
      return arith::TruncIOp::create(
          kb.b, kb.loc, i32,
          arith::SubIOp::create(kb.b, kb.loc, index, origin));
    };
    return stagedAt(j, local(row, row0), local(col, col0));
  }
  /// The threads running this part meet.
  void consumerBarrier() { host.syncPart(part, consumer); }

  /// This consumer's blocks of the views read, into its slots: those with a
  /// tensor map loaded by the producer, the others copied by its threads.
  void copyIn() {
    copy(/*in=*/true);
    // The host knows the phase its loads complete (WGMMA: one tile per
    // block, the epilogue barrier's first; mma.sync: the ring's full
    // barriers after the k-tiles). Each thread that waits sees the bytes;
    // the threads' copies need a barrier.
    if (!staging->prefetched.empty())
      host.waitPrefetched(consumer);
    if (!movedByThreads(views.read).empty())
      consumerBarrier();
  }

  /// Boxes [first, end) of this consumer's blocks of the views written
  /// that have a tensor map: bulk stores from its first thread, once every
  /// thread's writes (generic proxy) are fenced for the TMA's reads (async
  /// proxy).
  void storeBoxes(int64_t first, int64_t end) {
    SmallVector<std::pair<unsigned, unsigned>> mapped =
        mappedSlots(views.written);
    if (mapped.empty() || first >= end)
      return;
    kb.fenceProxyAsync();
    consumerBarrier();
    kb.ifThen(eq(thread, 0), [&] {
      for (int64_t box = first; box < end; ++box)
        for (auto [j, map] : mapped)
          NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
              kb.b, kb.loc, kb.tensorMap(map), at(boxAt(j, box)),
              ValueRange{boxColumn(box), blockRow()}, /*l2CacheHint=*/Value(),
              NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
      NVVM::CpAsyncBulkCommitGroupOp::create(kb.b, kb.loc);
    });
  }

  /// After the elements: this consumer's blocks of the views written that
  /// have no tensor map, out of its slots by threads; then the wait until
  /// the bulk stores (storeBox) have read theirs.
  void copyOut() {
    if (!movedByThreads(views.written).empty()) {
      consumerBarrier();
      copy(/*in=*/false);
    }
    if (mappedSlots(views.written).empty())
      return;
    // The block's shared memory lives until its bytes are read.
    kb.ifThen(eq(thread, 0), [&] {
      NVVM::CpAsyncBulkWaitGroupOp::create(kb.b, kb.loc, 0, kb.b.getUnitAttr());
    });
  }

  /// (slot, view) of the staged views among `among` that have no tensor
  /// map (their threads move them).
  SmallVector<std::pair<unsigned, MatrixView>>
  movedByThreads(ArrayRef<MatrixView> among) const {
    SmallVector<std::pair<unsigned, MatrixView>> moved;
    for (auto [j, view] : llvm::enumerate(staging->views))
      if (!staging->maps[j] && EpilogueViews::contains(among, view))
        moved.push_back({unsigned(j), view});
    return moved;
  }
  /// (slot, tensor map) of the staged views among `among` that have one.
  SmallVector<std::pair<unsigned, unsigned>>
  mappedSlots(ArrayRef<MatrixView> among) const {
    SmallVector<std::pair<unsigned, unsigned>> mapped;
    for (auto [j, view] : llvm::enumerate(staging->views))
      if (staging->maps[j] && EpilogueViews::contains(among, view))
        mapped.push_back({unsigned(j), *staging->maps[j]});
    return mapped;
  }
  /// A box's coordinates in its tensor map (i32; columns innermost).
  Value blockRow() {
    return arith::TruncIOp::create(kb.b, kb.loc, i32, row0);
  }
  Value boxColumn(int64_t box) {
    return kb.add(arith::TruncIOp::create(kb.b, kb.loc, i32, col0),
                  c32(box * spec.boxColumns()));
  }
  /// Moves this consumer's blocks of the views read (in) or written (out)
  /// that have no tensor map between global and shared memory in 16-byte
  /// pieces, rows in order: a loop over groups of kPiecesAtOnce pieces per
  /// thread, whose loads are all in flight together (more would spill the
  /// accumulators). Reads
  /// past the extents are clamped to the last row and piece (in bounds;
  /// what they bring is never stored); writes past them are skipped.
  void copy(bool in) {
    SmallVector<std::pair<unsigned, MatrixView>> moved =
        movedByThreads(in ? views.read : views.written);
    if (moved.empty())
      return;
    int64_t perPiece = spec.pieceColumns();
    int64_t piecesPerRow = spec.tileN / perPiece;
    int64_t groups = kEpiloguePartRows * piecesPerRow /
                     (kEpiloguePartThreads * kPiecesAtOnce);
    auto pieceType = VectorType::get({4}, i32);
    auto loop =
        scf::ForOp::create(kb.b, kb.loc, c32(0), c32(groups), c32(1));
    OpBuilder::InsertionGuard insertion(kb.b);
    kb.b.setInsertionPoint(loop.getBody()->getTerminator());
    Value first =
        kb.add(thread, kb.mul(loop.getInductionVar(),
                              c32(kEpiloguePartThreads * kPiecesAtOnce)));
    struct Piece {
      Value localRow, localCol, row, col;
    };
    SmallVector<Piece> pieces;
    for (int64_t p = 0; p < kPiecesAtOnce; ++p) {
      Value piece = kb.add(first, c32(kEpiloguePartThreads * p));
      Value localRow = udiv(piece, piecesPerRow);
      Value localCol = kb.mul(urem(piece, piecesPerRow), c32(perPiece));
      pieces.push_back({localRow, localCol, kb.add(row0, kb.toI64(localRow)),
                        kb.add(col0, kb.toI64(localCol))});
    }
    auto sharedAt = [&](unsigned j, const Piece &piece) {
      return at(stagedAt(j, piece.localRow, piece.localCol));
    };
    if (in) {
      Value lastRow = kb.add(extentM, kb.i64(-1));
      Value lastCol = kb.add(extentN, kb.i64(-perPiece));
      SmallVector<Value> values;
      for (const Piece &piece : pieces)
        for (auto [j, view] : moved) {
          Value row = arith::MinSIOp::create(kb.b, kb.loc, piece.row, lastRow);
          Value col = arith::MinSIOp::create(kb.b, kb.loc, piece.col, lastCol);
          values.push_back(LLVM::LoadOp::create(
              kb.b, kb.loc, pieceType, kb.address(view, row, col), 16));
        }
      Value *value = values.begin();
      for (const Piece &piece : pieces)
        for (auto [j, view] : moved)
          LLVM::StoreOp::create(kb.b, kb.loc, *value++, sharedAt(j, piece), 16);
      return;
    }
    // N is a multiple of a piece: it is in bounds when its first column is.
    for (const Piece &piece : pieces)
      kb.ifThen(inBounds(piece.row, piece.col), [&] {
        for (auto [j, view] : moved)
          LLVM::StoreOp::create(kb.b, kb.loc,
                                LLVM::LoadOp::create(kb.b, kb.loc, pieceType,
                                                     sharedAt(j, piece), 16),
                                kb.address(view, piece.row, piece.col), 16);
      });
  }

  /// Stores `first` and, one column on, `second`: into the staged block,
  /// as one 32-bit word when the view pairs columns, else one by one.
  void storePair(const PendingStore &first, Value second) {
    const MatrixView &view = first.view;
    std::optional<unsigned> slot = slotOf(view);
    if (!slot && !view.pairs()) {
      kb.emitStore(kb.address(view, first.row, first.col), view.element,
                   first.value);
      kb.emitStore(kb.address(view, first.row, kb.add(first.col, kb.i64(1))),
                   view.element, second);
      return;
    }
    auto pairType = VectorType::get({2}, view.element);
    Value pair = LLVM::UndefOp::create(kb.b, kb.loc, pairType);
    Value halves[] = {first.value, second};
    for (int32_t i = 0; i < 2; ++i) {
      Value half = halves[i];
      if (!view.element.isF32())
        half = arith::TruncFOp::create(kb.b, kb.loc, view.element, half);
      pair = LLVM::InsertElementOp::create(kb.b, kb.loc, pair, half, c32(i));
    }
    Value address = slot ? at(staged(*slot, first.row, first.col))
                         : kb.address(view, first.row, first.col);
    LLVM::StoreOp::create(kb.b, kb.loc, pair, address,
                          /*alignment=*/2 * spec.elementBytes());
  }

  Value c32(int64_t v) { return kb.i32(static_cast<int32_t>(v)); }
  Value at(Value byteOffset) { return host.sharedAt(byteOffset); }
  Value udiv(Value x, int64_t y) { return kb.udiv(x, y); }
  Value urem(Value x, int64_t y) { return kb.urem(x, y); }
  Value eq(Value x, int64_t y) { return kb.eq(x, y); }

  KernelBuilder &kb;
  const StagedEpilogueSpec &spec;
  EpilogueHost &host;
  const EpilogueViews &views;
  Value consumer, thread;
  const EpiloguePart &part;
  Value row0, col0, rowBase, colBase, extentM, extentN;
  bool pairColumns;

  Phase phase = Phase::Gather;
  /// Which element of a column pair is being built (buildElements), and
  /// the second's staged values the first loaded (loadStaged).
  enum class PairHalf { None, First, Second } half = PairHalf::None;
  SmallVector<Value> pairedUpper;
  size_t nextUpper = 0;
  Value row, col, guard; // the element being built, its bounds
  SmallVector<Value> gathered;
  size_t next = 0;
  SmallVector<PendingStore> *collected = nullptr;
  const StagingPlan *staging = nullptr;
  Value slotBase; // this part's block of view 0 (bytes)
  Type i32;
};

} // namespace

EpilogueViews EpilogueViews::discover(KernelBuilder &kb,
                                      const GemmSpec::Epilogue &epilogue,
                                      unsigned accumulators) {
  return Discovery::run(kb, epilogue, accumulators);
}

std::optional<StagingPlan>
StagingPlan::of(const StagedEpilogueSpec &spec, const EpilogueViews &views,
                int64_t slotsBase, int64_t slotBytesAvailable) {
  int64_t perPiece = spec.pieceColumns();
  bool wholeGroups = kEpiloguePartRows * spec.tileN / perPiece %
                         (kEpiloguePartThreads * kPiecesAtOnce) ==
                     0;
  if (spec.partThreads != kEpiloguePartThreads || !spec.pairsColumns() ||
      views.storesElsewhere || views.written.empty() || !wholeGroups ||
      spec.n.value % perPiece != 0 || spec.tileN % spec.boxColumns() != 0)
    return std::nullopt;
  StagingPlan plan;
  for (const MatrixView &view :
       llvm::concat<const MatrixView>(views.read, views.written)) {
    if (!view.vectors() || view.element != spec.element)
      return std::nullopt;
    EpilogueViews::add(plan.views, view);
  }
  for (const MatrixView &view : plan.views) {
    const auto *map = llvm::find_if(spec.outputMaps, [&](const auto &m) {
      return m.first.sameMemory(view);
    });
    plan.maps.push_back(map == spec.outputMaps.end()
                            ? std::nullopt
                            : std::optional<unsigned>(map->second));
    if (plan.maps.back() && EpilogueViews::contains(views.read, view))
      plan.prefetched.push_back(
          {unsigned(plan.maps.size() - 1), *plan.maps.back()});
  }
  plan.slotsBase = slotsBase;
  plan.registersPerBox = spec.fragment.registersPerBox;
  plan.slotBytes = kEpiloguePartRows * spec.tileN * spec.elementBytes();
  if (2 * plan.slotBytes * int64_t(plan.views.size()) > slotBytesAvailable)
    return std::nullopt;
  return plan;
}

SmallVector<SmallVector<StagingPlan::PrefetchedBox>>
StagingPlan::prefetchedByStage(const StagedEpilogueSpec &spec, int64_t ringBase,
                               int64_t stageBytes, int64_t stages) const {
  SmallVector<SmallVector<PrefetchedBox>> byStage(stages);
  for (auto [j, map] : prefetched)
    for (int64_t part = 0; part < 2; ++part)
      for (int64_t box = 0; box < spec.boxesPerPart(); ++box) {
        int64_t offset = boxOffset(j, part, box) - ringBase;
        assert(offset % stageBytes + kBoxBytes <= stageBytes &&
               "a prefetched box within one ring stage");
        byStage[offset / stageBytes].push_back(
            {map, offset + ringBase, box * spec.boxColumns(), part});
      }
  return byStage;
}

void mlir::fmlp::buildStagedEpilogue(KernelBuilder &kb,
                                     const StagedEpilogueSpec &spec,
                                     EpilogueHost &host,
                                     const EpilogueViews &views,
                                     const std::optional<StagingPlan> &plan,
                                     Value part, const EpiloguePart &which,
                                     Value m0, Value n0) {
  Epilogue(kb, spec, host, views, plan, part, which, m0, n0).build();
}
