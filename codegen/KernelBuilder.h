//===- KernelBuilder.h - GPU kernels as LLVM + NVVM dialect ----*- C++ -*-===//
//
// The small layer fmlp's GPU code generator is written in: a kernel is an
// llvm.func in a gpu.module whose parameters are one global pointer per
// buffer and the token count T (i64); its body is built from scf loops,
// arith/math arithmetic and NVVM intrinsics, lowered by the upstream
// convert-gpu-to-nvvm.
//
// Every fmlp kernel is one GEMM skeleton with parts plugged in
// (ARCHITECTURE.md, Kernels): a GemmSpec says the extents, how to read
// element (row, col) of each operand, and what the epilogue does with the
// accumulators of one output element. buildSimtGemm instantiates the
// skeleton as a SIMT kernel (FMA on fp32 in shared-memory tiles), the path
// every valid input can take.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_CODEGEN_KERNELBUILDER_H
#define FMLP_CODEGEN_KERNELBUILDER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <functional>
#include <optional>

namespace mlir::fmlp {

/// A matrix in global memory: element (row, col) at
/// base[row * rowStride + col * colStride] (offsets in elements, 64-bit).
/// It may be more buffers concatenated along one index, each with strides
/// of its own: rows (or, with `splitCols`, columns) from a further part's
/// `start` on are that part's (its index 0 at start), read and written
/// through one selected address. K4's and K5's [dG dU] and [Wg Wu], K5's
/// [dWg; dWu] have equal strides; an adapter's columns (docs/LoRA.md:
/// [x | Z], [Wg | Bg]) have their own.
struct MatrixView {
  Value base; // !llvm.ptr<1>
  Type element;
  int64_t rowStride = 0, colStride = 1;
  /// What the base's alignment is known to be, in elements (the bundle
  /// asks 16 bytes of the WGMMA kernels' arguments; 1 when unknown).
  int64_t baseAlignment = 1;
  struct Part {
    Value base;
    int64_t rowStride = 0, colStride = 1, baseAlignment = 1;
    int64_t start = 0; // the first index of the concatenation it holds
  };
  SmallVector<Part, 2> further; // ascending starts; empty: one buffer
  bool splitCols = false;

  /// `first` then `second` (one buffer) from index `start` on, along the
  /// rows (`alongRows`) or the columns; `first` may be a concatenation
  /// along the same index already.
  static MatrixView concatenate(const MatrixView &first,
                                const MatrixView &second, int64_t start,
                                bool alongRows);

  /// Element (row, 2c) starts aligned to two elements: two columns can be
  /// stored as one word of twice the element's width.
  bool pairs() const { return alignedColumns(2); }
  /// Element (row, pc) starts 16-byte aligned, p = 16 bytes / element: p
  /// columns can be moved as one 16-byte piece.
  bool vectors() const {
    return alignedColumns(128 / element.getIntOrFloatBitWidth());
  }
  /// Element (row, c) starts aligned to `columns` elements wherever c is a
  /// multiple of `columns`, in every part.
  bool alignedColumns(int64_t columns) const {
    auto aligned = [&](int64_t rows, int64_t cols, int64_t alignment) {
      return cols == 1 && rows % columns == 0 && alignment % columns == 0;
    };
    if (!aligned(rowStride, colStride, baseAlignment))
      return false;
    return llvm::all_of(further, [&](const Part &part) {
      return aligned(part.rowStride, part.colStride, part.baseAlignment) &&
             (!splitCols || part.start % columns == 0);
    });
  }

  /// The same memory read with rows and columns swapped.
  MatrixView transposed() const {
    MatrixView view = *this;
    std::swap(view.rowStride, view.colStride);
    for (Part &part : view.further)
      std::swap(part.rowStride, part.colStride);
    view.splitCols = !splitCols;
    return view;
  }
  bool sameMemory(const MatrixView &other) const {
    auto samePart = [](const Part &x, const Part &y) {
      return x.base == y.base && x.rowStride == y.rowStride &&
             x.colStride == y.colStride && x.start == y.start;
    };
    return base == other.base && element == other.element &&
           rowStride == other.rowStride && colStride == other.colStride &&
           splitCols == other.splitCols &&
           further.size() == other.further.size() &&
           llvm::all_of_zip(further, other.further, samePart);
  }
};

/// Where a kernel's epilogue sends its memory accesses while one is set
/// (the WGMMA epilogue, WgmmaGemm.cpp, batches loads ahead of stores, pairs
/// stores and stages whole tiles in shared memory). `view` is null for an
/// access at a bare pointer.
class EpilogueAccess {
public:
  virtual ~EpilogueAccess() = default;
  virtual Value load(const MatrixView *view, Value row, Value col,
                     Value pointer, Type element) = 0;
  virtual void store(const MatrixView *view, Value row, Value col,
                     Value pointer, Type element, Value value) = 0;
};

/// An extent of a loop: a constant, or the token count T.
struct Extent {
  int64_t value = 0;
  bool tokens = false;

