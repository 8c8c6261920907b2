//===- KernelBuilder.cpp - GPU kernels as LLVM + NVVM dialect -------------===//

#include "codegen/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::fmlp;

//===----------------------------------------------------------------------===//
// LaunchGeometry
//===----------------------------------------------------------------------===//

void LaunchGeometry::tile(unsigned dim, Extent e, int64_t tile) {
  if (e.tokens) {
    tokensPerBlock[dim] = tile;
    fixed[dim] = 0;
  } else {
    tokensPerBlock[dim] = 0;
    fixed[dim] = llvm::divideCeil(e.value, tile);
  }
}

void LaunchGeometry::attachTo(Operation *kernel) const {
  Builder b(kernel->getContext());
  kernel->setAttr("fmlp.grid_tokens_per_block",
                  b.getDenseI64ArrayAttr(tokensPerBlock));
  kernel->setAttr("fmlp.grid_fixed", b.getDenseI64ArrayAttr(fixed));
  kernel->setAttr("fmlp.block", b.getDenseI64ArrayAttr(block));
  kernel->setAttr("fmlp.dynamic_shared_bytes",
                  b.getI64IntegerAttr(dynamicSharedBytes));
}

LaunchGeometry LaunchGeometry::readFrom(Operation *kernel) {
  LaunchGeometry geometry;
  auto read = [&](StringRef name, std::array<int64_t, 3> &into) {
    if (auto array = kernel->getAttrOfType<DenseI64ArrayAttr>(name))
      llvm::copy(array.asArrayRef().take_front(3), into.begin());
  };
  read("fmlp.grid_tokens_per_block", geometry.tokensPerBlock);
  read("fmlp.grid_fixed", geometry.fixed);
  read("fmlp.block", geometry.block);
  if (auto bytes =
          kernel->getAttrOfType<IntegerAttr>("fmlp.dynamic_shared_bytes"))
    geometry.dynamicSharedBytes = bytes.getInt();
  return geometry;
}

//===----------------------------------------------------------------------===//
// KernelBuilder
//===----------------------------------------------------------------------===//

KernelBuilder::KernelBuilder(gpu::GPUModuleOp module, StringRef name,
                             unsigned numTensorMaps, unsigned numBuffers,
                             Location loc)
    : b(module.getContext()), loc(loc), numTensorMaps(numTensorMaps) {
  MLIRContext *context = module.getContext();
  b.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> params(numTensorMaps, LLVM::LLVMPointerType::get(context));
  params.append(numBuffers, LLVM::LLVMPointerType::get(context, 1));
  params.push_back(b.getI64Type());
  auto type =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), params);
  func = LLVM::LLVMFuncOp::create(b, loc, name, type);
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  for (unsigned i = 0; i < numTensorMaps; ++i) {
    func.setArgAttr(
        i, LLVM::LLVMDialect::getByValAttrName(),
        TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(), 128)));
    func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                    b.getI64IntegerAttr(64));
    func.setArgAttr(i, "nvvm.grid_constant", b.getUnitAttr());
  }
  // Buffers never alias unless they are the same parameter.
  for (unsigned i = 0; i < numBuffers; ++i)
    func.setArgAttr(numTensorMaps + i, LLVM::LLVMDialect::getNoAliasAttrName(),
                    b.getUnitAttr());
  b.setInsertionPointToStart(func.addEntryBlock(b));
}

