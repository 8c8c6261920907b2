//===- WgmmaGemm.cpp - The GEMM skeleton on Hopper tensor cores -----------===//
//
// buildWgmmaGemm (KernelBuilder.h). Block of 384 threads:
//
//   warpgroup 0      producer: one elected thread of warp 0 waits for a free
//                    stage (empty[s]), arms full[s] with the stage's byte
//                    count and issues the TMA loads of A and every B_j.
//   warpgroups 1, 2  consumers, 64 rows of the 128-row tile each: wait for
//                    full[s], issue 4 WGMMAs (k16 each) per accumulator,
//                    wait for them, release the stage (one arrival per
//                    warpgroup on empty[s]).
//
// Dynamic shared memory: [0, 1024) the mbarriers (full[s] at 8 s, empty[s]
// at 8 (stages + s)), then `stages` stages of A (128 x 64) and B_j (tileN x
// 64), each row 128 bytes, 128-byte swizzled, 1024-byte aligned.
//
// Ring invariant: k-step i uses stage s = i mod stages in round r = i div
// stages; full[s] completes its phase r when the stage's bytes arrive, and
// empty[s] its phase r once both consumers are done with it, so a waiter
// on round r waits on parity r mod 2 (the producer on empty's previous
// round: parity (r + 1) mod 2, which passes at once in round 0).
//
//===----------------------------------------------------------------------===//

#include "lib/CodeGen/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fmlp;

namespace {

constexpr int64_t kBarrierBytes = 1024;
constexpr int64_t kRowBytes = 128; // 64 16-bit elements of k per row
constexpr int64_t kConsumerRows = 64;
constexpr StringLiteral kDynamicShared = "fmlp_dynamic_shared";

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

  /// Waits (the op retries) until `barrier` completes the phase of
  /// `parity`.
  void waitParity(Value barrier, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(b(), kb.loc, barrier, parity,
                                          c32(10000000));
  }