  static Extent ofTokens() { return {0, true}; }
  static Extent of(int64_t value) { return {value, false}; }
};

/// How a kernel is launched, as functions of T: grid[i] = ceil(T /
/// tokensPerBlock[i]) when tokensPerBlock[i] > 0, else fixed[i].
struct LaunchGeometry {
  std::array<int64_t, 3> tokensPerBlock = {0, 0, 0};
  std::array<int64_t, 3> fixed = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  int64_t dynamicSharedBytes = 0;
  int32_t maxRegisters = 0; // per thread (the cap ptxas must keep)

  /// Extent `e` split in blocks of `tile` along grid dimension `dim`.
  void tile(unsigned dim, Extent e, int64_t tile);
  /// Stored on the kernel as fmlp.* attributes (read by the bundle writer).
  void attachTo(Operation *kernel) const;
  static LaunchGeometry readFrom(Operation *kernel);
};

class KernelBuilder {
public:
  /// Starts `name`(tensor map x numTensorMaps, ptr<1> x numBuffers, i64 T)
  /// at the end of `module`. A tensor map (CUtensorMap, 128 bytes) is passed
  /// by value as a grid constant.
  KernelBuilder(gpu::GPUModuleOp module, StringRef name, unsigned numTensorMaps,
                unsigned numBuffers, Location loc);

  OpBuilder b;
  Location loc;
  LLVM::LLVMFuncOp func;
  unsigned numTensorMaps;

  Value tensorMap(unsigned index) { return func.getArgument(index); }
  Value buffer(unsigned index) {
    return func.getArgument(numTensorMaps + index);
  }
  Value tokens() { return func.getArgument(func.getNumArguments() - 1); }
  Value extent(Extent e) { return e.tokens ? tokens() : i64(e.value); }

  Value i64(int64_t value);
  Value i32(int32_t value);
  Value f32(double value);
  Value add(Value x, Value y);
  Value mul(Value x, Value y);
  Value lessThan(Value x, Value y); // signed
  Value both(Value x, Value y);     // i1 and
  Value select(Value condition, Value x, Value y);
  Value toI64(Value i32Value);
  /// Unsigned x / y, x mod y and x == y of an i32 `x` and a constant.
  Value udiv(Value x, int64_t y);
  Value urem(Value x, int64_t y);
  Value eq(Value x, int64_t y);
  Value threadIdX();
  Value blockId(unsigned dim);
  void barrier();
  /// Programmatic dependent launch (sm_90 onwards; Target::
  /// programmaticLaunch), at `b`'s insertion point: lets the next kernel on
  /// the stream be launched (griddepcontrol.launch_dependents), then waits
  /// until the kernels before this one have completed and their memory is
  /// visible (griddepcontrol.wait; with a memory clobber, so that no access
  /// moves above it). A kernel whose launch says programmatic_launch
  /// touches no memory before it.
  static void emitWaitForPreviousKernels(OpBuilder &b, Location loc);

  /// Element (row, col) of `view`, extended to f32 (indices are i64).
  Value load(const MatrixView &view, Value row, Value col);
  /// Rounds `value` (f32) to the view's element type and stores it.
  void store(const MatrixView &view, Value row, Value col, Value value);
  /// The address of element (row, col) of `view` (of two concatenated
  /// buffers, in the one the split index selects).
  Value address(const MatrixView &view, Value row, Value col);
  /// The element at `pointer`, extended to f32.
  Value loadFrom(Value pointer, Type element);
  /// Rounds `value` (f32) to `element` and stores it at `pointer`.
  void storeTo(Value pointer, Type element, Value value);
  /// While set, the four accesses above go through it.
  EpilogueAccess *epilogueAccess = nullptr;
  /// The accesses themselves.
  Value emitLoad(Value pointer, Type element);
  void emitStore(Value pointer, Type element, Value value);

  /// The module's dynamic shared memory (ptr<3>, 1024-byte aligned: the
  /// 128-byte swizzle of TMA boxes needs it), declared once per gpu.module.
  Value dynamicShared();
  /// A kernel-private f32 array in shared memory.
  Value sharedF32(StringRef suffix, int64_t count);
  Value sharedAt(Value array, Value index); // index: i32

  /// This block's tile (m, n) (i32) in grouped order, the grid's x
  /// indexing m and y n. Blocks start in the order of id = y gx + x: taken
  /// as they are, the blocks running at once (a wave of 132) would share
  /// one B column-block and each read its own A row-block (at T = 32768,
  /// D = 4096 every wave would read 132 MiB of A, more than L2 holds, and
  /// all of A again for each of the 86 n tiles). Consecutive ids here walk
  /// kGroupedTileRows m tiles, then the next n tile, so a wave covers ~16 x
  /// 8 tiles whose A and B blocks stay in L2 (the last group has gx mod
  /// kGroupedTileRows rows).
  std::pair<Value, Value> tileOfBlockGrouped();
  static constexpr int64_t kGroupedTileRows = 16;