Value KernelBuilder::i64(int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}
Value KernelBuilder::i32(int32_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
}
Value KernelBuilder::f32(double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}
Value KernelBuilder::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value KernelBuilder::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value KernelBuilder::lessThan(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
}
Value KernelBuilder::both(Value x, Value y) {
  return arith::AndIOp::create(b, loc, x, y);
}
Value KernelBuilder::select(Value condition, Value x, Value y) {
  return arith::SelectOp::create(b, loc, condition, x, y);
}
Value KernelBuilder::toI64(Value i32Value) {
  return arith::ExtUIOp::create(b, loc, b.getI64Type(), i32Value);
}
Value KernelBuilder::udiv(Value x, int64_t y) {
  return arith::DivUIOp::create(b, loc, x, i32(static_cast<int32_t>(y)));
}
Value KernelBuilder::urem(Value x, int64_t y) {
  return arith::RemUIOp::create(b, loc, x, i32(static_cast<int32_t>(y)));
}
Value KernelBuilder::eq(Value x, int64_t y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x,
                               i32(static_cast<int32_t>(y)));
}
Value KernelBuilder::threadIdX() {
  return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
}
Value KernelBuilder::blockId(unsigned dim) {
  Type i32 = b.getI32Type();
  switch (dim) {
  case 0:
    return NVVM::BlockIdXOp::create(b, loc, i32);
  case 1:
    return NVVM::BlockIdYOp::create(b, loc, i32);
  default:
    return NVVM::BlockIdZOp::create(b, loc, i32);
  }
}
void KernelBuilder::barrier() { NVVM::Barrier0Op::create(b, loc); }

void KernelBuilder::emitWaitForPreviousKernels(OpBuilder &b, Location loc) {
  LLVM::InlineAsmOp::create(b, loc, Type(), ValueRange(),
                            "griddepcontrol.launch_dependents;\n\t"
                            "griddepcontrol.wait;",
                            "~{memory}",
                            /*has_side_effects=*/true,
                            /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            LLVM::AsmDialectAttr(), ArrayAttr());
}

MatrixView MatrixView::concatenate(const MatrixView &first,
                                   const MatrixView &second, int64_t start,
                                   bool alongRows) {
  assert(second.further.empty() && first.element == second.element &&
         (first.further.empty() || first.splitCols == !alongRows) &&
         (first.further.empty() || first.further.back().start < start) &&
         "views that do not concatenate");
  MatrixView view = first;
  view.further.push_back({second.base, second.rowStride, second.colStride,
                          second.baseAlignment, start});
  view.splitCols = !alongRows;
  return view;
}

Value KernelBuilder::address(const MatrixView &view, Value row, Value col) {
  // Index i >= start of a further part is base_p[(i - start) stride_p]:
  // base_p moved back by start strides, then the part's offset of (row,
  // col).
  Value index = view.splitCols ? col : row;
  auto shifted = [&](const MatrixView::Part &part) {
    int64_t stride = view.splitCols ? part.colStride : part.rowStride;
    return LLVM::GEPOp::create(b, loc, view.base.getType(), view.element,
                               part.base, ValueRange{i64(-part.start * stride)});
  };
  // The part's base and strides selected (strides only where they differ:
  // K4's [Wg Wu] has one pair, an adapter's [x | Z] its own), then one
  // offset: fewer live values than an address per part.
  Value base = view.base, rowStride = i64(view.rowStride),
        colStride = i64(view.colStride);
  int64_t lastRowStride = view.rowStride, lastColStride = view.colStride;
  for (const MatrixView::Part &part : view.further) {
    Value partBase = shifted(part);
    Value below = lessThan(index, i64(part.start));
    base = select(below, base, partBase);
    if (part.rowStride != lastRowStride)
      rowStride = select(below, rowStride, i64(part.rowStride));
    if (part.colStride != lastColStride)
      colStride = select(below, colStride, i64(part.colStride));
    lastRowStride = part.rowStride;
    lastColStride = part.colStride;
  }
  Value offset = add(mul(row, rowStride), mul(col, colStride));
  return LLVM::GEPOp::create(b, loc, base.getType(), view.element, base,
                             ValueRange{offset});
}

Value KernelBuilder::emitLoad(Value pointer, Type element) {
  Value value = LLVM::LoadOp::create(b, loc, element, pointer);
  return element.isF32() ? value
                         : arith::ExtFOp::create(b, loc, b.getF32Type(), value);
}

void KernelBuilder::emitStore(Value pointer, Type element, Value value) {
  if (!element.isF32())
    value = arith::TruncFOp::create(b, loc, element, value);
  LLVM::StoreOp::create(b, loc, value, pointer);
}

