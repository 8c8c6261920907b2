//===- WgmmaGemm.cpp - The GEMM skeleton on Hopper tensor cores -----------===//
//
// buildWgmmaGemm (KernelBuilder.h). Block of 384 threads:
//
//   warpgroup 0      producer: one elected thread of warp 0 waits for a free
//                    stage (empty[s]), arms full[s] with the stage's byte
//                    count and issues the TMA loads of A and every B_j.
//   warpgroups 1, 2  consumers, 64 rows of the 128-row tile each: wait for
//                    full[s], issue 4 WGMMAs (k16 each) per accumulator as
//                    one group, wait until only that group is pending and
//                    release the previous step's stage (one arrival per
//                    warpgroup on empty[s - 1]); the last stage once all
//                    are done.
//
// Dynamic shared memory: [0, 1024) the mbarriers (full[s] at 8 s, empty[s]
// at 8 (stages + s), the epilogue's of consumer c at 8 (2 stages + c)),
// then `stages` stages of A (128 x 64) and B_j (tileN x 64), each row 128
// bytes, 128-byte swizzled, 1024-byte aligned.
//
// Ring invariant: k-step i uses stage s = i mod stages in round r = i div
// stages; full[s] completes its phase r when the stage's bytes arrive, and
// empty[s] its phase r once both consumers are done with it, so a waiter
// on round r waits on parity r mod 2 (the producer on empty's previous
// round: parity (r + 1) mod 2, which passes at once in round 0).
//
//===----------------------------------------------------------------------===//

#include "lib/CodeGen/KernelBuilder.h"
#include "lib/CodeGen/TileSelection.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fmlp;