  void producer(Value kSteps, Value m0, Value n0) {
    NVVM::SetMaxRegisterOp::create(b(), kb.loc, 40,
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
        Value round = udiv(step, spec.stages);
        Value parity = arith::XOrIOp::create(
            b(), kb.loc, arith::AndIOp::create(b(), kb.loc, round, c32(1)),
            c32(1));
        waitParity(empty(stage), parity);
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
            Value dst = LLVM::AddrSpaceCastOp::create(
                b(), kb.loc, LLVM::LLVMPointerType::get(b().getContext(), 7),
                at(kb.add(base, dstOffset)));
            NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
                b(), kb.loc, dst, kb.tensorMap(map), ValueRange{inner, outer},
                full(stage), ValueRange{}, Value(), Value(),
                NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
                NVVM::CTAGroupKindAttr(), Value());
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
    });
  }

  LLVM::LLVMStructType accumulatorType() {
    SmallVector<Type> fields(spec.tileN / 2, b().getF32Type());
    return LLVM::LLVMStructType::getLiteral(b().getContext(), fields);
  }

  void consumer(Value kSteps, Value m0Index, Value n0Index) {
    NVVM::SetMaxRegisterOp::create(b(), kb.loc, 232,
                                   NVVM::SetMaxRegisterAction::increase);
    Value tid = kb.threadIdX();
    Value consumer = kb.add(udiv(tid, 128), c32(-1)); // 0 or 1
    LLVM::LLVMStructType accType = accumulatorType();
    Value zeroAcc = LLVM::UndefOp::create(b(), kb.loc, accType);
    Value zero = kb.f32(0.0);
    for (unsigned i = 0; i < accType.getBody().size(); ++i)
      zeroAcc = LLVM::InsertValueOp::create(b(), kb.loc, zeroAcc, zero, i);
    SmallVector<Value> inits(spec.b.size(), zeroAcc);
    auto loop = scf::ForOp::create(b(), kb.loc, c32(0), kSteps, c32(1), inits);
    {
      OpBuilder::InsertionGuard guard(b());
      b().setInsertionPointToStart(loop.getBody());
      Value step = loop.getInductionVar();
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
      SmallVector<Value> acc(loop.getRegionIterArgs());
      NVVM::WGMMATypes type = spec.element.isBF16() ? NVVM::WGMMATypes::bf16
                                                    : NVVM::WGMMATypes::f16;
      auto shape = NVVM::MMAShapeAttr::get(b().getContext(), 64,
                                           static_cast<int>(spec.tileN), 16);
      for (int64_t kk = 0; kk < kWgmmaTileK / 16; ++kk) {
        bool aK = spec.a.kMajor;
        Value dA = descriptor(at(kb.add(aBase, c32(kStepBytes(aK) * kk))), aK);
        for (unsigned j = 0; j < spec.b.size(); ++j) {
          bool bK = spec.b[j].kMajor;
          Value dB = descriptor(
              at(kb.add(kb.add(base, bOffset(j)), c32(kStepBytes(bK) * kk))),
              bK);
          acc[j] = NVVM::WgmmaMmaAsyncOp::create(
              b(), kb.loc, accType, acc[j], dA, dB, shape, type, type,
              NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
              NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
              // A: row = K-major; B: col = K-major.
              aK ? NVVM::MMALayout::row : NVVM::MMALayout::col,
              bK ? NVVM::MMALayout::col : NVVM::MMALayout::row,
              NVVM::MMAIntOverflowAttr());
        }
      }
      NVVM::WgmmaGroupSyncAlignedOp::create(b(), kb.loc);
      NVVM::WgmmaWaitGroupSyncOp::create(b(), kb.loc, 0);
      kb.ifThen(eq(urem(tid, 128), 0), [&] {
        NVVM::MBarrierArriveOp::create(b(), kb.loc, /*res=*/Type(),
                                       empty(stage), /*count=*/Value());
      });
      scf::YieldOp::create(b(), kb.loc, acc);
    }

    // Fragment of m64nNk16 (fp32): register r of thread (warp w, lane l)
    // holds row 16 w + l / 4 + 8 ((r mod 4) / 2), column 8 (r / 4) +
    // 2 (l mod 4) + r mod 2.
    Value lane = urem(tid, 32), warp = urem(udiv(tid, 32), 4);
    Value rowBase =
        kb.add(m0Index,
               kb.toI64(kb.add(kb.mul(consumer, c32(kConsumerRows)),
                               kb.add(kb.mul(warp, c32(16)), udiv(lane, 4)))));
    Value colBase = kb.add(n0Index, kb.toI64(kb.mul(urem(lane, 4), c32(2))));
    Value extentM = kb.extent(spec.m), extentN = kb.extent(spec.n);
    auto valuesAt = [&](int64_t r) {
      SmallVector<Value> values;
      for (unsigned j = 0; j < spec.b.size(); ++j)
        values.push_back(
            LLVM::ExtractValueOp::create(b(), kb.loc, loop.getResult(j), r));
      return values;
    };
    // Registers r and r + 1 (r even) hold columns n and n + 1 of one row:
    // with N even both are in bounds when n is, and their stores pair up.
    bool pairColumns = !spec.n.tokens && spec.n.value % 2 == 0;
    int64_t step = pairColumns ? 2 : 1;
    auto rowOf = [&](int64_t r) {
      return kb.add(rowBase, kb.i64(8 * ((r % 4) / 2)));
    };
    auto colOf = [&](int64_t r) {
      return kb.add(colBase, kb.i64(8 * (r / 4) + r % 2));
    };
    auto inBounds = [&](Value m, Value n) {
      return inBoundsOf(m, n, extentM, extentN);
    };
    // The epilogue of registers r (and r + 1 when paired).
    auto epilogueAt = [&](int64_t r, Value m, Value n) {
      if (!pairColumns)
        return spec.epilogue(kb, m, n, valuesAt(r));
      SmallVector<PendingStore> first, second;
      kb.collectedStores = &first;
      spec.epilogue(kb, m, n, valuesAt(r));
      kb.collectedStores = &second;
      spec.epilogue(kb, m, kb.add(n, kb.i64(1)), valuesAt(r + 1));
      kb.collectedStores = nullptr;
      for (auto [a, b] : llvm::zip_equal(first, second))
        kb.storePair(a, b.value);
    };
    // Batches of 8 stores per output: their loads (G and U in K3, biases,
    // accumulated outputs) are all in flight before the first store.
    constexpr int64_t kBatch = 8;
    int64_t registers = spec.tileN / 2;
    Value consumerRow0 =
        kb.add(m0Index, kb.toI64(kb.mul(consumer, c32(kConsumerRows))));
    std::optional<Staging> staging;
    for (int64_t begin = 0; begin < registers; begin += kBatch * step) {
      int64_t end = std::min(registers, begin + kBatch * step);
      LoadBatch batch;
      kb.loadBatch = &batch;
      SmallVector<PendingStore> dropped;
      for (int64_t r = begin; r < end; r += step) {
        Value m = rowOf(r), n = colOf(r);
        batch.guard = inBounds(m, n);
        SmallVector<PendingStore> *collected = &dropped;
        std::swap(kb.collectedStores, collected);
        spec.epilogue(kb, m, n, valuesAt(r));
        if (pairColumns)
          spec.epilogue(kb, m, kb.add(n, kb.i64(1)), valuesAt(r + 1));
        std::swap(kb.collectedStores, collected);
      }
      if (begin == 0 && pairColumns)
        staging = planStaging(dropped, consumer, consumerRow0, n0Index);
      batch.gathering = false;
      for (int64_t r = begin; r < end; r += step) {
        Value m = rowOf(r), n = colOf(r);
        kb.ifThen(inBounds(m, n), [&] {
          if (!staging)
            return epilogueAt(r, m, n);
          SmallVector<PendingStore> first, second;
          kb.collectedStores = &first;
          spec.epilogue(kb, m, n, valuesAt(r));
          kb.collectedStores = &second;
          spec.epilogue(kb, m, kb.add(n, kb.i64(1)), valuesAt(r + 1));
          kb.collectedStores = nullptr;
          for (auto [a, b] : llvm::zip_equal(first, second))
            stagePair(*staging, a, b.value);
        });
      }
      assert(batch.next == batch.values.size() && "epilogue loads differ");
      kb.loadBatch = nullptr;
    }
    if (staging)
      copyOut(*staging, consumer, extentM, extentN);
  }

  /// The staged epilogue: a consumer writes its 64 x tileN block of each
  /// output to shared memory as 32-bit pairs, then copies it out in rows of
  /// 16-byte pieces (coalesced, 4x fewer memory transactions than storing
  /// the fragments). The block of output j of consumer c sits at byte
  /// kBarrierBytes + (2 j + c) slotBytes, rows padded by 16 bytes so that
  /// a warp's pair writes (8 rows x 4 lanes) hit 32 distinct banks. It
  /// reuses the stage ring, which is free once both consumers are past the
  /// main loop (every TMA load was consumed, every WGMMA waited for).
  struct Staging {
    SmallVector<MatrixView> outputs;
    int64_t rowBytes, slotBytes;
    Value base, row0, col0; // this consumer's block, its first row and column
  };
  std::optional<Staging> planStaging(ArrayRef<PendingStore> stores,
                                     Value consumer, Value row0, Value col0) {
    Staging staging;
    for (const PendingStore &store : stores) {
      if (!store.view.vectors())
        return std::nullopt;
      if (llvm::none_of(staging.outputs, [&](const MatrixView &v) {
            return v.sameMemory(store.view);
          }))
        staging.outputs.push_back(store.view);
    }
    staging.rowBytes = spec.tileN * 2 + 16;
    staging.slotBytes = kConsumerRows * staging.rowBytes;
    int64_t bytes = 2 * staging.slotBytes * staging.outputs.size();
    if (staging.outputs.empty() || spec.n.tokens || spec.n.value % 8 != 0 ||
        bytes > spec.stages * stageBytes(spec))
      return std::nullopt;
    staging.base =
        kb.add(c32(kBarrierBytes), kb.mul(consumer, c32(staging.slotBytes)));
    staging.row0 = row0;
    staging.col0 = col0;
    // Both consumers (256 threads) past the main loop: the ring is free.
    namedBarrier(c32(1), 2 * 128);
    return staging;
  }
  void namedBarrier(Value id, int64_t threads) {
    NVVM::BarrierOp::create(b(), kb.loc, TypeRange{}, id, c32(threads),
                            NVVM::BarrierReductionAttr(), Value());
  }
  /// Byte offset of element (row, col) of output `j`'s block.
  Value stagedOffset(const Staging &staging, unsigned j, Value localRow,
                     Value localCol) {
    Value slot = kb.add(staging.base, c32(2 * j * staging.slotBytes));
    return kb.add(slot, kb.add(kb.mul(localRow, c32(staging.rowBytes)),
                               kb.mul(localCol, c32(2))));
  }
  void stagePair(const Staging &staging, const PendingStore &first,
                 Value second) {
    unsigned j = llvm::find_if(staging.outputs,
                               [&](const MatrixView &v) {
                                 return v.sameMemory(first.view);
                               }) -
                 staging.outputs.begin();
    auto local = [&](Value index, Value origin) {
      return arith::TruncIOp::create(
          b(), kb.loc, i32, arith::SubIOp::create(b(), kb.loc, index, origin));
    };
    Type element = first.view.element;
    auto pairType = VectorType::get({2}, element);
    Value pair = LLVM::UndefOp::create(b(), kb.loc, pairType);
    Value halves[] = {first.value, second};
    for (int32_t i = 0; i < 2; ++i)
      pair = LLVM::InsertElementOp::create(
          b(), kb.loc, pair,
          arith::TruncFOp::create(b(), kb.loc, element, halves[i]), c32(i));
    Value offset = stagedOffset(staging, j, local(first.row, staging.row0),
                                local(first.col, staging.col0));
    LLVM::StoreOp::create(b(), kb.loc, pair, at(offset), /*alignment=*/4);
  }
  void copyOut(const Staging &staging, Value consumer, Value extentM,
               Value extentN) {
    // This consumer's 128 threads have written its blocks.
    namedBarrier(kb.add(c32(2), consumer), 128);
    Value thread = urem(kb.threadIdX(), 128);
    int64_t piecesPerRow = spec.tileN / 8;
    auto pieceType = VectorType::get({4}, i32);
    for (int64_t p = 0; p < kConsumerRows * piecesPerRow; p += 128) {
      Value piece = kb.add(thread, c32(p));
      Value localRow = udiv(piece, piecesPerRow);
      Value localCol = kb.mul(urem(piece, piecesPerRow), c32(8));
      Value row = kb.add(staging.row0, kb.toI64(localRow));
      Value col = kb.add(staging.col0, kb.toI64(localCol));
      kb.ifThen(inBoundsOf(row, col, extentM, extentN), [&] {
        for (auto [j, view] : llvm::enumerate(staging.outputs)) {
          Value value = LLVM::LoadOp::create(
              b(), kb.loc, pieceType,
              at(stagedOffset(staging, j, localRow, localCol)),
              /*alignment=*/16);
          LLVM::StoreOp::create(b(), kb.loc, value,
                                kb.address(view, row, col), /*alignment=*/16);
        }
      });
    }
  }
  Value inBoundsOf(Value m, Value n, Value extentM, Value extentN) {
    return kb.both(kb.lessThan(m, extentM), kb.lessThan(n, extentN));
  }
};

} // namespace