  /// The mbarrier at `barrier` (ptr<3>, 8-byte aligned) expects `count`
  /// arrivals a phase.
  void initBarrier(Value barrier, int64_t count);
  /// Thread `tid` == 0 runs `inits` (the kernel's initBarrier calls) and
  /// fences them for the async proxy (TMA completes its bytes on the
  /// mbarriers there: the CUDA programming guide's TMA example; Triton
  /// after init_barrier); then the block meets, so that every thread sees
  /// them initialized before its first wait or load.
  void initBarriers(Value tid, function_ref<void()> inits);
  /// One arrival on `barrier` that also expects `bytes` (i32) more from TMA.
  void expectBytes(Value barrier, Value bytes);
  /// Waits (the op retries) until `barrier` completes the phase of `parity`
  /// (i32, 0 or 1).
  void waitParity(Value barrier, Value parity);
  /// fence.proxy.async.shared::cta: orders this thread's generic-proxy
  /// accesses of shared memory before (after) the async proxy's (TMA,
  /// WGMMA) that a barrier orders after (before) them (initBarriers, too).
  void fenceProxyAsync();
  /// TMA: the box of tensor map `map` at (inner, outer) element coordinates
  /// (i32) into shared memory at `target` (ptr<3>), its bytes counted on
  /// `barrier`. The destination is the block's own shared memory named as
  /// the cluster's (shared::cluster, PTX 8.0), or, `ctaOnly`, as its own
  /// (shared::cta, PTX 8.6 onwards: sm_120's ptxas gives every kernel with
  /// a shared::cluster load an 8-byte stack frame).
  void tmaLoad(unsigned map, Value target, Value inner, Value outer,
               Value barrier, bool ctaOnly = false);

  /// Runs `body` when `condition` holds; `body` yields nothing.
  void ifThen(Value condition, function_ref<void()> body);
  /// fp32 `x` rounded to tf32 (to nearest, ties away: cvt.rna), as the i32
  /// word an MMA takes.
  Value roundToTf32(Value x);
  /// tf32x3's parts of fp32 `x` as i32 words: hi = rna(x) and lo = rna(x -
  /// hi), x - hi exact in fp32.
  std::pair<Value, Value> tf32Parts(Value x);
  /// `condition ? then() : 0.0f`.
  Value ifElseZero(Value condition, function_ref<Value()> then);