Value KernelBuilder::loadFrom(Value pointer, Type element) {
  if (epilogueAccess)
    return epilogueAccess->load(nullptr, Value(), Value(), pointer, element);
  return emitLoad(pointer, element);
}

Value KernelBuilder::load(const MatrixView &view, Value row, Value col) {
  Value pointer = address(view, row, col);
  if (epilogueAccess)
    return epilogueAccess->load(&view, row, col, pointer, view.element);
  return emitLoad(pointer, view.element);
}

void KernelBuilder::storeTo(Value pointer, Type element, Value value) {
  if (epilogueAccess)
    return epilogueAccess->store(nullptr, Value(), Value(), pointer, element,
                                 value);
  emitStore(pointer, element, value);
}

void KernelBuilder::store(const MatrixView &view, Value row, Value col,
                          Value value) {
  Value pointer = address(view, row, col);
  if (epilogueAccess)
    return epilogueAccess->store(&view, row, col, pointer, view.element, value);
  emitStore(pointer, view.element, value);
}

std::pair<Value, Value> KernelBuilder::tileOfBlockGrouped() {
  Type i32Type = b.getI32Type();
  Value gx = NVVM::GridDimXOp::create(b, loc, i32Type);
  Value gy = NVVM::GridDimYOp::create(b, loc, i32Type);
  Value id = add(blockId(0), mul(blockId(1), gx));
  Value perGroup = mul(gy, i32(kGroupedTileRows));
  Value firstRow =
      mul(arith::DivUIOp::create(b, loc, id, perGroup), i32(kGroupedTileRows));
  Value rows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, gx, firstRow),
      i32(kGroupedTileRows));
  Value inGroup = arith::RemUIOp::create(b, loc, id, perGroup);
  return {add(firstRow, arith::RemUIOp::create(b, loc, inGroup, rows)),
          arith::DivUIOp::create(b, loc, inGroup, rows)};
}

void KernelBuilder::initBarrier(Value barrier, int64_t count) {
  NVVM::MBarrierInitOp::create(b, loc, barrier, i32(count), Value());
}

void KernelBuilder::initBarriers(Value tid, function_ref<void()> inits) {
  ifThen(eq(tid, 0), [&] {
    inits();
    fenceProxyAsync();
  });
  barrier();
}

void KernelBuilder::expectBytes(Value barrier, Value bytes) {
  NVVM::MBarrierArriveExpectTxOp::create(
      b, loc, /*res=*/Type(), barrier, bytes, NVVM::MemScopeKind::CTA,
      /*relaxed=*/false, /*predicate=*/Value());
}

void KernelBuilder::fenceProxyAsync() {
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(b.getContext(),
                                 NVVM::SharedSpace::shared_cta));
}

void KernelBuilder::waitParity(Value barrier, Value parity) {
  NVVM::MBarrierTryWaitParityOp::create(b, loc, barrier, parity,
                                        i32(10000000));
}

void KernelBuilder::tmaLoad(unsigned map, Value target, Value inner,
                            Value outer, Value barrier, bool ctaOnly) {
  Value dst =
      ctaOnly
          ? target
          : LLVM::AddrSpaceCastOp::create(
                b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), target);
  NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
      b, loc, dst, tensorMap(map), ValueRange{inner, outer}, barrier,
      ValueRange{}, Value(), Value(), NVVM::TMALoadMode::TILE, ctaOnly,
      NVVM::CTAGroupKindAttr(), Value());
}

