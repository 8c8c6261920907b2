//===- StagedEpilogue.h - Epilogues of tensor-core main loops ---*- C++ -*-===//
//
// The engine that runs a GemmSpec::Epilogue on the accumulators a
// tensor-core main loop leaves in registers: in batches whose loads are
// all issued before their stores, with the stores of column pairs merged
// into 32-bit words, and, where it pays, whole blocks of the views the
// epilogue touches staged in shared memory and moved by coalesced 16-byte
// pieces or by TMA. Any main loop can use it (WgmmaGemm.cpp does); it
// states its accumulator fragment, lends shared memory and barriers
// (EpilogueHost), and calls buildStagedEpilogue once per part.
//
// The contract of an epilogue callback (GemmSpec::Epilogue):
//  - It is called at build time with the accumulators acc[j] (f32) of one
//    output element (m, n) inside the extents, and accesses memory only
//    through KernelBuilder::load and store (which route through the engine
//    while it runs). It may read and write any view at its own element
//    (row m, column n): those are the accesses the engine may stage. An
//    access anywhere else (a bias row) goes to global memory, and a store
//    anywhere else turns staging off.
//  - It is built several times per element (discovery in a scratch block,
//    then gather and replay), so it must be a pure function of its
//    arguments: the same loads in the same order on every call.
//  - It may write a view it reads, at its own element only (K3 writes dG
//    and dU over G and U): an element's loads are all gathered before any
//    store of its batch.
//  - Determinism: each element is computed once, by one thread, with no
//    atomics; the results are bitwise reproducible run to run.
//
// What the engine asks of the main loop:
//  - Parts: the tile is split in parts of kEpiloguePartRows rows x tileN
//    columns, each held by kEpiloguePartThreads threads (a warpgroup); the
//    AccumulatorFragment says which element each register holds.
//  - Shared memory: staged blocks live in slots from `slotsBase` on (two
//    per staged view, one per part, StagingPlan::boxOffset), lent from the
//    main loop's ring once every part is past its main loop; a hand-off
//    area past the ring when the main loop hands registers to other
//    threads (StagingPlan::handedOffBoxes).
//  - Barriers: EpilogueHost::syncAllParts (every part past the main loop),
//    syncPart (one part's threads), waitPrefetched (the TMA loads of the
//    part's staged views read, issued by the main loop's producer:
//    StagingPlan::prefetched).
//
// Element width is a parameter (StagedEpilogueSpec::element): a staged
// box is 64 rows of 128 bytes (64 16-bit or 32 32-bit columns), moved in
// 16-byte pieces of 8 or 4 elements.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_CODEGEN_STAGEDEPILOGUE_H
#define FMLP_CODEGEN_STAGEDEPILOGUE_H

#include "codegen/KernelBuilder.h"

#include <optional>

namespace mlir::fmlp {

/// A part: one warpgroup's threads and the rows of the tile they hold.
constexpr int64_t kEpiloguePartThreads = 128, kEpiloguePartRows = 64;
/// A staged box: 64 rows of 128 bytes, 128-byte swizzled.
constexpr int64_t kEpilogueBoxRowBytes = 128;

/// What an epilogue accesses at its own element (row m, column n of the
/// output): the views it reads and writes there, and whether it loads or
/// stores anywhere else (a bias). Learnt by building it once in a scratch
/// block, then throwing that away.
struct EpilogueViews {
  SmallVector<MatrixView> read, written;
  bool loadsElsewhere = false, storesElsewhere = false;