namespace {

constexpr int64_t kBarrierBytes = 1024;
constexpr int64_t kRowBytes = 128; // 64 16-bit elements of k per row
constexpr int64_t kConsumerRows = 64;
/// 16-byte pieces each thread has in flight when threads move a staged
/// block (Epilogue::copy; more would spill the accumulators).
constexpr int64_t kPiecesAtOnce = 4;
constexpr StringLiteral kDynamicShared = "fmlp_dynamic_shared";
/// Register r of an m64nNk16 fragment holds column 8 (r / 4) + 2 (l mod 4)
/// + r mod 2: a 64-column box is 32 registers.
constexpr int64_t kRegistersPerBox = kWgmmaOutputBox / 8 * 4;
/// Named barriers: 0 the block, 1 both consumers, 2 + c consumer c, 4 the
/// producer warpgroup, 5 + c consumer c's hand-off to the producer.
constexpr int64_t kProducerBarrier = 4, kHandoffBarrier = 5;

/// Registers per thread after setmaxnreg: the producer warpgroup gives up
/// what the two consumer warpgroups take. setmaxnreg.inc only draws on what
/// the block's setmaxnreg.dec released (the block holds 384 x
/// kWgmmaMaxRegisters), so more than that leaves the consumers waiting
/// forever.
struct RegisterSplit {
  int32_t producer, consumer;
};
constexpr RegisterSplit kLoadsOnly{40, 232};
/// The producer also runs elements (StagingPlan::handedOffBoxes).
constexpr RegisterSplit kWithHandoff{120, 192};
constexpr bool fitsBlock(RegisterSplit split) {
  return 128 * split.producer + 256 * split.consumer <=
             kWgmmaThreads * kWgmmaMaxRegisters &&
         split.producer % 8 == 0 && split.consumer % 8 == 0;
}
static_assert(fitsBlock(kLoadsOnly) && fitsBlock(kWithHandoff));

/// Whether the epilogue's columns pair up (N even and static): registers r
/// and r + 1 hold columns n and n + 1 of a row.
bool pairsColumns(const WgmmaGemmSpec &spec) {
  return !spec.n.tokens && spec.n.value % 2 == 0;
}

int64_t stageBytes(const WgmmaGemmSpec &spec) {
  return (kWgmmaTileM + spec.b.size() * spec.tileN) * kRowBytes;
}

/// Bytes between the 64-wide blocks of an MN-major tile (64 k rows each).
constexpr int64_t kMnBlockBytes = kWgmmaTileK * kRowBytes;

/// The module's dynamic shared memory symbol (declared once).
Value dynamicShared(KernelBuilder &kb) {
  auto module = kb.func->getParentOfType<gpu::GPUModuleOp>();
  if (!module.lookupSymbol(kDynamicShared)) {
    OpBuilder::InsertionGuard guard(kb.b);
    kb.b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(
        kb.b, kb.loc, LLVM::LLVMArrayType::get(kb.b.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, kDynamicShared,
        /*value=*/Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(
      kb.b, kb.loc, LLVM::LLVMPointerType::get(kb.b.getContext(), 3),
      kDynamicShared);
}

/// What spec.epilogue accesses at its own element (row m, column n of the
/// output): the views it reads and writes there, and whether it loads or
/// stores anywhere else (a bias). Learnt by building it once in a scratch
/// block, then throwing that away.
struct EpilogueViews {
  SmallVector<MatrixView> read, written;
  bool loadsElsewhere = false, storesElsewhere = false;

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

class Discovery : public EpilogueAccess {
public:
  static EpilogueViews run(KernelBuilder &kb, const WgmmaGemmSpec &spec) {
    Discovery discovery(kb);
    auto scratch = std::make_unique<Block>();
    {
      OpBuilder::InsertionGuard insertion(kb.b);
      kb.b.setInsertionPointToStart(scratch.get());
      discovery.row = kb.i64(0);
      discovery.col = kb.i64(0);
      SmallVector<Value> acc(spec.b.size(), kb.f32(0.0));
      EpilogueAccess *outer = kb.epilogueAccess;
      kb.epilogueAccess = &discovery;
      spec.epilogue(kb, discovery.row, discovery.col, acc);
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

/// Where the epilogue stages its views (Epilogue): when every view it
/// reads or writes at its element takes 16-byte pieces and their blocks fit
/// in the stage ring, consumer c's 64 x tileN block of view j sits at
/// boxOffset(j, c, 0) as tileN / 64 boxes of 64 rows x 128 bytes.
struct StagingPlan {
  SmallVector<MatrixView> views;             // read or written at the element
  SmallVector<std::optional<unsigned>> maps; // each view's tensor map
  int64_t slotBytes = 0;                     // one consumer's block of a view
  /// (slot, tensor map) of the views read through a tensor map (K3's G
  /// and U): the producer loads their blocks into the ring's stages as the
  /// main loop frees them (Wgmma::prefetchStaged), so they arrive under its
  /// last k-steps instead of after them.
  SmallVector<std::pair<unsigned, unsigned>> prefetched;
  /// Every staged block arrives that way: no consumer thread touches a
  /// slot before its bytes are there, so the consumers need not wait for
  /// each other to free the ring.
  bool allPrefetched() const { return prefetched.size() == views.size(); }
  /// Boxes of each consumer's block whose elements the producer warpgroup
  /// computes once its loads are issued (prefetched plans whose hand-off
  /// fits): the consumer leaves their accumulators in shared memory past
  /// the ring (handoffAt), 4 registers of a thread as one 16-byte piece,
  /// pieces of a register quad 2 KiB apart, and takes the other boxes.
  int64_t handedOffBoxes = 0;
  int64_t handoffBase = 0; // past the ring
  static constexpr int64_t kHandoffBoxBytes = 128 * kRegistersPerBox * 4;
  int64_t handoffAt(int64_t consumer) const {
    return handoffBase + consumer * handedOffBoxes * kHandoffBoxBytes;
  }
  int64_t handoffBytes() const { return 2 * handedOffBoxes * kHandoffBoxBytes; }
  /// Where thread 0 left the handed-off register `r` (counted from the
  /// first) in its consumer's area; thread t's is 16 t bytes on.
  static int64_t handedOffAt(int64_t r) { return r / 4 * 128 * 16 + r % 4 * 4; }
  /// The first register handed off.
  int64_t firstHandedOff(const WgmmaGemmSpec &spec) const {
    return spec.tileN / 2 - handedOffBoxes * kRegistersPerBox;
  }

  static constexpr int64_t kBoxBytes = kConsumerRows * kRowBytes;
  int64_t boxOffset(unsigned j, int64_t consumer, int64_t box) const {
    return kBarrierBytes + (2 * j + consumer) * slotBytes + box * kBoxBytes;
  }

  static std::optional<StagingPlan> of(const WgmmaGemmSpec &spec,
                                       const EpilogueViews &views) {
    bool wholeGroups =
        kConsumerRows * spec.tileN / 8 % (128 * kPiecesAtOnce) == 0;
    if (!pairsColumns(spec) || views.storesElsewhere || views.written.empty() ||
        !wholeGroups || spec.n.value % 8 != 0 ||
        spec.tileN % kWgmmaOutputBox != 0)
      return std::nullopt;
    StagingPlan plan;
    for (const MatrixView &view :
         llvm::concat<const MatrixView>(views.read, views.written)) {
      if (!view.vectors())
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
    plan.slotBytes = kConsumerRows * spec.tileN * 2;
    if (2 * plan.slotBytes * int64_t(plan.views.size()) >
        spec.stages * stageBytes(spec))
      return std::nullopt;
    plan.handoffBase = wgmmaSharedBytes(spec);
    if (plan.allPrefetched() && spec.b.size() == 1 &&
        spec.tileN / kWgmmaOutputBox >= 2) {
      plan.handedOffBoxes = 1;
      if (plan.handoffBase + plan.handoffBytes() > spec.sharedBytesLimit)
        plan.handedOffBoxes = 0;
    }
    return plan;
  }
};

/// Which of a consumer's accumulator registers an epilogue runs on, and
/// where they are: in registers (the consumer) or in its hand-off area (the
/// producer warpgroup, StagingPlan::handedOffBoxes).
struct EpiloguePart {
  ValueRange accumulators; // the consumer's, or
  int64_t handoff = -1;    // byte offset of the handed-off registers
  int64_t begin = 0, end = 0;
  bool byProducer() const { return handoff >= 0; }
};

struct Wgmma {
  KernelBuilder &kb;
  const WgmmaGemmSpec &spec;
  Value shared; // ptr<3>, 1024-aligned
  Type i32, i64, ptr3;

  Wgmma(KernelBuilder &kb, const WgmmaGemmSpec &spec)
      : kb(kb), spec(spec), i32(kb.b.getI32Type()), i64(kb.b.getI64Type()),
        ptr3(LLVM::LLVMPointerType::get(kb.b.getContext(), 3)) {
    shared = dynamicShared(kb);
  }

  OpBuilder &b() { return kb.b; }
  Value c32(int64_t v) { return kb.i32(static_cast<int32_t>(v)); }
  Value at(Value byteOffset) { // ptr<3> + bytes (i32)
    return LLVM::GEPOp::create(b(), kb.loc, ptr3, b().getI8Type(), shared,
                               ValueRange{byteOffset});
  }
  Value udiv(Value x, int64_t y) {
    return arith::DivUIOp::create(b(), kb.loc, x, c32(y));
  }
  Value urem(Value x, int64_t y) {
    return arith::RemUIOp::create(b(), kb.loc, x, c32(y));
  }
  Value eq(Value x, int64_t y) {
    return arith::CmpIOp::create(b(), kb.loc, arith::CmpIPredicate::eq, x,
                                 c32(y));
  }
  Value full(Value stage) { return at(kb.mul(stage, c32(8))); }
  Value empty(Value stage) {
    return at(kb.add(kb.mul(stage, c32(8)), c32(8 * spec.stages)));
  }
  /// Byte offset of stage `stage`'s A tile; B_j follows at + 128 rows etc.
  Value stageOffset(Value stage) {
    return kb.add(c32(kBarrierBytes), kb.mul(stage, c32(stageBytes(spec))));
  }
  Value bOffset(unsigned j) {
    return c32((kWgmmaTileM + j * spec.tileN) * kRowBytes);
  }

  /// A WGMMA shared-memory descriptor of a 128-byte swizzled tile at
  /// `address`: start >> 4 (bits 0-13), leading byte offset >> 4 (bits
  /// 16-29), stride byte offset >> 4 (bits 32-45), swizzle 128 B (bits
  /// 62-63 = 1). Both layouts repeat 8 rows of 128 B every 1024 B (the
  /// stride offset). K-major: a row is one m/n, the leading offset unused
  /// (1). MN-major: a row is one k, and the 64-wide m/n blocks are
  /// kMnBlockBytes apart (the leading offset).
  Value descriptor(Value address, bool kMajor) {
    Value a = LLVM::PtrToIntOp::create(b(), kb.loc, i64, address);
    a = arith::AndIOp::create(b(), kb.loc, a, kb.i64(0x3FFFF));
    a = arith::ShRUIOp::create(b(), kb.loc, a, kb.i64(4));
    int64_t leading = kMajor ? 1 : kMnBlockBytes >> 4;
    int64_t high =
        (int64_t(1) << 62) | (int64_t(1024 >> 4) << 32) | (leading << 16);
    return arith::OrIOp::create(b(), kb.loc, a, kb.i64(high));
  }
  /// Bytes from one k16 step to the next in a tile.
  static int64_t kStepBytes(bool kMajor) {
    return kMajor ? 32 : 16 * kRowBytes;
  }

  /// This block's tile (m, n) in grouped order. Blocks start in the order
  /// of id = y gx + x; the grid's x indexes m. Taken as they are, the
  /// blocks running at once (a wave of 132) would share one B column-block
  /// and each read its own A row-block: at T = 32768, D = 4096 every wave
  /// reads 132 MiB of A, more than L2 holds, and all of A again for each
  /// of the 86 n tiles. Consecutive ids here walk kGroupRows m tiles, then
  /// the next n tile, so a wave covers ~16 x 8 tiles whose A and B blocks
  /// stay in L2 (the last group has gx mod kGroupRows rows).
  std::pair<Value, Value> tileOfBlock() {
    constexpr int64_t kGroupRows = 16;
    Value gx = NVVM::GridDimXOp::create(b(), kb.loc, i32);
    Value gy = NVVM::GridDimYOp::create(b(), kb.loc, i32);
    Value id = kb.add(kb.blockId(0), kb.mul(kb.blockId(1), gx));
    Value perGroup = kb.mul(gy, c32(kGroupRows));
    Value firstRow = kb.mul(arith::DivUIOp::create(b(), kb.loc, id, perGroup),
                            c32(kGroupRows));
    Value rows = arith::MinUIOp::create(
        b(), kb.loc, arith::SubIOp::create(b(), kb.loc, gx, firstRow),
        c32(kGroupRows));
    Value inGroup = arith::RemUIOp::create(b(), kb.loc, id, perGroup);
    return {
        kb.add(firstRow, arith::RemUIOp::create(b(), kb.loc, inGroup, rows)),
        arith::DivUIOp::create(b(), kb.loc, inGroup, rows)};
  }

  /// TMA: the box of `map` at (inner, outer) into shared memory at byte
  /// `offset`, its bytes counted on `barrier`.
  void tmaLoad(unsigned map, Value offset, Value inner, Value outer,
               Value barrier) {
    Value dst = LLVM::AddrSpaceCastOp::create(
        b(), kb.loc, LLVM::LLVMPointerType::get(b().getContext(), 7),
        at(offset));
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b(), kb.loc, dst, kb.tensorMap(map), ValueRange{inner, outer}, barrier,
        ValueRange{}, Value(), Value(), NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), Value());
  }
  /// The epilogue's mbarrier of consumer `consumer` (its blocks loaded by
  /// TMA), after the ring's.
  Value epilogueBarrier(Value consumer) {
    return at(kb.add(kb.mul(consumer, c32(8)), c32(16 * spec.stages)));
  }

  /// Waits (the op retries) until `barrier` completes the phase of
  /// `parity`.
  void waitParity(Value barrier, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(b(), kb.loc, barrier, parity,
                                          c32(10000000));
  }

  static bool handsOff(const std::optional<StagingPlan> &staging) {
    return staging && staging->handedOffBoxes;
  }
  static RegisterSplit
  registerSplit(const std::optional<StagingPlan> &staging) {
    return handsOff(staging) ? kWithHandoff : kLoadsOnly;
  }

  /// The producer's wait before filling k-step `step`'s stage: until the
  /// consumers have released it in the previous round.
  void waitFree(Value step) {
    Value round = udiv(step, spec.stages);
    Value parity = arith::XOrIOp::create(
        b(), kb.loc, arith::AndIOp::create(b(), kb.loc, round, c32(1)), c32(1));
    waitParity(empty(urem(step, spec.stages)), parity);
  }

  /// After the main loop's loads: each consumer's blocks of the views read
  /// through a tensor map (StagingPlan::prefetched), by TMA into their
  /// slots, counted on its epilogue mbarrier. A slot's box lies in ring stage
  /// s, free once the consumers release the main loop's last k-step on s; the
  /// producer waits for it as it would for the next one on s, virtual step
  /// kSteps + ((s - kSteps) mod stages) (a stage the main loop never used
  /// passes at once). A stage (rows of 128 bytes: 128 of A, tileN of each B,
  /// tileN a multiple of 64) is a whole number of boxes, so no box straddles
  /// two stages.
  void prefetchStaged(const StagingPlan &plan, Value kSteps, Value m0,
                      Value n0) {
    ArrayRef<std::pair<unsigned, unsigned>> read = plan.prefetched;
    for (int64_t c = 0; c < 2; ++c)
      NVVM::MBarrierArriveExpectTxOp::create(
          b(), kb.loc, /*res=*/Type(), epilogueBarrier(c32(c)),
          c32(read.size() * plan.slotBytes), NVVM::MemScopeKind::CTA,
          /*relaxed=*/false, /*predicate=*/Value());
    // (map, byte offset, column, consumer) of each box, by stage.
    struct Box {
      unsigned map;
      int64_t offset, column, consumer;
    };
    SmallVector<SmallVector<Box>> byStage(spec.stages);
    for (auto [j, map] : read)
      for (int64_t c = 0; c < 2; ++c)
        for (int64_t box = 0; box < spec.tileN / kWgmmaOutputBox; ++box) {
          int64_t offset = plan.boxOffset(j, c, box);
          byStage[(offset - kBarrierBytes) / stageBytes(spec)].push_back(
              {map, offset, box * kWgmmaOutputBox, c});
        }
    Value pastLast = urem(kSteps, spec.stages);
    for (auto [s, boxes] : llvm::enumerate(byStage)) {
      if (boxes.empty())
        continue;
      Value ahead = arith::SubIOp::create(
          b(), kb.loc, c32(int64_t(s) + spec.stages), pastLast);
      waitFree(kb.add(kSteps, urem(ahead, spec.stages)));
      for (const Box &box : boxes)
        tmaLoad(box.map, c32(box.offset), kb.add(n0, c32(box.column)),
                kb.add(m0, c32(box.consumer * kConsumerRows)),
                epilogueBarrier(c32(box.consumer)));
    }
  }

  void producer(Value kSteps, Value m0, Value n0, const EpilogueViews &views,
                const std::optional<StagingPlan> &staging) {
    bool handoff = handsOff(staging);
    NVVM::SetMaxRegisterOp::create(b(), kb.loc, registerSplit(staging).producer,
                                   NVVM::SetMaxRegisterAction::decrease);
    Value tid = kb.threadIdX();
    kb.ifThen(eq(udiv(tid, 32), 0), [&] {
      Value elected =
          NVVM::ElectSyncOp::create(b(), kb.loc, b().getI1Type(), Value());
      kb.ifThen(elected, [&] {
        auto loop = scf::ForOp::create(b(), kb.loc, c32(0), kSteps, c32(1));
        OpBuilder::InsertionGuard guard(b());
        b().setInsertionPointToStart(loop.getBody());
        Value step = loop.getInductionVar();
        Value stage = urem(step, spec.stages);
        waitFree(step);
        NVVM::MBarrierArriveExpectTxOp::create(
            b(), kb.loc, /*res=*/Type(), full(stage), c32(stageBytes(spec)),
            NVVM::MemScopeKind::CTA, /*relaxed=*/false, /*predicate=*/Value());
        Value kc = kb.mul(step, c32(kWgmmaTileK));
        Value base = stageOffset(stage);
        // One operand's tile of `rows` m/n from `row0`: a box of 64 k x rows
        // (K-major) or rows / 64 boxes of 64 m/n x 64 k (MN-major).
        auto issue = [&](unsigned map, Value offset, Value row0, Value k0,
                         bool kMajor, int64_t rows) {
          auto load = [&](Value dstOffset, Value inner, Value outer) {
            tmaLoad(map, kb.add(base, dstOffset), inner, outer, full(stage));
          };
          if (kMajor)
            return load(offset, k0, row0);
          for (int64_t j = 0; j < rows / 64; ++j)
            load(kb.add(offset, c32(j * kMnBlockBytes)),
                 kb.add(row0, c32(64 * j)), k0);
        };
        auto operand = [&](const WgmmaOperand &op, Value offset, Value row0,
                           int64_t rows) {
          if (op.kSplit == 0)
            return issue(op.map, offset, row0, kc, op.kMajor, rows);
          Value low = kb.lessThan(kc, c32(op.kSplit));
          auto branch = scf::IfOp::create(b(), kb.loc, low, true);
          OpBuilder::InsertionGuard guard(b());
          b().setInsertionPoint(branch.thenBlock()->getTerminator());
          issue(op.map, offset, row0, kc, op.kMajor, rows);
          b().setInsertionPoint(branch.elseBlock()->getTerminator());
          issue(op.highMap, offset, row0, kb.add(kc, c32(-op.kSplit)),
                op.kMajor, rows);
        };
        operand(spec.a, c32(0), m0, kWgmmaTileM);
        for (unsigned j = 0; j < spec.b.size(); ++j)
          operand(spec.b[j], bOffset(j), n0, spec.tileN);
      });
      if (staging && !staging->prefetched.empty())
        kb.ifThen(elected, [&] { prefetchStaged(*staging, kSteps, m0, n0); });
      // Warp 0 whole again before the hand-off's aligned barriers.
      if (handoff)
        NVVM::SyncWarpOp::create(b(), kb.loc, c32(-1));
    });
    if (!handoff)
      return;
    // Each consumer's handed-off boxes, once it has left their accumulators.
    for (int64_t c = 0; c < 2; ++c) {
      namedBarrier(c32(kHandoffBarrier + c), 2 * 128);
      EpiloguePart part;
      part.handoff = staging->handoffAt(c);
      part.begin = staging->firstHandedOff(spec);
      part.end = spec.tileN / 2;
      epilogue(views, staging, c32(c), part, kb.toI64(m0), kb.toI64(n0));
    }
  }

  LLVM::LLVMStructType accumulatorType() {
    SmallVector<Type> fields(spec.tileN / 2, b().getF32Type());
    return LLVM::LLVMStructType::getLiteral(b().getContext(), fields);
  }

  /// k-step `step` of this consumer: wait for its stage, add its 64 k to
  /// `acc` (the first step overwrites it: scale-out zero), and release the
  /// previous step's stage once only this step's group is pending (it
  /// stays in flight while the next step is issued).
  SmallVector<Value> mmaStep(Value step, Value consumer, ValueRange acc,
                             bool first) {
    Value stage = urem(step, spec.stages);
    Value parity =
        arith::AndIOp::create(b(), kb.loc, udiv(step, spec.stages), c32(1));
    waitParity(full(stage), parity);
    Value base = stageOffset(stage);
    // Each consumer's 64 rows of A: 64 rows on (K-major) or the next
    // 64-wide block (MN-major), 8 KiB on either way.
    Value aBase =
        kb.add(base, kb.mul(consumer, c32(kConsumerRows * kRowBytes)));
    NVVM::WgmmaFenceAlignedOp::create(b(), kb.loc);
    SmallVector<Value> sums(acc);
    NVVM::WGMMATypes type =
        spec.element.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    auto shape = NVVM::MMAShapeAttr::get(b().getContext(), 64,
                                         static_cast<int>(spec.tileN), 16);
    for (int64_t kk = 0; kk < kWgmmaTileK / 16; ++kk) {
      bool aK = spec.a.kMajor;
      Value dA = descriptor(at(kb.add(aBase, c32(kStepBytes(aK) * kk))), aK);
      for (unsigned j = 0; j < spec.b.size(); ++j) {
        bool bK = spec.b[j].kMajor;
        Value dB = descriptor(
            at(kb.add(kb.add(base, bOffset(j)), c32(kStepBytes(bK) * kk))), bK);
        sums[j] = NVVM::WgmmaMmaAsyncOp::create(
            b(), kb.loc, sums[j].getType(), sums[j], dA, dB, shape, type, type,
            NVVM::WGMMATypes::f32,
            first && kk == 0 ? NVVM::WGMMAScaleOut::zero
                             : NVVM::WGMMAScaleOut::one,
            NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
            // A: row = K-major; B: col = K-major.
            aK ? NVVM::MMALayout::row : NVVM::MMALayout::col,
            bK ? NVVM::MMALayout::col : NVVM::MMALayout::row,
            NVVM::MMAIntOverflowAttr());
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b(), kb.loc);
    NVVM::WgmmaWaitGroupSyncOp::create(b(), kb.loc, 1);
    releaseBefore(step);
    return sums;
  }

  /// The main loop, k-step 0 peeled: its WGMMAs start the sums from
  /// nothing (undefined registers, no zeroing moves: ptxas serializes the
  /// WGMMAs of a loop whose accumulators other instructions define).
  void consumer(Value kSteps, Value m0Index, Value n0Index,
                const EpilogueViews &views,
                const std::optional<StagingPlan> &staging) {
    NVVM::SetMaxRegisterOp::create(b(), kb.loc, registerSplit(staging).consumer,
                                   NVVM::SetMaxRegisterAction::increase);
    Value consumer = kb.add(udiv(kb.threadIdX(), 128), c32(-1)); // 0 or 1
    Value undefined = LLVM::UndefOp::create(b(), kb.loc, accumulatorType());
    SmallVector<Value> acc =
        mmaStep(c32(0), consumer, SmallVector<Value>(spec.b.size(), undefined),
                /*first=*/true);
    auto loop = scf::ForOp::create(b(), kb.loc, c32(1), kSteps, c32(1), acc);
    {
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPointToStart(loop.getBody());
      scf::YieldOp::create(b(), kb.loc,
                           mmaStep(loop.getInductionVar(), consumer,
                                   loop.getRegionIterArgs(), /*first=*/false));
    }
    NVVM::WgmmaWaitGroupSyncOp::create(b(), kb.loc, 0);
    releaseBefore(kSteps);

    EpiloguePart part;
    part.accumulators = loop.getResults();
    part.end = spec.tileN / 2;
    if (handsOff(staging)) {
      part.end = staging->firstHandedOff(spec);
      handOff(*staging, consumer, loop.getResults()[0], part.end);
    }
    epilogue(views, staging, consumer, part, m0Index, n0Index);
  }

  /// Consumer `consumer`'s accumulator registers from `first` on, into its
  /// hand-off area (StagingPlan::handedOffBoxes), then its arrival on the
  /// hand-off barrier the producer waits on.
  void handOff(const StagingPlan &plan, Value consumer, Value accumulator,
               int64_t first) {
    Value thread = urem(kb.threadIdX(), 128);
    Value base = kb.add(
        kb.add(c32(plan.handoffAt(0)),
               kb.mul(consumer, c32(plan.handoffAt(1) - plan.handoffAt(0)))),
        kb.mul(thread, c32(16)));
    auto quad = VectorType::get({4}, b().getF32Type());
    for (int64_t r = first; r < spec.tileN / 2; r += 4) {
      Value piece = LLVM::UndefOp::create(b(), kb.loc, quad);
      for (int64_t i = 0; i < 4; ++i)
        piece = LLVM::InsertElementOp::create(
            b(), kb.loc, piece,
            LLVM::ExtractValueOp::create(b(), kb.loc, accumulator, r + i),
            c32(i));
      LLVM::StoreOp::create(
          b(), kb.loc, piece,
          at(kb.add(base, c32(StagingPlan::handedOffAt(r - first)))), 16);
    }
    NVVM::BarrierArriveOp::create(
        b(), kb.loc, kb.add(c32(kHandoffBarrier), consumer), c32(2 * 128));
  }

  /// One consumer's arrival on the empty barrier of k-step `step` - 1, if
  /// any (its WGMMAs on that stage are done).
  void releaseBefore(Value step) {
    Value leader = eq(urem(kb.threadIdX(), 128), 0);
    Value after = arith::CmpIOp::create(b(), kb.loc, arith::CmpIPredicate::ugt,
                                        step, c32(0));
    kb.ifThen(kb.both(leader, after), [&] {
      NVVM::MBarrierArriveOp::create(
          b(), kb.loc, /*res=*/Type(),
          empty(urem(kb.add(step, c32(-1)), spec.stages)), /*count=*/Value());
    });
  }

  void epilogue(const EpilogueViews &views,
                const std::optional<StagingPlan> &staging, Value consumer,
                const EpiloguePart &part, Value m0, Value n0);
  void namedBarrier(Value id, int64_t threads) {
    NVVM::BarrierOp::create(b(), kb.loc, TypeRange{}, id, c32(threads),
                            NVVM::BarrierReductionAttr(), Value());
  }
};

/// The epilogue of one consumer: spec.epilogue on each element of its
/// 64 x tileN block. Fragment of m64nNk16 (fp32): register r of thread
/// (warp w, lane l) holds row 16 w + l / 4 + 8 ((r mod 4) / 2), column
/// 8 (r / 4) + 2 (l mod 4) + r mod 2; registers r and r + 1 (r even) hold
/// columns n and n + 1 of a row, so with N even their stores pair up into
/// one 32-bit word.
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
/// sits at kBarrierBytes + (2 j + c) slotBytes as tileN / 64 boxes of 64
/// rows x 128 bytes, 128-byte swizzled (16-byte piece p of row r at piece
/// p xor (r mod 8)): a warp's pair accesses (8 rows x 4 lanes) hit 32
/// distinct banks. A view with a tensor map (spec.outputMaps) moves by TMA,
/// issued by one thread: in, by the producer (StagingPlan::prefetched),
/// counted on the consumer's epilogue mbarrier; out, box by box as the elements
/// finish it (under the next box's elements), as bulk stores the consumer's
/// first thread waits to have read at the end (the global writes drain while
/// the next block runs). Any other moves in coalesced 16-byte pieces by all its
/// threads. The ring is free once both consumers are past the main loop (every
/// TMA load was consumed, every WGMMA waited for).
class Epilogue : public EpilogueAccess {
public:
  Epilogue(Wgmma &w, const EpilogueViews &views,
           const std::optional<StagingPlan> &plan, Value consumer,
           const EpiloguePart &part, Value m0, Value n0)
      : w(w), kb(w.kb), spec(w.spec), views(views), consumer(consumer),
        part(part), col0(n0) {
    if (plan) {
      staging = &*plan;
      // This consumer's block of view 0.
      slotBase = kb.add(w.c32(plan->boxOffset(0, 0, 0)),
                        kb.mul(consumer, w.c32(plan->slotBytes)));
    }
    row0 = kb.add(m0, kb.toI64(kb.mul(consumer, w.c32(kConsumerRows))));
    Value tid = kb.threadIdX();
    thread = w.urem(tid, 128);
    Value lane = w.urem(tid, 32), warp = w.udiv(thread, 32);
    rowBase = kb.add(
        row0, kb.toI64(kb.add(kb.mul(warp, w.c32(16)), w.udiv(lane, 4))));
    colBase = kb.add(col0, kb.toI64(kb.mul(w.urem(lane, 4), w.c32(2))));
    extentM = kb.extent(spec.m);
    extentN = kb.extent(spec.n);
    pairColumns = pairsColumns(spec);
  }

  void build() {
    kb.epilogueAccess = this;
    if (staging) {
      // Both consumers (256 threads) past the main loop: the ring is free
      // for the slots its threads touch. (The producer waits for that
      // stage by stage before it loads a slot.)
      if (!staging->allPrefetched())
        w.namedBarrier(w.c32(1), 2 * 128);
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
      bool unguarded = staging && !views.loadsElsewhere;
      for (int64_t r = begin; r < end; r += step) {
        if (unguarded)
          buildElements(r);
        else
          kb.ifThen(inBounds(rowOf(r), colOf(r)), [&] { buildElements(r); });
      }
      assert(next == gathered.size() && "the epilogue's loads differ");
      // Box b (its columns' registers [b kRegistersPerBox, (b + 1)
      // kRegistersPerBox)) is stored as soon as its batches are done, under
      // the next box's elements.
      if (staging && end % kRegistersPerBox == 0)
        storeBox(end / kRegistersPerBox - 1);
    }
    if (staging)
      copyOut();
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

  Value rowOf(int64_t r) { return kb.add(rowBase, kb.i64(8 * ((r % 4) / 2))); }
  Value colOf(int64_t r) {
    return kb.add(colBase, kb.i64(8 * (r / 4) + r % 2));
  }
  Value inBounds(Value m, Value n) {
    return kb.both(kb.lessThan(m, extentM), kb.lessThan(n, extentN));
  }
  SmallVector<Value> valuesAt(int64_t r) {
    if (part.byProducer()) { // one accumulator (StagingPlan::of)
      Value at =
          kb.add(w.c32(part.handoff + StagingPlan::handedOffAt(r - part.begin)),
                 kb.mul(thread, w.c32(16)));
      return {LLVM::LoadOp::create(kb.b, kb.loc, kb.b.getF32Type(), w.at(at))};
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
    Value address = w.at(staged(j, row, col));
    if (!paired)
      return kb.emitLoad(address, element);
    Value pair = LLVM::LoadOp::create(
        kb.b, kb.loc, VectorType::get({2}, element), address, /*alignment=*/4);
    auto ofPair = [&](int32_t i) -> Value {
      Value bits = LLVM::ExtractElementOp::create(kb.b, kb.loc, pair, w.c32(i));
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
    return kb.add(slotBase, w.c32(staging->boxOffset(j, 0, box) -
                                  staging->boxOffset(0, 0, 0)));
  }
  /// Byte offset of element (row, col) (i32, in the block) of slot j.
  Value stagedAt(unsigned j, Value localRow, Value localCol) {
    Value slot = boxAt(j, 0);
    Value box = w.udiv(localCol, kWgmmaOutputBox);
    Value piece = w.urem(w.udiv(localCol, 8), 8);
    Value swizzled =
        arith::XOrIOp::create(kb.b, kb.loc, piece, w.urem(localRow, 8));
    Value inBox = kb.add(kb.mul(localRow, w.c32(kRowBytes)),
                         kb.add(kb.mul(swizzled, w.c32(16)),
                                kb.mul(w.urem(localCol, 8), w.c32(2))));
    return kb.add(kb.add(slot, kb.mul(box, w.c32(StagingPlan::kBoxBytes))),
                  inBox);
  }
  /// The same for global indices (i64) of this consumer's block.
  Value staged(unsigned j, Value row, Value col) {
    auto local = [&](Value index, Value origin) {
      return arith::TruncIOp::create(
          kb.b, kb.loc, w.i32,
          arith::SubIOp::create(kb.b, kb.loc, index, origin));
    };
    return stagedAt(j, local(row, row0), local(col, col0));
  }
  /// The 128 threads running this part: consumer c (barrier 2 + c) or the
  /// producer warpgroup.
  void consumerBarrier() {
    w.namedBarrier(part.byProducer() ? w.c32(kProducerBarrier)
                                     : kb.add(w.c32(2), consumer),
                   128);
  }

  /// This consumer's blocks of the views read, into its slots: those with a
  /// tensor map loaded by the producer, the others copied by its threads.
  void copyIn() {
    copy(/*in=*/true);
    // One tile per block: the barrier's first phase. Each thread that
    // waits sees the bytes; the threads' copies need a barrier.
    if (!staging->prefetched.empty())
      w.waitParity(w.epilogueBarrier(consumer), w.c32(0));
    if (!movedByThreads(views.read).empty())
      consumerBarrier();
  }

  /// Box `box` of this consumer's blocks of the views written that have a
  /// tensor map: bulk stores from its first thread, once every thread's
  /// writes (generic proxy) are fenced for the TMA's reads (async proxy).
  void storeBox(int64_t box) {
    SmallVector<std::pair<unsigned, unsigned>> mapped =
        mappedSlots(views.written);
    if (mapped.empty())
      return;
    NVVM::FenceProxyOp::create(
        kb.b, kb.loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(kb.b.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    consumerBarrier();
    kb.ifThen(w.eq(thread, 0), [&] {
      for (auto [j, map] : mapped)
        NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
            kb.b, kb.loc, kb.tensorMap(map), w.at(boxAt(j, box)),
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
    kb.ifThen(w.eq(thread, 0), [&] {
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
    return arith::TruncIOp::create(kb.b, kb.loc, w.i32, row0);
  }
  Value boxColumn(int64_t box) {
    return kb.add(arith::TruncIOp::create(kb.b, kb.loc, w.i32, col0),
                  w.c32(box * kWgmmaOutputBox));
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
    int64_t piecesPerRow = spec.tileN / 8;
    int64_t groups = kConsumerRows * piecesPerRow / (128 * kPiecesAtOnce);
    auto pieceType = VectorType::get({4}, w.i32);
    auto loop =
        scf::ForOp::create(kb.b, kb.loc, w.c32(0), w.c32(groups), w.c32(1));
    OpBuilder::InsertionGuard insertion(kb.b);
    kb.b.setInsertionPoint(loop.getBody()->getTerminator());
    Value first = kb.add(
        thread, kb.mul(loop.getInductionVar(), w.c32(128 * kPiecesAtOnce)));
    struct Piece {
      Value localRow, localCol, row, col;
    };
    SmallVector<Piece> pieces;
    for (int64_t p = 0; p < kPiecesAtOnce; ++p) {
      Value piece = kb.add(first, w.c32(128 * p));
      Value localRow = w.udiv(piece, piecesPerRow);
      Value localCol = kb.mul(w.urem(piece, piecesPerRow), w.c32(8));
      pieces.push_back({localRow, localCol, kb.add(row0, kb.toI64(localRow)),
                        kb.add(col0, kb.toI64(localCol))});
    }
    auto sharedAt = [&](unsigned j, const Piece &piece) {
      return w.at(stagedAt(j, piece.localRow, piece.localCol));
    };
    if (in) {
      Value lastRow = kb.add(extentM, kb.i64(-1));
      Value lastCol = kb.add(extentN, kb.i64(-8));
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
    // N is a multiple of 8: a piece is in bounds when its first column is.
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
    for (int32_t i = 0; i < 2; ++i)
      pair = LLVM::InsertElementOp::create(
          kb.b, kb.loc, pair,
          arith::TruncFOp::create(kb.b, kb.loc, view.element, halves[i]),
          w.c32(i));
    Value address = slot ? w.at(staged(*slot, first.row, first.col))
                         : kb.address(view, first.row, first.col);
    LLVM::StoreOp::create(kb.b, kb.loc, pair, address, /*alignment=*/4);
  }

  Wgmma &w;
  KernelBuilder &kb;
  const WgmmaGemmSpec &spec;
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
  Value slotBase; // this consumer's block of view 0 (bytes)
};

void Wgmma::epilogue(const EpilogueViews &views,
                     const std::optional<StagingPlan> &staging, Value consumer,
                     const EpiloguePart &part, Value m0, Value n0) {
  Epilogue(*this, views, staging, consumer, part, m0, n0).build();
}

} // namespace

int64_t mlir::fmlp::wgmmaSharedBytes(const WgmmaGemmSpec &spec) {
  return kBarrierBytes + spec.stages * stageBytes(spec);
}

void mlir::fmlp::buildWgmmaGemm(KernelBuilder &kb, const WgmmaGemmSpec &spec) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  Wgmma w(kb, spec);
  EpilogueViews views = Discovery::run(kb, spec);
  std::optional<StagingPlan> staging = StagingPlan::of(spec, views);
  Value tid = kb.threadIdX();
  auto [mTile, nTile] = w.tileOfBlock();
  Value m0 = kb.mul(mTile, w.c32(kWgmmaTileM));
  Value n0 = kb.mul(nTile, w.c32(spec.tileN));
  // ceil(K / 64) k-steps; the tensor maps zero-fill past K.
  Value kExtent = arith::TruncIOp::create(b, loc, w.i32, kb.extent(spec.k));
  // At least one (k-step 0 is peeled; T >= 1 reaches a kernel anyway).
  Value kSteps = arith::MaxUIOp::create(
      b, loc, arith::CeilDivUIOp::create(b, loc, kExtent, w.c32(kWgmmaTileK)),
      w.c32(1));

  kb.ifThen(w.eq(tid, 0), [&] {
    for (int64_t s = 0; s < spec.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, loc, w.full(w.c32(s)), w.c32(1), Value());
      NVVM::MBarrierInitOp::create(b, loc, w.empty(w.c32(s)), w.c32(2),
                                   Value());
    }
    if (!spec.outputMaps.empty())
      for (int64_t c = 0; c < 2; ++c)
        NVVM::MBarrierInitOp::create(b, loc, w.epilogueBarrier(w.c32(c)),
                                     w.c32(1), Value());
  });
  kb.barrier();

  Value isProducer = w.eq(w.udiv(tid, 128), 0);
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(roles.thenBlock()->getTerminator());
    w.producer(kSteps, m0, n0, views, staging);
    b.setInsertionPoint(roles.elseBlock()->getTerminator());
    w.consumer(kSteps, kb.toI64(m0), kb.toI64(n0), views, staging);
  }

  LaunchGeometry geometry;
  geometry.block = {kWgmmaThreads, 1, 1};
  geometry.tile(0, spec.m, kWgmmaTileM);
  geometry.tile(1, spec.n, spec.tileN);
  geometry.dynamicSharedBytes =
      wgmmaSharedBytes(spec) + (staging ? staging->handoffBytes() : 0);
  geometry.maxRegisters = kWgmmaMaxRegisters;
  kb.finish(geometry);
}