void mlir::fmlp::loadTmaTile(KernelBuilder &kb, const WgmmaOperand &op,
                             Value shared, Value base, Value offset, Value row0,
                             int64_t rows, Value k, int64_t tileK, Value boxes,
                             function_ref<Value()> barrier, bool ctaOnly) {
  OpBuilder &b = kb.b;
  OpBuilder::InsertionGuard guard(b);
  auto ptr3 = LLVM::LLVMPointerType::get(b.getContext(), 3);
  auto tileOf = [&](unsigned map, Value k0) {
    auto load = [&](Value dstOffset, Value inner, Value outer) {
      Value target = LLVM::GEPOp::create(b, kb.loc, ptr3, b.getI8Type(), shared,
                                         ValueRange{kb.add(base, dstOffset)});
      kb.tmaLoad(map, target, inner, outer, barrier(), ctaOnly);
    };
    if (op.kMajor && op.rowsPerBox) {
      load(offset, k0, row0); // the tile's first row is below M
      for (int64_t j = 1; j < rows / op.rowsPerBox; ++j)
        kb.ifThen(kb.lessThan(kb.i32(j), boxes), [&] {
          load(kb.add(offset, kb.i32(j * op.rowsPerBox * kTmaRowBytes)), k0,
               kb.add(row0, kb.i32(j * op.rowsPerBox)));
        });
      return;
    }
    if (op.kMajor)
      return load(offset, k0, row0);
    for (int64_t j = 0; j < rows / tileK; ++j)
      load(kb.add(offset, kb.i32(j * tileK * kTmaRowBytes)),
           kb.add(row0, kb.i32(tileK * j)), k0);
  };
  unsigned map = op.map;
  Value k0 = k;
  for (const WgmmaOperand::Segment &next : op.further) {
    Value below = kb.lessThan(k, kb.i32(next.kStart));
    auto branch = scf::IfOp::create(b, kb.loc, below, true);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    tileOf(map, k0);
    b.setInsertionPoint(branch.elseBlock()->getTerminator());
    map = next.map;
    k0 = kb.add(k, kb.i32(-next.kStart));
  }
  tileOf(map, k0);
}

TmaBoxesBelow mlir::fmlp::tmaBoxesBelow(KernelBuilder &kb,
                                        const WgmmaOperand &op, Extent m,
                                        Value row0, int64_t rows) {
  OpBuilder &b = kb.b;
  int64_t rowsPerBox = op.rowsPerBox;
  Value rowsLeft = arith::SubIOp::create(
      b, kb.loc,
      arith::TruncIOp::create(b, kb.loc, b.getI32Type(), kb.extent(m)), row0);
  Value boxes = arith::MinUIOp::create(
      b, kb.loc, kb.i32(rows / rowsPerBox),
      arith::CeilDivUIOp::create(b, kb.loc, rowsLeft, kb.i32(rowsPerBox)));
  Value skipped =
      arith::SubIOp::create(b, kb.loc, kb.i32(rows / rowsPerBox), boxes);
  return {boxes, kb.mul(skipped, kb.i32(rowsPerBox * kTmaRowBytes))};
}

Value KernelBuilder::dynamicShared() {
  constexpr StringLiteral kSymbol = "fmlp_dynamic_shared";
  auto module = func->getParentOfType<gpu::GPUModuleOp>();
  if (!module.lookupSymbol(kSymbol)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kSymbol, /*value=*/Attribute(), /*alignment=*/1024,
                           /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), kSymbol);
}

Value KernelBuilder::sharedF32(StringRef suffix, int64_t count) {
  std::string name = (func.getName() + "_" + suffix).str();
  auto arrayType = LLVM::LLVMArrayType::get(b.getF32Type(), count);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(func);
    LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/false,
                           LLVM::Linkage::Internal, name, /*value=*/Attribute(),
                           /*alignment=*/16, /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), name);
}

Value KernelBuilder::sharedAt(Value array, Value index) {
  return LLVM::GEPOp::create(b, loc, array.getType(), b.getF32Type(), array,
                             ValueRange{index});
}

void KernelBuilder::ifThen(Value condition, function_ref<void()> body) {
  auto op = scf::IfOp::create(b, loc, condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op.thenBlock()->getTerminator());
  body();
}

Value KernelBuilder::roundToTf32(Value x) {
  return NVVM::ConvertFloatToTF32Op::create(
             b, loc, b.getI32Type(), x, NVVM::FPRoundingMode::RNA,
             NVVM::SaturationMode::NONE, /*relu=*/false)
      .getResult();
}