  static EpilogueViews discover(KernelBuilder &kb,
                                const GemmSpec::Epilogue &epilogue,
                                unsigned accumulators);
  static void add(SmallVector<MatrixView> &views, const MatrixView &view) {
    if (llvm::none_of(views,
                      [&](const MatrixView &v) { return v.sameMemory(view); }))
      views.push_back(view);
  }
  static bool contains(ArrayRef<MatrixView> views, const MatrixView &view) {
    return llvm::any_of(
        views, [&](const MatrixView &v) { return v.sameMemory(view); });
  }
};

/// Where a part's accumulator registers sit in its block: register r of a
/// thread holds row threadRow + rowOffset(r), column threadCol +
/// colOffset(r). Registers r and r + 1 (r even) hold columns n and n + 1
/// of one row; registers [b registersPerBox, (b + 1) registersPerBox) hold
/// the columns of box b, or (registersPerBox 0) a thread's registers are
/// not ordered by box (the mma.sync fragment: its columns are its warp's).
struct AccumulatorFragment {
  /// The thread's origin in the block (i32), from its thread index `tid`
  /// and its index in the part `thread`.
  std::function<Value(KernelBuilder &, Value tid, Value thread)> threadRow;
  std::function<Value(KernelBuilder &, Value tid)> threadCol;
  std::function<int64_t(int64_t r)> rowOffset, colOffset;
  int64_t registersPerBox = 0;
};

struct StagedEpilogueSpec {
  Extent m, n;
  int64_t tileN = 0; // columns of a part's block
  Type element;      // of the staged views
  GemmSpec::Epilogue epilogue;
  AccumulatorFragment fragment;
  /// The threads of a part: a warpgroup, or two warps (the mma.sync blocks
  /// of 4 warps; their epilogue stages nothing).
  int64_t partThreads = kEpiloguePartThreads;
  /// Tensor maps (boxes of 64 rows x 128 bytes) of views the epilogue may
  /// stage: their blocks move by TMA.
  SmallVector<std::pair<MatrixView, unsigned>> outputMaps;
  /// Staged, each element still runs under its bounds guard: a basic block
  /// per element, whose chains ptxas cannot interleave with the next ones'.
  /// Unguarded (the default), a part's elements are one basic block: faster
  /// where the registers beside the accumulators allow it.
  bool guardStagedElements = false;

  int64_t elementBytes() const { return element.getIntOrFloatBitWidth() / 8; }
  /// Columns of a staged box, of a 16-byte piece.
  int64_t boxColumns() const { return kEpilogueBoxRowBytes / elementBytes(); }
  /// Staged boxes across a part's block.
  int64_t boxesPerPart() const { return tileN / boxColumns(); }
  int64_t pieceColumns() const { return 16 / elementBytes(); }
  /// Registers per thread of a part's block.
  int64_t registers() const { return kEpiloguePartRows * tileN / partThreads; }
  /// Whether the columns pair up (N even and static).
  bool pairsColumns() const { return !n.tokens && n.value % 2 == 0; }
};

/// Where the epilogue stages its views: when every view it reads or writes
/// at its element takes 16-byte pieces and their blocks fit in the lent
/// slots, part c's kEpiloguePartRows x tileN block of view j sits at
/// boxOffset(j, c, 0) as tileN / boxColumns boxes.
struct StagingPlan {
  SmallVector<MatrixView> views;             // read or written at the element
  SmallVector<std::optional<unsigned>> maps; // each view's tensor map
  int64_t slotsBase = 0;                     // the first slot's byte offset
  int64_t slotBytes = 0;                     // one part's block of a view
  /// (slot, tensor map) of the views read through a tensor map (K3's G
  /// and U): the main loop's producer loads their blocks into the slots as
  /// its ring frees them, so they arrive under its last k-steps.
  SmallVector<std::pair<unsigned, unsigned>> prefetched;
  /// Every staged block arrives that way: no part's thread touches a slot
  /// before its bytes are there, so the parts need not wait for each other
  /// to free the ring.
  bool allPrefetched() const { return prefetched.size() == views.size(); }
  /// Boxes of each part's block whose elements other threads compute (the
  /// main loop's producer warpgroup, once its loads are issued): the part
  /// leaves their accumulators in shared memory past the ring (handoffAt),
  /// 4 registers of a thread as one 16-byte piece, pieces of a register
  /// quad kEpiloguePartThreads x 16 bytes apart, and takes the other boxes.
  int64_t handedOffBoxes = 0;
  int64_t handoffBase = 0; // past the ring
  int64_t registersPerBox = 0;
  int64_t handoffBoxBytes() const {
    return kEpiloguePartThreads * registersPerBox * 4;
  }
  int64_t handoffAt(int64_t part) const {
    return handoffBase + part * handedOffBoxes * handoffBoxBytes();
  }
  int64_t handoffBytes() const { return 2 * handedOffBoxes * handoffBoxBytes(); }
  /// Where thread 0 left the handed-off register `r` (counted from the
  /// first) in its part's area; thread t's is 16 t bytes on.
  static int64_t handedOffAt(int64_t r) {
    return r / 4 * kEpiloguePartThreads * 16 + r % 4 * 4;
  }
  /// The first register handed off.
  int64_t firstHandedOff(const StagedEpilogueSpec &spec) const {
    return spec.registers() - handedOffBoxes * registersPerBox;
  }