  void finish(const LaunchGeometry &geometry);
};

/// C[m, n] (j) = sum_k A(m, k) B_j(k, n) for every accumulator j, then
/// epilogue(m, n, C(0..j)) for every (m, n) inside the extents.
struct GemmSpec {
  /// Element (i, j) of an operand, as f32; called only in bounds.
  using Loader = std::function<Value(KernelBuilder &, Value i, Value j)>;
  /// What the kernel makes of the accumulators acc[j] of element (m, n).
  using Epilogue = std::function<void(KernelBuilder &, Value m, Value n,
                                      ArrayRef<Value> acc)>;
  Extent m, n, k;
  Type element; // of the operands (the tensor-core path needs it)
  Loader loadA;                // A(m, k)
  SmallVector<Loader> loadB;   // B_j(k, n)
  /// Whether consecutive k (for A) or n (for B) are adjacent in memory:
  /// neighbouring threads then fill the shared tile along that index.
  bool aAdjacentAlongK = true, bAdjacentAlongN = true;
  Epilogue epilogue;
  /// The register cap per thread (the kernel config's; 0: none).
  int32_t maxRegisters = 0;
};

/// The SIMT instantiation: 256 threads, a 64 x 64 tile per block, 4 x 4
/// elements per thread per accumulator, K in steps of 16 through shared
/// memory, fp32 FMA. Grid: x over m, y over n.
constexpr int64_t kSimtThreads = 256, kSimtTile = 64, kSimtTileK = 16;
/// 65536 registers / 256 threads / 2 blocks per multiprocessor.
constexpr int32_t kSimtMaxRegisters = 128;
/// A static K shorter than one k-tile: the k-loop is one trip, which LLVM
/// removes, and the whole contraction's shared loads are scheduled as one
/// block (under 128 registers D = 12 spilled 400 B); one block per
/// multiprocessor of up to 255 registers (D = 14, H = 300: 196).
constexpr int32_t kSimtShortKMaxRegisters = 255;
/// Its shared memory: an f32 tile of A and one of each B_j.
constexpr int64_t simtSharedBytes(unsigned accumulators) {
  return (1 + accumulators) * kSimtTile * kSimtTileK * 4;
}
void buildSimtGemm(KernelBuilder &kb, const GemmSpec &spec);

/// The tensor-core instantiation for sm_90a (WGMMA, TMA, warp
/// specialization), for 16-bit operands, or fp32 ones multiplied as tf32,
/// read through tensor maps in 128-byte swizzled boxes. Its geometry is in
/// bytes: a stage's rows are kWgmmaRowBytes of k (wgmmaTileK: 64 16-bit
/// elements, 32 fp32 ones) and an instruction takes
/// kWgmmaInstructionKBytes of each row (k16 of 16-bit data, k8 of tf32),
/// so the descriptors' byte steps and a stage's bytes are the same for
/// every element width. An operand is K-major (rows of its global view
/// index M or N, K contiguous: one box of a row of k x the tile's rows) or
/// MN-major (rows index K: boxes of a stage's row of m/n x as many k rows,
/// 64 x 64 16-bit or 32 x 32 fp32 elements). WGMMA transposes 16-bit data
/// only (PTX ISA, wgmma.mma_async: imm-trans-a/b); an MN-major fp32
/// operand (wgmmaTransposesFp32) lands in a slot of its own and the
/// producer warpgroup writes it K-major into the stage. One
/// producer warpgroup (TMA on a ring of `stages` full/empty mbarriers) and
/// two consumer warpgroups (m64 x tileN x k16 WGMMA each, or k8 on tf32,
/// fp32 accumulators, setmaxnreg); the epilogue runs in registers on each
/// accumulator element. The tensor core takes the f32 bits of a tf32
/// operand as they lie in shared memory (not rounded: lib/Numerics' tf32
/// bound covers their truncation, bench/wgmma_tf32_operands.cu measured
/// it). Edges (T, N, K not tile multiples) are the tensor maps' zero fill
/// on load and, on store, the epilogue's guards or the TMA's clipping.
struct WgmmaOperand {
  unsigned map = 0; // tensor-map parameter
  bool kMajor = true;
  /// Further sources concatenated along K (K4's [Wg Wu], an adapter's
  /// columns: docs/LoRA.md): k-steps at or past a segment's `kStart` (a
  /// multiple of the k-tile; ascending) read its map at k - kStart.
  struct Segment {
    int64_t kStart = 0;
    unsigned map = 0;
  };
  SmallVector<Segment, 2> further;
  /// K-major A whose rows are T: each k-step's tile arrives in boxes of
  /// this many rows (0: one box of the whole tile), and a box wholly past
  /// the extent is not loaded. TMA's zero fill of rows past T is not free:
  /// with 128-row boxes K2 took 48 us at T = 64 and 34 at T = 128
  /// (H200, D = 4096, H = 11008; bench/NOTES.md item 53).
  int64_t rowsPerBox = 0;
};
/// Stages of the tensor-core strategies that TMA fills: rows of 128 bytes
/// (TMA's 128-byte swizzle's span), k along a row (K-major: a row of k of
/// one m/n) or m/n along it (MN-major: 128 bytes of m/n of one k).
constexpr int64_t kTmaRowBytes = 128;
/// One operand's k-tile by TMA into shared memory at byte `base` + `offset`
/// of `shared` (ptr<3>), counted on `barrier()`: `rows` m/n from `row0` and
/// the k-tile of `tileK` elements (a row: tileK x element = kTmaRowBytes)
/// from `k` (i32), read through the map of the segment k lies in (a chain
/// of scf.if on k below each further segment's start, each map read at k
/// less its start). K-major: a box of rows x a row of k, or (rowsPerBox)
/// boxes of rowsPerBox rows of which the first `boxes` are loaded (i32;
/// tmaBoxesBelow); MN-major: rows / tileK boxes of tileK k rows x tileK
/// m/n, one after the other. `ctaOnly`: as KernelBuilder::tmaLoad's.
void loadTmaTile(KernelBuilder &kb, const WgmmaOperand &op, Value shared,
                 Value base, Value offset, Value row0, int64_t rows, Value k,
                 int64_t tileK, Value boxes, function_ref<Value()> barrier,
                 bool ctaOnly = false);
/// The boxes of `op.rowsPerBox` rows (`op` K-major, its rows T: M) of a
/// tile of `rows` from `row0` (i32) that hold rows below M (`boxes`:
/// min(rows / rowsPerBox, ceil((M - row0) / rowsPerBox)), i32), and the
/// bytes of the others (`skippedBytes`, i32), which are neither loaded
/// nor to be expected.
struct TmaBoxesBelow {
  Value boxes, skippedBytes;
};
TmaBoxesBelow tmaBoxesBelow(KernelBuilder &kb, const WgmmaOperand &op, Extent m,
                            Value row0, int64_t rows);

struct WgmmaGemmSpec {
  Extent m, n, k;
  WgmmaOperand a;
  SmallVector<WgmmaOperand> b; // one per accumulator (1 or 2)
  /// A(m, k) and B_j(k, n) as views of global memory: the operands the
  /// producer copies transposed by cp.async (wgmmaTransposesFp32, an
  /// MN-major fp32 operand) are read through them, not a tensor map.
  MatrixView aView;
  SmallVector<MatrixView> bViews;
  /// Tensor maps (boxes of kWgmmaOutputBox square, 128-byte swizzled) of
  /// views the epilogue may stage: their blocks move by TMA.
  SmallVector<std::pair<MatrixView, unsigned>> outputMaps;
  int64_t tileN = 128; // per accumulator; tileN x b.size() <= 256
  int64_t stages = 4;
  /// Shared memory one block may use on the target (the epilogue's
  /// hand-off area goes past the ring only where it fits).
  int64_t sharedBytesLimit = 0;
  Type element; // bf16 or f16, or f32 (multiplied as tf32)
  /// fp32 operands contracted as tf32x3 (each split into a tf32 high and
  /// low part: B in its stage, A in registers or in its stage; three
  /// products per k8, those of tf32x3GroupK8s k8s summed from zero and
  /// added to the accumulators in fp32: WgmmaGemm.cpp); tiles of 128
  /// columns over all B_j.
  bool tf32x3 = false;
  /// tf32x3: the k8 steps whose three products each are summed from zero
  /// on the tensor core (one WGMMA group) before they are added to the
  /// accumulators in fp32: 1, 2 or 4 (TileSelection.h's tf32x3GroupK8s).
  int64_t tf32x3GroupK8s = 1;
  /// tf32 (not tf32x3): the operands the kernel stages itself reach the
  /// tensor core rounded to tf32 (to nearest, ties away): A from registers,
  /// rounded by the consumers, where it is K-major in the stage as loaded;
  /// the landing slots' MN-major tiles as the producer transposes them.
  /// A B_j that TMA loads K-major is multiplied as stored (the tensor core
  /// truncates it): fmlp-round-tf32-weights rounds the weights it reads so
  /// in global memory. Else every operand is truncated (WgmmaGemm.cpp).
  bool roundsTf32 = false;
  /// tf32 rounding (roundsTf32) of the B_j that TMA loads K-major, in the
  /// stages: the producer rounds each stage's B tiles in place before the
  /// consumers read them, so the kernel may read weights as stored, not
  /// fmlp-round-tf32-weights' rounded copies (the token variants of few
  /// T, where a copy would read and write the weights once more than the
  /// GEMM reads them: TileSelection.h). No operand transposed.
  bool roundsBInStages = false;
  GemmSpec::Epilogue epilogue;
  /// Split-K: K's tiles cut into `splitK` slices, one block each (grid z),
  /// reduced in `splitKWorkspace` (ptr<1>, laid out as SplitKWorkspace
  /// says, its counters zero at launch) by each tile's last block, which
  /// alone runs the epilogue (WgmmaGemm.cpp). M at most `splitKRows`.
  int64_t splitK = 1;
  Value splitKWorkspace;
  int64_t splitKRows = 0;
};
constexpr int64_t kWgmmaTileM = 128, kWgmmaThreads = 384;
/// A stage's row of k (the 128-byte swizzle's row) and one instruction's
/// part of it, in bytes, whatever the element width.
constexpr int64_t kWgmmaRowBytes = kTmaRowBytes, kWgmmaInstructionKBytes = 32;
/// The k-tile of `element`s: one stage's row, 64 16-bit or 32 fp32 ones.
int64_t wgmmaTileK(Type element);
/// Whether WGMMA reads MN-major operands of `element`: it transposes
/// 16-bit ones only.
bool wgmmaTakesMnMajor(Type element);
/// Whether the producer warpgroup transposes MN-major fp32 operands into
/// K-major stages (--fmlp-tf32-wgmma-mn-major; WgmmaGemm.cpp).
bool wgmmaTransposesFp32();
/// Whether the WGMMA strategy can round the fp32 operands it transposes to
/// tf32 (WgmmaGemmSpec::roundsTf32): through the landing slots, not under
/// --fmlp-tf32-transpose=cp-async, whose copies land unrounded.
bool wgmmaRoundsTransposedFp32();
/// Whether the WGMMA strategy reads MN-major operands of `element`: those
/// WGMMA takes, and fp32 ones where the producer transposes them.
bool wgmmaReadsMnMajor(Type element);

/// The workspace of a split-K WGMMA GEMM of at most `rows` x `cols` outputs
/// (`accumulators` per element, tiles kWgmmaTileM x tileN): first one u32
/// arrival counter per output tile (tile = mTile * nTiles + nTile), which
/// must be zero when the kernel starts and which it leaves zero; then, from
/// byte partialsOffset (128-byte aligned), the fp32 partial sums of tile t
/// from slice s at partialsOffset + (t splitK + s) partialBytes.
struct SplitKWorkspace {
  int64_t counters = 0, partialsOffset = 0, partialBytes = 0, bytes = 0;
};
SplitKWorkspace splitKWorkspace(int64_t rows, int64_t cols, int64_t tileN,
                                unsigned accumulators, int64_t splitK);
/// A consumer's 64 rows by 64 16-bit columns (128 bytes, the widest box
/// the 128-byte swizzle takes).
constexpr int64_t kWgmmaOutputBox = 64;
/// The most accumulator columns a WGMMA tile holds over all its B_j (the
/// consumers' registers): tileN x accumulators <= 256.
constexpr int64_t kWgmmaMaxColumns = 256;
/// tf32x3's (WgmmaGemmSpec::tf32x3): its accumulators and step sums, 2 x
/// 64 registers a consumer thread.
constexpr int64_t kWgmmaTf32x3Columns = 128;
/// setmaxnreg needs a cap at entry: 65536 / 384 threads, rounded down to 8.
constexpr int32_t kWgmmaMaxRegisters = 168;
/// Bytes of dynamic shared memory the kernel needs.
int64_t wgmmaSharedBytes(const WgmmaGemmSpec &spec);
void buildWgmmaGemm(KernelBuilder &kb, const WgmmaGemmSpec &spec);

constexpr int64_t kMmaSyncTileM = 128;
/// Every accumulator's columns of a tile together: 256; 192 for one
/// accumulator over a static grid whose waves it cuts
/// (TileSelection.cpp's staticGridTileN; off:
/// --fmlp-mma-sync-grid-tiles=false); 128 where a thread needs room beside its
/// accumulators (tf32x3's step sums, MmaSyncGemm.cpp) or two blocks of 4 warps
/// share a multiprocessor
/// (--fmlp-mma-sync-blocks-per-multiprocessor).
constexpr int64_t kMmaSyncTileColumns = 256, kMmaSyncGridTileColumns = 192,
                  kMmaSyncNarrowTileColumns = 128;
/// Whether a tile of `columns` (every accumulator's together) is one of
/// those for `accumulators` accumulators.
constexpr bool mmaSyncTakesColumns(int64_t columns, size_t accumulators) {
  return columns == kMmaSyncTileColumns ||
         columns == kMmaSyncNarrowTileColumns ||
         (columns == kMmaSyncGridTileColumns && accumulators == 1);
}
/// The threads of an mma.sync block of `columns`: two rows of warps (64
/// tile rows each), 4 warps a row on columns / 4 each (64 at 256: 128
/// accumulators a thread; 48 at 192; tf32x3's 32 at 128: 64 beside its
/// step sums), or, at 128 columns of single products, 2 warps of 64 (two
/// blocks a multiprocessor).
constexpr int64_t mmaSyncThreads(int64_t columns, bool tf32x3) {
  return columns == kMmaSyncNarrowTileColumns && !tf32x3 ? 128 : 256;
}
/// Up to 128 accumulators, the fragments and the addresses; two blocks of
/// 4 warps a multiprocessor (TileSelection's config) fit 65,536 registers
/// at that too.
constexpr int32_t kMmaSyncMaxRegisters = 255;
/// The tensor-core instantiation for every chip with mma.sync (sm_80
/// onwards; MmaSyncGemm.cpp), for operands each stored with one index
/// contiguous, in 16-byte aligned pieces (MatrixView::vectors of the view
/// whose columns are that index): K-contiguous (rows index m or n) or
/// MN-contiguous (rows index k). threads() threads on a tile of 128 rows x
/// tileN columns per accumulator (tileN x accumulators = 256; 192 for one
/// accumulator; 128 for tf32x3 or two blocks a multiprocessor), K in steps of
/// tileK through a ring of `stages` shared-memory slots filled by cp.async or
/// TMA (zero-filled past the extents), fp32 accumulators (128 per thread, 64
/// for tf32x3); the epilogue runs through the staged-epilogue engine (batched,
/// column pairs merged). 16-bit operands: ldmatrix (.trans for MN-contiguous
/// ones) into m16n8k16 fragments. fp32 operands: m16n8k8 on tf32, each operand
/// rounded to tf32 (round to nearest, ties away) in registers, or split into a
/// tf32 high and low part with three products per step (tf32x3); K-contiguous
/// fragments by ldmatrix, MN-contiguous ones by 32-bit shared loads.
struct MmaSyncGemmSpec {
  Extent m, n, k;
  MatrixView a;              // A(m, k)
  SmallVector<MatrixView> b; // B_j(k, n); one or two
  int64_t tileN = 256;       // per accumulator: columns() / accumulators
  int64_t tileK = 32;        // rows of kMmaSyncTileKBytes
  int64_t stages = 4;
  Type element; // bf16, f16 or f32
  /// fp32 operands: hi * hi + hi * lo + lo * hi of their tf32 parts (else
  /// one product of their tf32 roundings).
  bool tf32x3 = false;
  int32_t maxRegisters = kMmaSyncMaxRegisters; // per thread (the config's)
  GemmSpec::Epilogue epilogue;
  /// Staging by TMA (a chip with cp.async.bulk.tensor, 16-bit operands,
  /// k-tiles of 128-byte rows; KernelConfig::stagesByTma): A and each B_j
  /// arrive through these tensor maps (KernelGemm.h's planTma), issued by
  /// one thread and counted on an mbarrier per ring slot (the threads
  /// release a slot on another), in the stage
  /// layout WGMMA reads (K-major: a row of k a row; MN-major: boxes of 64
  /// k rows x 64 m/n), instead of by every thread's cp.async.
  struct TmaStaging {
    WgmmaOperand a;
    SmallVector<WgmmaOperand> b;
    /// Loads into shared::cta (KernelBuilder::tmaLoad): where the target's
    /// PTX has it (8.6 onwards).
    bool ctaOnly = false;
    /// The maps of 16-bit views the staged epilogue moves by TMA
    /// (planTma's outputMaps, planned where mmaSyncStagesEpilogue()): read
    /// ones prefetched into the ring as it frees, written ones stored box
    /// by box (StagedEpilogue.h).
    SmallVector<std::pair<MatrixView, unsigned>> outputMaps;
  };
  std::optional<TmaStaging> tma;