std::pair<Value, Value> KernelBuilder::tf32Parts(Value x) {
  Value hi = roundToTf32(x);
  Value rest = arith::SubFOp::create(
      b, loc, x, LLVM::BitcastOp::create(b, loc, b.getF32Type(), hi));
  return {hi, roundToTf32(rest)};
}

Value KernelBuilder::ifElseZero(Value condition, function_ref<Value()> then) {
  auto op = scf::IfOp::create(b, loc, b.getF32Type(), condition,
                              /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(op.thenBlock());
  scf::YieldOp::create(b, loc, then());
  b.setInsertionPointToStart(op.elseBlock());
  scf::YieldOp::create(b, loc, f32(0.0));
  return op.getResult(0);
}

void KernelBuilder::finish(const LaunchGeometry &geometry) {
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  geometry.attachTo(func);
  int64_t threads = geometry.block[0] * geometry.block[1] * geometry.block[2];
  func->setAttr("nvvm.reqntid",
                b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  // Without a cap ptxas aims at occupancy and may spill; with it, the
  // register file holds 65536 / (threads * cap) blocks per multiprocessor.
  if (geometry.maxRegisters > 0)
    func->setAttr("nvvm.maxnreg", b.getI32IntegerAttr(geometry.maxRegisters));
}

//===----------------------------------------------------------------------===//
// The SIMT GEMM
//===----------------------------------------------------------------------===//

namespace {
constexpr int64_t kThreads = kSimtThreads, kTileM = kSimtTile,
                  kTileN = kSimtTile, kTileK = kSimtTileK;
constexpr int64_t kThreadsAlongN = 16, kPerThread = 4; // 16 x 16 threads
} // namespace

void mlir::fmlp::buildSimtGemm(KernelBuilder &kb, const GemmSpec &spec) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  const unsigned numAcc = spec.loadB.size();
  const unsigned perAcc = kPerThread * kPerThread;

  Value tid = kb.threadIdX();
  Value tx = arith::RemUIOp::create(b, loc, tid, kb.i32(kThreadsAlongN));
  Value ty = arith::DivUIOp::create(b, loc, tid, kb.i32(kThreadsAlongN));
  Value m0 = kb.mul(kb.toI64(kb.blockId(0)), kb.i64(kTileM));
  Value n0 = kb.mul(kb.toI64(kb.blockId(1)), kb.i64(kTileN));
  Value extentM = kb.extent(spec.m), extentN = kb.extent(spec.n),
        extentK = kb.extent(spec.k);

  // Shared tiles, stored [kTileK][kTileM] and [kTileK][kTileN] in f32.
  Value tileA = kb.sharedF32("a", kTileK * kTileM);
  SmallVector<Value> tilesB;
  for (unsigned j = 0; j < numAcc; ++j)
    tilesB.push_back(kb.sharedF32(("b" + Twine(j)).str(), kTileK * kTileN));

  // Fills a [kTileK][width] tile: element (kk, w) read by `read(w, kk)`
  // where in bounds, else 0. Neighbouring threads take neighbouring kk
  // when `alongK`, else neighbouring w.
  auto fill = [&](Value tile, int64_t width, Value k0, Value w0, Value extentW,
                  bool alongK,
                  const std::function<Value(Value w, Value k)> &read) {
    for (int64_t r = 0; r < kTileK * width / kThreads; ++r) {
      Value linear = kb.add(tid, kb.i32(r * kThreads));
      Value kk, w;
      if (alongK) {
        kk = arith::RemUIOp::create(b, loc, linear, kb.i32(kTileK));
        w = arith::DivUIOp::create(b, loc, linear, kb.i32(kTileK));
      } else {
        w = arith::RemUIOp::create(b, loc, linear, kb.i32(width));
        kk = arith::DivUIOp::create(b, loc, linear, kb.i32(width));
      }
      Value k = kb.add(k0, kb.toI64(kk)), wi = kb.add(w0, kb.toI64(w));
      Value inBounds =
          kb.both(kb.lessThan(k, extentK), kb.lessThan(wi, extentW));
      Value value = kb.ifElseZero(inBounds, [&] { return read(wi, k); });
      Value slot = kb.add(kb.mul(kk, kb.i32(width)), w);
      LLVM::StoreOp::create(b, loc, value, kb.sharedAt(tile, slot));
    }
  };

  // A static K shorter than the tile multiplies only its K rows (the rest
  // of the tile is zeros).
  int64_t rowsK = !spec.k.tokens && spec.k.value < kTileK ? spec.k.value
                                                            : kTileK;
  SmallVector<Value> zeros(numAcc * perAcc, kb.f32(0.0));
  auto loop =
      scf::ForOp::create(b, loc, kb.i64(0), extentK, kb.i64(kTileK), zeros);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value k0 = loop.getInductionVar();
    fill(tileA, kTileM, k0, m0, extentM, spec.aAdjacentAlongK,
         [&](Value m, Value k) { return spec.loadA(kb, m, k); });
    for (unsigned j = 0; j < numAcc; ++j)
      fill(tilesB[j], kTileN, k0, n0, extentN, !spec.bAdjacentAlongN,
           [&](Value n, Value k) { return spec.loadB[j](kb, k, n); });
    kb.barrier();

    // Thread (tx, ty) owns rows ty + 16 i and columns tx + 16 j. Each
    // k-tile's products are summed from zero and that sum added to the
    // accumulator (blocked summation: about kTileK + K / kTileK roundings
    // per element, not K; bench/NOTES.md item 50).
    SmallVector<Value> acc(loop.getRegionIterArgs());
    SmallVector<Value> tileSums(acc.size(), kb.f32(0.0));
    for (int64_t kk = 0; kk < rowsK; ++kk) {
      SmallVector<Value> a, bv;
      for (int64_t i = 0; i < kPerThread; ++i) {
        Value slot = kb.add(ty, kb.i32(kk * kTileM + i * kThreadsAlongN));
        a.push_back(LLVM::LoadOp::create(b, loc, b.getF32Type(),
                                         kb.sharedAt(tileA, slot)));
      }
      for (unsigned j = 0; j < numAcc; ++j)
        for (int64_t i = 0; i < kPerThread; ++i) {
          Value slot = kb.add(tx, kb.i32(kk * kTileN + i * kThreadsAlongN));
          bv.push_back(LLVM::LoadOp::create(b, loc, b.getF32Type(),
                                            kb.sharedAt(tilesB[j], slot)));
        }
      for (unsigned j = 0; j < numAcc; ++j)
        for (int64_t i = 0; i < kPerThread; ++i)
          for (int64_t c = 0; c < kPerThread; ++c) {
            Value &sum = tileSums[j * perAcc + i * kPerThread + c];
            sum =
                math::FmaOp::create(b, loc, a[i], bv[j * kPerThread + c], sum);
          }
    }
    for (auto [sum, tileSum] : llvm::zip_equal(acc, tileSums))
      sum = arith::AddFOp::create(b, loc, sum, tileSum);
    kb.barrier();
    scf::YieldOp::create(b, loc, acc);
  }

  for (int64_t i = 0; i < kPerThread; ++i)
    for (int64_t c = 0; c < kPerThread; ++c) {
      Value m = kb.add(m0, kb.toI64(kb.add(ty, kb.i32(i * kThreadsAlongN))));
      Value n = kb.add(n0, kb.toI64(kb.add(tx, kb.i32(c * kThreadsAlongN))));
      SmallVector<Value> values;
      for (unsigned j = 0; j < numAcc; ++j)
        values.push_back(loop.getResult(j * perAcc + i * kPerThread + c));
      kb.ifThen(kb.both(kb.lessThan(m, extentM), kb.lessThan(n, extentN)),
                [&] { spec.epilogue(kb, m, n, values); });
    }

  LaunchGeometry geometry;
  geometry.block = {kThreads, 1, 1};
  geometry.tile(0, spec.m, kTileM);
  geometry.tile(1, spec.n, kTileN);
  geometry.maxRegisters = spec.maxRegisters;
  kb.finish(geometry);
}