int64_t mlir::fmlp::wgmmaSharedBytes(const WgmmaGemmSpec &spec) {
  return kBarrierBytes + spec.stages * stageBytes(spec);
}

void mlir::fmlp::buildWgmmaGemm(KernelBuilder &kb, const WgmmaGemmSpec &spec) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  Wgmma w(kb, spec);
  Value tid = kb.threadIdX();
  Value m0 = kb.mul(kb.blockId(0), w.c32(kWgmmaTileM));
  Value n0 = kb.mul(kb.blockId(1), w.c32(spec.tileN));
  // ceil(K / 64) k-steps; the tensor maps zero-fill past K.
  Value kExtent = arith::TruncIOp::create(b, loc, w.i32, kb.extent(spec.k));
  Value kSteps =
      arith::CeilDivUIOp::create(b, loc, kExtent, w.c32(kWgmmaTileK));

  kb.ifThen(w.eq(tid, 0), [&] {
    for (int64_t s = 0; s < spec.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, loc, w.full(w.c32(s)), w.c32(1), Value());
      NVVM::MBarrierInitOp::create(b, loc, w.empty(w.c32(s)), w.c32(2),
                                   Value());
    }
  });
  kb.barrier();

  Value isProducer = w.eq(w.udiv(tid, 128), 0);
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(roles.thenBlock()->getTerminator());
    w.producer(kSteps, m0, n0);
    b.setInsertionPoint(roles.elseBlock()->getTerminator());
    w.consumer(kSteps, kb.toI64(m0), kb.toI64(n0));
  }

  LaunchGeometry geometry;
  geometry.block = {kWgmmaThreads, 1, 1};
  geometry.tile(0, spec.m, kWgmmaTileM);
  geometry.tile(1, spec.n, spec.tileN);
  geometry.dynamicSharedBytes = wgmmaSharedBytes(spec);
  geometry.maxRegisters = kWgmmaMaxRegisters;
  kb.finish(geometry);
}