  static constexpr int64_t kBoxBytes = kEpiloguePartRows * kEpilogueBoxRowBytes;
  int64_t boxOffset(unsigned j, int64_t part, int64_t box) const {
    return slotsBase + (2 * j + part) * slotBytes + box * kBoxBytes;
  }

  /// A box of a part's block of a prefetched view: tensor map `map`'s box
  /// at (the tile's first column + column, its first row + 64 part) into
  /// byte `offset` of shared memory.
  struct PrefetchedBox {
    unsigned map;
    int64_t offset, column, part;
  };
  /// The prefetched boxes of both parts (view by view, part by part, box
  /// by box) grouped by the ring stage they lie in: `stages` stages of
  /// `stageBytes` from byte `ringBase` on, each a whole number of boxes.
  SmallVector<SmallVector<PrefetchedBox>>
  prefetchedByStage(const StagedEpilogueSpec &spec, int64_t ringBase,
                    int64_t stageBytes, int64_t stages) const;

  /// The plan for two parts whose slots may take `slotBytesAvailable` bytes
  /// from `slotsBase` on, or none when staging does not apply.
  static std::optional<StagingPlan> of(const StagedEpilogueSpec &spec,
                                       const EpilogueViews &views,
                                       int64_t slotsBase,
                                       int64_t slotBytesAvailable);
};

/// Which of a part's accumulator registers an epilogue runs on, and where
/// they are: in registers (the part's threads) or in its hand-off area
/// (other threads, StagingPlan::handedOffBoxes).
struct EpiloguePart {
  ValueRange accumulators; // the part's, or
  int64_t handoff = -1;    // byte offset of the handed-off registers
  int64_t begin = 0, end = 0;
  bool byOtherThreads() const { return handoff >= 0; }
};

/// The main loop's side: its shared memory and barriers.
class EpilogueHost {
public:
  virtual ~EpilogueHost() = default;
  /// The address (ptr<3>) of byte `offset` (i32) of dynamic shared memory.
  virtual Value sharedAt(Value byteOffset) = 0;
  /// Every part's threads are past the main loop (the slots are free).
  virtual void syncAllParts() = 0;
  /// The threads running `which` of part `part` (i32) meet.
  virtual void syncPart(const EpiloguePart &which, Value part) = 0;
  /// Part `part`'s prefetched blocks (StagingPlan::prefetched) are there.
  virtual void waitPrefetched(Value part) = 0;
};

/// The epilogue of registers `which` of part `part` (i32, 0 or 1) of the
/// tile at (m0, n0) (i64): spec.epilogue on each of their elements.
void buildStagedEpilogue(KernelBuilder &kb, const StagedEpilogueSpec &spec,
                         EpilogueHost &host, const EpilogueViews &views,
                         const std::optional<StagingPlan> &plan, Value part,
                         const EpiloguePart &which, Value m0, Value n0);

} // namespace mlir::fmlp

#endif // FMLP_CODEGEN_STAGEDEPILOGUE_H