void mlir::fmlp::buildColumnSum(
    KernelBuilder &kb, int64_t columns,
    const std::function<Value(KernelBuilder &, Value t, Value n)> &load,
    const std::function<void(KernelBuilder &, Value n, Value sum)> &epilogue) {
  OpBuilder &b = kb.b;
  Location loc = kb.loc;
  constexpr int64_t kWarps = kColumnSumThreads / 32;
  Value tid = kb.threadIdX();
  Value lane = kb.urem(tid, 32), warp = kb.udiv(tid, 32);
  Value n = kb.add(kb.mul(kb.toI64(kb.blockId(0)), kb.i64(32)),
                   kb.toI64(lane));
  // Out-of-range columns (the last block's) read column 0 and store
  // nothing, so that every thread reaches the barrier.
  Value inColumns = kb.lessThan(n, kb.i64(columns));
  Value column = kb.select(inColumns, n, kb.i64(0));
  Value tokens = kb.tokens();
  Value lastToken = kb.add(tokens, kb.i64(-1));

  // Warp w's tokens are w, w + 8, w + 16, ...; each round sums the next
  // kColumnSumRun of them (its loads all independent, in flight at once)
  // and adds that run's sum to the warp's total.
  int64_t round = kWarps * kColumnSumRun;
  auto loop = scf::ForOp::create(b, loc, kb.toI64(warp), tokens,
                                 kb.i64(round), ValueRange{kb.f32(0.0)});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value first = loop.getInductionVar();
    SmallVector<Value> terms;
    for (int64_t r = 0; r < kColumnSumRun; ++r) {
      Value t = kb.add(first, kb.i64(r * kWarps));
      Value inTokens = kb.lessThan(t, tokens);
      // Past T: a token that exists (T >= 1 inside the loop), then 0.
      Value value = load(kb, kb.select(inTokens, t, lastToken), column);
      terms.push_back(kb.select(inTokens, value, kb.f32(0.0)));
    }
    Value run = terms.front();
    for (Value term : ArrayRef<Value>(terms).drop_front())
      run = arith::AddFOp::create(b, loc, run, term);
    scf::YieldOp::create(
        b, loc,
        ValueRange{arith::AddFOp::create(b, loc, loop.getRegionIterArgs()[0],
                                         run)
                       .getResult()});
  }

  // The warps' totals, added as a tree in a fixed order: ((w0 + w1) +
  // (w2 + w3)) + ((w4 + w5) + (w6 + w7)).
  Value totals = kb.sharedF32("totals", kColumnSumThreads);
  LLVM::StoreOp::create(b, loc, loop.getResult(0), kb.sharedAt(totals, tid));
  kb.barrier();
  kb.ifThen(kb.both(kb.eq(warp, 0), inColumns), [&] {
    SmallVector<Value> level;
    for (int64_t w = 0; w < kWarps; ++w)
      level.push_back(LLVM::LoadOp::create(
          b, loc, b.getF32Type(),
          kb.sharedAt(totals, kb.add(lane, kb.i32(w * 32)))));
    while (level.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i < level.size(); i += 2)
        next.push_back(
            arith::AddFOp::create(b, loc, level[i], level[i + 1]));
      level = std::move(next);
    }
    epilogue(kb, n, level.front());
  });
  LaunchGeometry geometry;
  geometry.block = {kColumnSumThreads, 1, 1};
  geometry.tile(0, Extent::of(columns), 32);
  geometry.maxRegisters = kSimtMaxRegisters;
  kb.finish(geometry);
}