  int64_t columns() const { return tileN * static_cast<int64_t>(b.size()); }
  int64_t threads() const { return mmaSyncThreads(columns(), tf32x3); }
};
/// The k-tiles of the strategy: rows of 64 or 128 bytes (32 or 64 16-bit
/// elements, 16 or 32 fp32 ones).
constexpr int64_t kMmaSyncTileKBytes[] = {64, 128};
/// fp32 tiles stored MN-contiguous pad each row (one k) by 32 bytes: the 4
/// rows x 8 columns a warp reads at once then fall in distinct banks.
constexpr int64_t kMmaSyncFp32RowPadding = 32;
/// A ring slot: the tiles of A (128 x tileK) and of every B_j (tileN x
/// tileK each, `columns` x tileK together), elements of `elementBytes`;
/// fp32 ones with room for the padding of three operands' k rows.
constexpr int64_t mmaSyncStageBytes(int64_t tileK, int64_t elementBytes,
                                    int64_t columns) {
  return (kMmaSyncTileM + columns) * tileK * elementBytes +
         (elementBytes == 4 ? 3 * tileK * kMmaSyncFp32RowPadding : 0);
}
/// The ring, and past it (staging by TMA) two mbarriers per slot: its
/// tile has arrived, every thread is done with it.
constexpr int64_t mmaSyncSharedBytes(int64_t tileK, int64_t stages,
                                     int64_t elementBytes, int64_t columns,
                                     bool tmaStaging = false) {
  return stages * mmaSyncStageBytes(tileK, elementBytes, columns) +
         (tmaStaging ? 16 * stages : 0);
}
/// Whether `view` (element (i, j) of an operand) can be staged by the
/// mma.sync strategy: one of its indices contiguous, 16-byte pieces along it.
bool mmaSyncStageable(const MatrixView &view);
void buildMmaSyncGemm(KernelBuilder &kb, const MmaSyncGemmSpec &spec);
/// Whether the mma_sync kernels of 8 warps stage their epilogue in the ring
/// (the default; off: --fmlp-mma-sync-staged-epilogue=false): their tensor maps
/// then include the epilogue's views (planTma's outputMaps).
bool mmaSyncStagesEpilogue();

/// D = A B + C on mma.sync m16n8k16 (row.col) of 16-bit `element`s: A's
/// fragment as four 32-bit words, B's as two (each two elements), C and D
/// as !llvm.struct<(f32, f32, f32, f32)>.
Value mmaM16N8K16(KernelBuilder &kb, Type element, ArrayRef<Value> aWords,
                  ArrayRef<Value> bWords, Value c);
/// D = A B + C on mma.sync m16n8k8 (row.col) of tf32 operands: A's
/// fragment as four 32-bit words, B's as two (one tf32 value each, as
/// cvt.rna.tf32.f32 writes it), C and D as mmaM16N8K16's.
Value mmaM16N8K8Tf32(KernelBuilder &kb, ArrayRef<Value> aWords,
                     ArrayRef<Value> bWords, Value c);
/// The fp32 accumulator type of mma.sync m16n8k16 and m16n8k8.
Type mmaAccumulatorType(MLIRContext *context);

constexpr int64_t kSmallTokens = 16, kSmallTokensTileN = 16,
                  kSmallTokensChunk = 32, kSmallTokensThreads = 256;
/// The instantiation for a few tokens (SmallTokensGemm.cpp), launched for
/// T <= `tokens` (kSmallTokens, 32; 64 for A/B runs): C(t, n) = sum_k
/// A(t, k) B_j(k, n) with A stored [T, K] and each B_j stored [N, K] (both
/// K-major, rows and base 16-byte aligned), 16-bit, K a multiple of 32 and
/// N of tileN. Computed as its transpose on mma.sync m16n8k16 (the weights
/// are A, the tokens N in tiles of 8), one block per `tileN` (16, or 32
/// at 16 tokens) columns of N, 8 warps per 16 columns, with K split over
/// the warps; then epilogue(t, n, C(t, n)) for every t < T.
struct SmallTokensGemmSpec {
  int64_t n = 0, k = 0;
  MatrixView a;                // element (t, k)
  SmallVector<MatrixView> b;   // element (n, k) of B_j; one or two
  Type element;                // bf16 or f16
  GemmSpec::Epilogue epilogue;
  int32_t maxRegisters = 0;    // per thread: the kernel config's cap
  int64_t tokens = kSmallTokens; // a multiple of 16
  /// Columns of N a block takes: 16, or 32 (each token piece then serves
  /// twice the weight rows: half the tokens' reads).
  int64_t tileN = kSmallTokensTileN;
  /// Whether the kernel is the no-grad forward's (the weights' load
  /// policy may differ there: --fmlp-small-tokens-weights-l1).
  bool noGradForward = false;
};
/// Threads a block: 8 warps per 16 columns (SmallTokensGemm.cpp).
constexpr int64_t smallTokensThreads(int64_t tileN = kSmallTokensTileN) {
  return kSmallTokensThreads * (tileN / kSmallTokensTileN);
}
/// Two blocks of 256 threads (or one of 512) per multiprocessor.
constexpr int32_t kSmallTokensMaxRegisters = 128;
/// 64 tokens (an A/B knob's, --fmlp-small-tokens-max=64; measured and not
/// taken by the rule, bench/NOTES.md item 100): one block of 256 threads a
/// multiprocessor (K1's 64 accumulators and a chunk's 8 token pieces spill
/// at 128).
constexpr int32_t kSmallTokens64MaxRegisters = 168;
/// The warps' partial sums are added in shared memory in rounds, each
/// round the accumulators of as many weights as static shared memory (48
/// KiB) takes: all of them, or one at a time.
constexpr int64_t kSmallTokensPartialBytesLimit = 48 * 1024;
constexpr int64_t smallTokensPartialBytes(unsigned accumulators,
                                          int64_t tokens, int64_t tileN) {
  return smallTokensThreads(tileN) / 32 * accumulators * tokens * tileN * 4;
}
constexpr unsigned smallTokensWeightsPerRound(unsigned accumulators,
                                              int64_t tokens, int64_t tileN) {
  return smallTokensPartialBytes(accumulators, tokens, tileN) <=
                 kSmallTokensPartialBytesLimit
             ? accumulators
             : 1;
}
/// Shared memory: a round's partial sums (warps x tokens x tileN fp32 per
/// accumulator).
constexpr int64_t smallTokensSharedBytes(unsigned accumulators,
                                         int64_t tokens = kSmallTokens,
                                         int64_t tileN = kSmallTokensTileN) {
  return smallTokensPartialBytes(
      smallTokensWeightsPerRound(accumulators, tokens, tileN), tokens, tileN);
}
void buildSmallTokensGemm(KernelBuilder &kb, const SmallTokensGemmSpec &spec);

/// out[n] = epilogue(n, sum_t in(t, n)) for n < columns, summed in fp32 in
/// blocks: 8 warps per 32 columns (a lane per column); warp w sums tokens
/// w, w + 8, ... in runs of kColumnSumRun (one run's loads in flight
/// together), adding each run's sum to its total, and the 8 totals are
/// added as a balanced tree. A term goes through at most kColumnSumRun +
/// ceil(T / (8 kColumnSumRun)) + 3 roundings instead of a sequential
/// sum's T - 1 (issue 23: summed in token order, fmlp's fp32 down-bias
/// gradient was 7.9x less accurate than PyTorch's at T = 2048); never more
/// than T - 1, so lib/Numerics' bound for any order holds. The 8 warps
/// also keep 16 times the loads of one thread per column in flight.
constexpr int64_t kColumnSumThreads = 256, kColumnSumRun = 16;
void buildColumnSum(
    KernelBuilder &kb, int64_t columns,
    const std::function<Value(KernelBuilder &, Value t, Value n)> &load,
    const std::function<void(KernelBuilder &, Value n, Value sum)> &epilogue);

/// out[i] = value for i < elements (out a dense buffer of `element`s): one
/// thread per element. It zeroes the weight and bias gradients that a
/// token-chunked plan accumulates over its chunks, before the first.
void buildFill(KernelBuilder &kb, Type element, int64_t elements, double value);

/// How buildWeightCopy copies: transposed or in place, each element rounded
/// to tf32 (to nearest, ties away) or passed unchanged.
struct WeightCopy {
  bool transpose = true;
  bool roundToTf32 = false;
};
/// out[j, i] = in[i, j] (transposed) or out[i, j] = in[i, j], for i < rows,
/// j < cols, element for element (in and out of one element type: the value
/// passes through f32 unchanged, or rounded to tf32). Tiles of
/// kWeightCopyTile x kWeightCopyTile, 256 threads a block, grid x over in's
/// columns and y over its rows; a transpose goes through shared memory, so
/// that a warp reads a run of one input row and writes a run of one output
/// row (128 coalesced bytes of fp32 each). The copies of
/// fmlp-transpose-weights and fmlp-round-tf32-weights.
constexpr int64_t kWeightCopyTile = 32;
void buildWeightCopy(KernelBuilder &kb, const MatrixView &in,
                     const MatrixView &out, int64_t rows, int64_t cols,
                     WeightCopy copy);

} // namespace mlir::fmlp

#endif // FMLP_CODEGEN_KERNELBUILDER_H