void mlir::fmlp::buildFill(KernelBuilder &kb, Type element, int64_t elements,
                           double value) {
  MatrixView out{kb.buffer(0), element};
  Value i = kb.add(kb.mul(kb.toI64(kb.blockId(0)), kb.i64(kThreads)),
                   kb.toI64(kb.threadIdX()));
  kb.ifThen(kb.lessThan(i, kb.i64(elements)),
            [&] { kb.store(out, kb.i64(0), i, kb.f32(value)); });
  LaunchGeometry geometry;
  geometry.block = {kThreads, 1, 1};
  geometry.tile(0, Extent::of(elements), kThreads);
  geometry.maxRegisters = kSimtMaxRegisters;
  kb.finish(geometry);
}

void mlir::fmlp::buildWeightCopy(KernelBuilder &kb, const MatrixView &in,
                                 const MatrixView &out, int64_t rows,
                                 int64_t cols, WeightCopy copy) {
  constexpr int64_t kTile = kWeightCopyTile, kRowsPerPass = kThreads / kTile;
  Value tid = kb.threadIdX();
  Value lane = kb.urem(tid, kTile), row = kb.udiv(tid, kTile);
  Value i0 = kb.mul(kb.toI64(kb.blockId(1)), kb.i64(kTile));
  Value j0 = kb.mul(kb.toI64(kb.blockId(0)), kb.i64(kTile));
  auto written = [&](Value x) {
    return copy.roundToTf32
               ? LLVM::BitcastOp::create(kb.b, kb.loc, kb.b.getF32Type(),
                                         kb.roundToTf32(x))
                     .getResult()
               : x;
  };
  auto inBounds = [&](Value i, Value j) {
    return kb.both(kb.lessThan(i, kb.i64(rows)), kb.lessThan(j, kb.i64(cols)));
  };
  if (!copy.transpose) {
    // A warp reads and writes kTile consecutive elements of one row.
    for (int64_t pass = 0; pass < kTile / kRowsPerPass; ++pass) {
      Value i = kb.add(i0, kb.toI64(kb.add(row, kb.i32(pass * kRowsPerPass))));
      Value j = kb.add(j0, kb.toI64(lane));
      kb.ifThen(inBounds(i, j),
                [&] { kb.store(out, i, j, written(kb.load(in, i, j))); });
    }
  } else {
    // tile[r][c] holds in[i0 + r, j0 + c]; rows of kTile + 1 words, so that
    // the second phase's reads down a column hit kTile distinct banks.
    constexpr int64_t kPitch = kTile + 1;
    Value tile = kb.sharedF32("tile", kTile * kPitch);
    auto at = [&](Value r, Value c) {
      return kb.sharedAt(tile, kb.add(kb.mul(r, kb.i32(kPitch)), c));
    };
    // A warp reads kTile consecutive elements of one input row, and writes
    // kTile consecutive elements of one output row.
    for (int64_t pass = 0; pass < kTile / kRowsPerPass; ++pass) {
      Value r = kb.add(row, kb.i32(pass * kRowsPerPass));
      Value i = kb.add(i0, kb.toI64(r)), j = kb.add(j0, kb.toI64(lane));
      kb.ifThen(inBounds(i, j), [&] {
        LLVM::StoreOp::create(kb.b, kb.loc, kb.load(in, i, j), at(r, lane));
      });
    }
    kb.barrier();
    for (int64_t pass = 0; pass < kTile / kRowsPerPass; ++pass) {
      Value c = kb.add(row, kb.i32(pass * kRowsPerPass));
      Value j = kb.add(j0, kb.toI64(c)), i = kb.add(i0, kb.toI64(lane));
      kb.ifThen(inBounds(i, j), [&] {
        Value value =
            LLVM::LoadOp::create(kb.b, kb.loc, kb.b.getF32Type(), at(lane, c));
        kb.store(out, j, i, written(value));
      });
    }
  }
  LaunchGeometry geometry;
  geometry.block = {kThreads, 1, 1};
  geometry.tile(0, Extent::of(cols), kTile);
  geometry.tile(1, Extent::of(rows), kTile);
  geometry.maxRegisters = kSimtMaxRegisters;
  kb.finish(geometry);
}
