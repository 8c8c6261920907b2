//===- ConvertFMLPToNVVM.cpp - The kernel plan as GPU kernels -------------===//
//
// Implements convert-fmlp-to-nvvm (see Passes.td). Each kernel op of a
// planned entry point becomes one kernel in the gpu.module @fmlp_kernels,
// and the op itself a gpu.launch_func of it. Every kernel but bias_grad's
// column sum is the one GEMM skeleton of codegen/KernelBuilder.h: its
// extents and operands are the op's KernelGemm (KernelGemm.h), read by the
// strategy its #fmlp.kernel_config names (SIMT loaders, or the WGMMA
// strategy's tensor maps), and its epilogue is written here per op
// (EpilogueLowering), with the math of the CPU lowering
// (ConvertFMLPToLinalg.cpp), so both paths round the same values. Kernel
// parameters are the tensor maps, one pointer per distinct buffer (already
// offset to the view's first element by the caller) and T.
//
// A token-chunked plan (fmlp-plan-memory chunk-tokens=C) keeps its loop:
// the kernels in it become launches in it, on the chunk's views, with T the
// chunk's token count (the bundle writer turns the loop into the manifest's
// per-chunk launches), and the linalg.fill that zeroes the gradients the
// chunks accumulate into becomes a fill kernel's launch before it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "codegen/Activation.h"
#include "codegen/CheckedOption.h"
#include "codegen/KernelBuilder.h"
#include "codegen/TileSelection.h"
#include "dialects/FMLP/FMLPOps.h"
#include "fmlp/EntryKind.h"
#include "passes/KernelGemm.h"
#include "passes/ViewOffset.h"
#include "passes/WeightCopies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CommandLine.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace mlir::fmlp {
#define GEN_PASS_DEF_CONVERTFMLPTONVVMPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

// Programmatic dependent launch (griddepcontrol, sm_90 onwards): a kernel
// that waits for the kernels before it itself may be launched while they
// end, its blocks resident as theirs retire. Measured on the H200 (bench/
// NOTES.md items 52, 58, 67), module against module, graph-replayed, same
// run: every launch of the no-grad forward programmatic took 0.91-1.00x
// the time of the small_tokens kernels' alone so, T = 1 .. 8192 at both
// shapes and 65536 at (4096, 11008); every launch of the training step
// too, 0.97-1.00x the time at (1024, 2816) but 0.99-1.04x at (4096,
// 11008) (1.04x at T = 256; 1.05-1.10x at T <= 16 before the dX lane).
// So the rule: the no-grad forward's launches are programmatic, the
// training entries' are not; --fmlp-programmatic-launch makes them all so
// (A/B runs).
static llvm::cl::opt<bool> programmaticLaunch(
    "fmlp-programmatic-launch", llvm::cl::Hidden, llvm::cl::init(false),
    llvm::cl::desc("sm_90 onwards: launch each kernel of every entry point "
                   "while the previous one ends (griddepcontrol), not after "
                   "it"));
static llvm::cl::opt<bool> programmaticNoGrad(
    "fmlp-programmatic-nograd", llvm::cl::Hidden, llvm::cl::init(true),
    llvm::cl::desc("sm_90 onwards: launch the no-grad forward's kernels "
                   "programmatically (griddepcontrol); off for A/B runs"));

// For GPU runs of what a newer chip gets: PTX of this ISA version (x10)
// where the chip's (Target::ptxVersion) is older, so that the H100 runs the
// mma_sync kernels' TMA loads into shared::cta (PTX 8.6, as sm_100 and
// sm_120 emit them).
namespace {
/// PTX ISA versions of the table's chips (Target::ptxVersion): 8.0 .. 8.8.
struct PtxVersion {
  static bool accepts(int n) { return n == 0 || (n >= 80 && n <= 88); }
  static constexpr const char *expected = "0 or 80 to 88";
};
} // namespace
static llvm::cl::opt<int, false, CheckedIntParser<PtxVersion>>
    ptxVersionAtLeast(
        "fmlp-ptx-version", llvm::cl::Hidden, llvm::cl::init(0),
        llvm::cl::desc("emit PTX of at least this ISA version, x10, 80 to "
                       "88 (0: the chip's)"));

namespace {

constexpr StringLiteral kKernelModule = "fmlp_kernels";

/// The PTX ISA version (x10) the kernels of `target` are emitted in.
int ptxVersionFor(const Target &target) {
  return std::max<int>(target.ptxVersion, ptxVersionAtLeast);
}
/// The first PTX ISA version (x10) whose cp.async.bulk.tensor writes
/// shared::cta (KernelBuilder::tmaLoad's ctaOnly).
constexpr int kTmaSharedCtaPtxVersion = 86;

/// The distinct memref operands of a kernel op, as kernel parameters.
class KernelOperands {
public:
  KernelOperands() = default;
  explicit KernelOperands(Operation *op) {
    for (Value operand : op->getOperands())
      if (isa<MemRefType>(operand.getType()) && !index.count(operand)) {
        index[operand] = buffers.size();
        buffers.push_back(operand);
      }
  }

  /// The view of `memref` inside kernel `kb`: [rows, cols] with the
  /// memref's strides; a 1-D memref is one row.
  MatrixView view(KernelBuilder &kb, Value memref) const {
    auto type = cast<MemRefType>(memref.getType());
    auto [strides, offset] = type.getStridesAndOffset();
    MatrixView view{kb.buffer(index.lookup(memref)), type.getElementType(), 0,
                    strides.back()};
    if (type.getRank() == 2)
      view.rowStride = strides[0];
    // The view starts offset + tokenStride c0 elements past its argument's.
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    if (alignedArguments)
      if (std::optional<ViewOffset> traced = traceViewOffset(memref))
        view.baseAlignment = std::gcd(
            std::gcd(traced->offset, traced->tokenStride), 16 / elementBytes);
    return view;
  }
  /// A weight of the projection in -> out as W(in, out), whatever its layout.
  MatrixView weight(KernelBuilder &kb, Value memref,
                    WeightLayout layout) const {
    MatrixView stored = view(kb, memref);
    return layout == WeightLayout::in_out ? stored : stored.transposed();
  }

  /// The same with each buffer that `replacements` maps replaced by its
  /// image, at the same index.
  KernelOperands replacing(const DenseMap<Value, Value> &replacements) const {
    KernelOperands replaced = *this;
    for (Value &buffer : replaced.buffers)
      if (Value image = replacements.lookup(buffer))
        buffer = image;
    replaced.index.clear();
    for (auto [i, buffer] : llvm::enumerate(replaced.buffers))
      replaced.index.try_emplace(buffer, i);
    return replaced;
  }

  /// The same with `extra` as the last buffer (a split-K workspace).
  KernelOperands with(Value extra) const {
    KernelOperands more = *this;
    more.index[extra] = more.buffers.size();
    more.buffers.push_back(extra);
    return more;
  }

  SmallVector<Value> buffers;
  DenseMap<Value, unsigned> index;
  /// The bundle asks 16-byte aligned arguments of the kernel (its launch has
  /// tensor maps or is fmlp.vector_access: argumentAlignments in
  /// lib/Pipeline/Bundle.cpp), so views know their alignment.
  bool alignedArguments = false;
};

int64_t staticSize(Value memref, unsigned dim) {
  return cast<MemRefType>(memref.getType()).getDimSize(dim);
}

Value scale(KernelBuilder &kb, Value v, std::optional<APFloat> multiplier) {
  return multiplier
             ? arith::MulFOp::create(kb.b, kb.loc, v,
                                     kb.f32(multiplier->convertToDouble()))
             : v;
}
Value fadd(KernelBuilder &kb, Value x, Value y) {
  return arith::AddFOp::create(kb.b, kb.loc, x, y);
}
Value fmul(KernelBuilder &kb, Value x, Value y) {
  return arith::MulFOp::create(kb.b, kb.loc, x, y);
}

/// The sigmoid's primitives as single instructions, for 16-bit kernels
/// (primitivesFor): e^x = 2^(x log2 e) by
/// ex2.approx.ftz, 1 / x by rcp.approx.ftz. Without .ftz, ptxas wraps each
/// MUFU in range checks and rescaling for subnormal results; the ones
/// flushed here are below 2^-126, which lib/Numerics's bound allows for.
const Primitives &nvvmPrimitives() {
  static const Primitives primitives{
      [](OpBuilder &b, Location loc, Value x) -> Value {
        Value log2e = arith::ConstantOp::create(
            b, loc, b.getF32FloatAttr(static_cast<float>(M_LOG2E)));
        return LLVM::CallIntrinsicOp::create(
                   b, loc, b.getF32Type(),
                   b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
                   ValueRange{arith::MulFOp::create(b, loc, x, log2e)})
            .getResult(0);
      },
      [](OpBuilder &b, Location loc, Value x) -> Value {
        return NVVM::RcpApproxFtzF32Op::create(b, loc, b.getF32Type(), x);
      }};
  return primitives;
}

/// The same, accurate, for float32 kernels (the IEEE path): libdevice's
/// expf and a correctly rounded division. Their outputs keep float32's
/// precision, where the single instructions' few ulps (lib/Numerics: up to
/// (8 + 2.5 |g|) u for silu) show; 16-bit outputs round them away.
const Primitives &accuratePrimitives() {
  static const Primitives primitives{
      [](OpBuilder &b, Location loc, Value x) -> Value {
        return math::ExpOp::create(b, loc, x);
      },
      [](OpBuilder &b, Location loc, Value x) -> Value {
        Value one = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(1.0f));
        return arith::DivFOp::create(b, loc, one, x);
      }};
  return primitives;
}

/// The sigmoid's primitives for a kernel on `element` operands: a static,
/// so the epilogues and loaders may capture the reference.
const Primitives &primitivesFor(Type element) {
  return element.isF32() ? accuratePrimitives() : nvvmPrimitives();
}

/// out(m, n) = acc, or out(m, n) + acc when accumulating, through
/// KernelBuilder::load and store (which the WGMMA epilogue pairs and stages).
void storeGradient(KernelBuilder &kb, const MatrixView &out, Value m, Value n,
                   Value acc, bool accumulate) {
  if (accumulate)
    acc = fadd(kb, kb.load(out, m, n), acc);
  kb.store(out, m, n, acc);
}

/// A GEMM's operands (KernelGemm.h) as the SIMT and mma_sync strategies
/// read them: each part as a view of A(m, k) or B_j(k, n), a concatenation
/// as one view.
class OperandViews {
public:
  OperandViews(KernelBuilder &kb, const KernelOperands &ops)
      : kb(kb), ops(ops) {}

  /// Part `part` of A (`isA`) or of a B_j, indexed (m, k) or (k, n): the
  /// stored view, transposed when its rows index the other.
  MatrixView partView(const GemmPart &part, bool isA) const {
    MatrixView stored = ops.view(kb, part.memref);
    return isA == part.kMajor ? stored : stored.transposed();
  }
  /// An operand as one view, its parts concatenated.
  MatrixView operandView(const GemmOperand &operand, bool isA) const {
    MatrixView view = partView(operand.parts[0], isA);
    // Along k: A's columns, B's rows; along A's m: its rows.
    for (auto [part, start] : llvm::drop_begin(
             llvm::zip_equal(operand.parts, operand.starts)))
      view = MatrixView::concatenate(view, partView(part, isA), start,
                                     /*alongRows=*/isA != operand.alongK);
    return view;
  }

  /// The GemmSpec of `gemm`, all but its epilogue.
  GemmSpec spec(const KernelGemm &gemm) const {
    GemmSpec spec;
    spec.element = gemm.element;
    spec.m = gemm.m;
    spec.n = gemm.n;
    spec.k = gemm.k;
    MatrixView a = operandView(gemm.a, /*isA=*/true);
    spec.loadA = [a](KernelBuilder &kb, Value m, Value k) {
      return kb.load(a, m, k);
    };
    for (const GemmOperand &b : gemm.b) {
      MatrixView view = operandView(b, /*isA=*/false);
      spec.loadB.push_back([view](KernelBuilder &kb, Value k, Value n) {
        return kb.load(view, k, n);
      });
    }
    // Whether consecutive k of A's first part, n of B_0's, are adjacent.
    spec.aAdjacentAlongK = partView(gemm.a.parts[0], true).colStride == 1;
    spec.bAdjacentAlongN = partView(gemm.b[0].parts[0], false).colStride == 1;
    return spec;
  }

private:
  KernelBuilder &kb;
  const KernelOperands &ops;
};

/// The most rows a split-K kernel's tiles span: M, or the largest T its
/// variant serves when M is T.
int64_t splitKRows(const KernelGemm &gemm, const KernelConfig &config) {
  return gemm.m.tokens ? config.maxTokens : gemm.m.value;
}

/// The workspace of `gemm`'s split-K kernel of `config` (codegen's layout).
SplitKWorkspace splitKLayout(const KernelGemm &gemm,
                             const KernelConfig &config) {
  return splitKWorkspace(splitKRows(gemm, config), gemm.n.value, config.tileN,
                         gemm.b.size(), config.splitK);
}

/// Whether `gemm`'s fp32 operands are contracted as tf32x3 on tensor cores
/// (precision tf32x3, and highest's products there).
bool takesTf32x3(const KernelGemm &gemm) {
  return gemm.element.isF32() && gemm.precision &&
         getProductFormat(*gemm.precision, /*tensorCores=*/true) ==
             Precision::tf32x3;
}

/// Whether `gemm`'s single tf32 products take operands rounded to nearest
/// (fmlp-round-tf32-weights marked it; WgmmaGemmSpec::roundsTf32).
bool roundsTf32(const KernelGemm &gemm) {
  return gemm.tf32Rounded && gemm.element.isF32() && !takesTf32x3(gemm);
}

/// Why `config`'s split_k cannot split `gemm`'s K, or "".
std::string notSplittable(const KernelGemm &gemm, const KernelConfig &config) {
  if (config.splitK == 1)
    return "";
  std::string prefix = "has split_k = " + std::to_string(config.splitK);
  if (gemm.k.tokens || gemm.n.tokens)
    return prefix + ", but its K or N is T: split-K takes static K and N";
  if (gemm.m.tokens && config.maxTokens == 0)
    return prefix + " for every T: only a token variant (max_tokens > 0) "
                    "splits K, its workspace sized for its largest T";
  int64_t tileK = wgmmaTileK(gemm.element);
  int64_t kTiles = llvm::divideCeil(gemm.k.value, tileK);
  if (config.splitK > kTiles)
    return prefix + ", more slices than its K = " +
           std::to_string(gemm.k.value) + " has k-tiles of " +
           std::to_string(tileK) + " (" + std::to_string(kTiles) + ")";
  return "";
}

/// The GEMM of a kernel op, as its configured strategy: the WGMMA one
/// reads A and B_j through the plan's tensor maps (and moves the outputs it
/// stages through theirs), the SIMT and mma_sync ones through OperandViews,
/// the small_tokens one too, its K-major parts in 16-byte pieces
/// (notSmallTokensReady); all run `epilogue`.
void buildGemm(KernelBuilder &kb, const KernelOperands &ops,
               const KernelGemm &gemm, const KernelConfig &config,
               const TmaPlan *tma, bool noGradForward,
               GemmSpec::Epilogue epilogue) {
  if (config.strategy == KernelStrategy::small_tokens) {
    OperandViews reads(kb, ops);
    SmallTokensGemmSpec small;
    small.n = gemm.n.value;
    small.k = gemm.k.value;
    small.a = reads.operandView(gemm.a, /*isA=*/true); // element (t, k)
    for (const GemmOperand &b : gemm.b) // element (n, k)
      small.b.push_back(reads.operandView(b, /*isA=*/false).transposed());
    small.element = gemm.element;
    small.epilogue = std::move(epilogue);
    small.maxRegisters = config.maxRegisters;
    small.tokens = config.tileM;
    small.tileN = config.tileN;
    small.noGradForward = noGradForward;
    return buildSmallTokensGemm(kb, small);
  }
  if (config.strategy == KernelStrategy::mma_sync) {
    OperandViews reads(kb, ops);
    MmaSyncGemmSpec mma;
    mma.m = gemm.m;
    mma.n = gemm.n;
    mma.k = gemm.k;
    mma.a = reads.operandView(gemm.a, /*isA=*/true);
    for (const GemmOperand &b : gemm.b)
      mma.b.push_back(reads.operandView(b, /*isA=*/false));
    mma.tileN = config.tileN;
    mma.tileK = config.tileK;
    mma.stages = config.stages;
    mma.element = gemm.element;
    mma.tf32x3 = takesTf32x3(gemm);
    mma.maxRegisters = config.maxRegisters;
    mma.epilogue = std::move(epilogue);
    if (tma) {
      mma.tma = MmaSyncGemmSpec::TmaStaging{
          tma->a, tma->b,
          /*ctaOnly=*/ptxVersionFor(getTarget(kb.func).getInfo()) >=
              kTmaSharedCtaPtxVersion};
      for (auto [memref, map] : tma->outputMaps)
        mma.tma->outputMaps.push_back({ops.view(kb, memref), map});
    }
    return buildMmaSyncGemm(kb, mma);
  }
  GemmSpec spec = OperandViews(kb, ops).spec(gemm);
  spec.epilogue = std::move(epilogue);
  if (config.strategy == KernelStrategy::simt || !tma) {
    spec.maxRegisters = config.strategy == KernelStrategy::simt
                            ? config.maxRegisters
                            : kSimtMaxRegisters;
    return buildSimtGemm(kb, spec);
  }
  WgmmaGemmSpec wgmma;
  wgmma.m = spec.m;
  wgmma.n = spec.n;
  wgmma.k = spec.k;
  wgmma.a = tma->a;
  wgmma.b = tma->b;
  OperandViews reads(kb, ops);
  wgmma.aView = reads.operandView(gemm.a, /*isA=*/true);
  for (const GemmOperand &b : gemm.b)
    wgmma.bViews.push_back(reads.operandView(b, /*isA=*/false));
  for (auto [memref, map] : tma->outputMaps)
    wgmma.outputMaps.push_back({ops.view(kb, memref), map});
  wgmma.tileN = config.tileN;
  wgmma.sharedBytesLimit = getTarget(kb.func).getInfo().sharedBytesPerBlock;
  wgmma.stages = config.stages;
  wgmma.element = spec.element;
  wgmma.tf32x3 = takesTf32x3(gemm);
  if (wgmma.tf32x3)
    wgmma.tf32x3GroupK8s =
        tf32x3GroupK8s(*gemm.precision, gemm.k.tokens ? 0 : gemm.k.value);
  wgmma.roundsTf32 = roundsTf32(gemm);
  wgmma.roundsBInStages = config.roundsInStages;
  wgmma.epilogue = spec.epilogue;
  if (config.splitK > 1) {
    // The split-K workspace: the kernel's last buffer (buildVariant).
    wgmma.splitK = config.splitK;
    wgmma.splitKWorkspace = kb.buffer(ops.buffers.size());
    wgmma.splitKRows = splitKRows(gemm, config);
  }
  buildWgmmaGemm(kb, wgmma);
}

/// Each GEMM kernel op's epilogue: what it makes of the accumulators
/// C_j(m, n) of one output element. Its operands and extents are its
/// KernelGemm's; the math is the CPU lowering's.
struct EpilogueLowering {
  KernelBuilder &kb;
  const KernelOperands &ops;
  const KernelGemm &gemm;
  const KernelConfig &config;
  const TmaPlan *tma;
  bool noGradForward; // the kernel op is in the no-grad forward

  void gemmWith(GemmSpec::Epilogue epilogue) {
    buildGemm(kb, ops, gemm, config, tma, noGradForward, std::move(epilogue));
  }

  void build(GateUpOp op) {
    ValueRange outs = op.getInits();
    SmallVector<MatrixView> stored;
    for (Value out : outs)
      stored.push_back(ops.view(kb, out));
    std::optional<MatrixView> gateBias, upBias;
    if (op.getGateBias())
      gateBias = ops.view(kb, op.getGateBias());
    if (op.getUpBias())
      upBias = ops.view(kb, op.getUpBias());
    std::optional<APFloat> mg = op.getGateMultiplier();
    Activation activation = op.getActivation();
    const Primitives &primitives = primitivesFor(gemm.element);
    gemmWith([&](KernelBuilder &kb, Value m, Value n, ArrayRef<Value> acc) {
      Value zero = kb.i64(0);
      Value g =
          gateBias ? fadd(kb, acc[0], kb.load(*gateBias, zero, n)) : acc[0];
      Value u = upBias ? fadd(kb, acc[1], kb.load(*upBias, zero, n)) : acc[1];
      g = scale(kb, g, mg);
      Value a =
          fmul(kb, buildActivation(kb.b, kb.loc, activation, g, primitives), u);
      kb.store(stored[0], m, n, a);
      if (stored.size() == 3) {
        kb.store(stored[1], m, n, g);
        kb.store(stored[2], m, n, u);
      }
    });
  }

  /// out = multiplier (acc + bias): a projection's epilogue.
  void buildProjection(Value out, Value biasValue,
                       std::optional<APFloat> multiplier) {
    MatrixView y = ops.view(kb, out);
    std::optional<MatrixView> bias;
    if (biasValue)
      bias = ops.view(kb, biasValue);
    gemmWith([&](KernelBuilder &kb, Value m, Value n, ArrayRef<Value> acc) {
      Value sum =
          bias ? fadd(kb, acc[0], kb.load(*bias, kb.i64(0), n)) : acc[0];
      kb.store(y, m, n, scale(kb, sum, multiplier));
    });
  }

  void build(DownOp op) {
    buildProjection(op.getInits()[0], op.getDownBias(),
                    op.getDownMultiplier());
  }

  void build(GateOp op) {
    buildProjection(op.getInits()[0], op.getGateBias(),
                    op.getGateMultiplier());
  }

  void build(DownGradOp op) {
    ValueRange outs = op.getInits();
    MatrixView g = ops.view(kb, op.getG()), u = ops.view(kb, op.getU());
    MatrixView dg = ops.view(kb, outs[0]), du = ops.view(kb, outs[1]);
    std::optional<MatrixView> a; // A recomputed for K6 (save=gu)
    if (outs.size() == 3)
      a = ops.view(kb, outs[2]);
    Activation activation = op.getActivation();
    std::optional<APFloat> mg = op.getGateMultiplier(),
                           md = op.getDownMultiplier();
    const Primitives &primitives = primitivesFor(gemm.element);
    gemmWith([=, &primitives](KernelBuilder &kb, Value m, Value n,
                              ArrayRef<Value> acc) {
      Value da = scale(kb, acc[0], md);
      Value gv = kb.load(g, m, n), uv = kb.load(u, m, n);
      Value slope =
          buildActivationDerivative(kb.b, kb.loc, activation, gv, primitives);
      Value dgv = scale(kb, fmul(kb, fmul(kb, da, uv), slope), mg);
      Value ag = buildActivation(kb.b, kb.loc, activation, gv, primitives);
      kb.store(dg, m, n, dgv);
      kb.store(du, m, n, fmul(kb, da, ag));
      if (a)
        kb.store(*a, m, n, fmul(kb, ag, uv));
    });
  }

  void build(InputGradOp op) {
    MatrixView dx = ops.view(kb, op.getInits()[0]);
    gemmWith([=](KernelBuilder &kb, Value m, Value n, ArrayRef<Value> acc) {
      kb.store(dx, m, n, acc[0]);
    });
  }

  void build(GateUpWeightGradOp op) {
    ValueRange outs = op.getInits();
    int64_t hidden = staticSize(op.getDg(), 1);
    // Element (m = h, n = d) of [dWg; dWu], each stored as W(in = d,
    // out = h): the transposes, concatenated along m.
    MatrixView dwgT = ops.weight(kb, outs[0], op.getGateLayout()).transposed();
    MatrixView dwuT = ops.weight(kb, outs[1], op.getUpLayout()).transposed();
    MatrixView weights =
        MatrixView::concatenate(dwgT, dwuT, hidden, /*alongRows=*/true);
    bool accumulate = op.getAccumulate();
    gemmWith([=](KernelBuilder &kb, Value m, Value n, ArrayRef<Value> acc) {
      storeGradient(kb, weights, m, n, acc[0], accumulate);
    });
  }

  void build(DownWeightGradOp op) {
    // Stored as W(in = h, out = d): element (d, h) is the transpose.
    MatrixView dwdT =
        ops.weight(kb, op.getInits()[0], op.getDownLayout()).transposed();
    bool accumulate = op.getAccumulate();
    std::optional<APFloat> md = op.getDownMultiplier();
    gemmWith([=](KernelBuilder &kb, Value m, Value n, ArrayRef<Value> acc) {
      Value grad = scale(kb, acc[0], md);
      storeGradient(kb, dwdT, m, n, grad, accumulate);
    });
  }
};

/// bias_grad: a column sum over T, no GEMM.
void buildBiasGrad(BiasGradOp op, KernelBuilder &kb,
                   const KernelOperands &ops) {
  MatrixView grad = ops.view(kb, op.getGrad());
  MatrixView out = ops.view(kb, op.getInits()[0]);
  std::optional<APFloat> factor = op.getScale();
  bool accumulate = op.getAccumulate();
  buildColumnSum(
      kb, staticSize(op.getGrad(), 1),
      [grad](KernelBuilder &kb, Value t, Value n) {
        return kb.load(grad, t, n);
      },
      [=](KernelBuilder &kb, Value n, Value sum) {
        storeGradient(kb, out, kb.i64(0), n, scale(kb, sum, factor),
                      accumulate);
      });
}

/// The token-chunk loop of fmlp-plan-memory that `op` is in, checked: an
/// scf.for in the entry point's body from 0 to T by the entry's
/// fmlp.chunk_tokens. T must be dynamic: the runtime chunks the T of the
/// caller's tensors (a block compiled for a static T has no token rows to
/// chunk). A null loop when `op` is in none, in an entry point without
/// chunks.
FailureOr<scf::ForOp> chunkLoopOf(Operation *op) {
  auto loop = op->getParentOfType<scf::ForOp>();
  auto entry = op->getParentOfType<func::FuncOp>();
  auto chunk =
      entry ? entry->getAttrOfType<IntegerAttr>("fmlp.chunk_tokens") : nullptr;
  if (!loop) {
    // A static T of at most one chunk: canonicalization folds the loop
    // away, and leaves the chunk's views with dynamic rows over arguments
    // of static rows, which the manifest cannot describe.
    if (chunk && chunk.getInt() > 0) {
      op->emitOpError("is in a token-chunked entry point (fmlp.chunk_tokens "
                      "= ")
          << chunk.getInt()
          << ") but outside its chunk loop, which a static token count "
             "folds away: the GPU bundle chunks a dynamic T only (plan with "
             "chunk-tokens=0, or compile the block for a dynamic T)";
      return failure();
    }
    return scf::ForOp();
  }
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (loop->getParentOp() != entry || !chunk || chunk.getInt() <= 0 ||
      lower != 0 || step != chunk.getInt()) {
    op->emitOpError("is inside a loop that is not fmlp-plan-memory's "
                    "token-chunk loop (an scf.for in the entry point's body "
                    "from 0 to T by its fmlp.chunk_tokens)");
    return failure();
  }
  if (std::optional<int64_t> tokens =
          getConstantIntValue(loop.getUpperBound())) {
    op->emitOpError("is inside a token-chunk loop over a static token count "
                    "(T = ")
        << *tokens
        << "): the GPU bundle chunks a dynamic T only (plan with "
           "chunk-tokens=0, or compile the block for a dynamic T)";
    return failure();
  }
  return loop;
}

/// The chunk loop that follows `fill` in its block, whose chunks accumulate
/// into what `fill` zeroes; a null loop where there is none (then the
/// kernel ops after it, outside a chunk loop, are refused, or are not
/// chunked: the fill is launched all the same).
FailureOr<scf::ForOp> chunkLoopAfter(linalg::FillOp fill) {
  for (Operation *next = fill->getNextNode(); next; next = next->getNextNode())
    if (auto loop = dyn_cast<scf::ForOp>(next))
      // Checked as the loop of its first operation (the loop is not empty).
      return chunkLoopOf(&loop.getBody()->front());
  return scf::ForOp();
}

/// `name` with every character PTX does not take in an identifier as '_'.
std::string kernelName(StringRef entry, unsigned index, Operation *op) {
  std::string name =
      (entry + "_k" + Twine(index) + "_" + op->getName().stripDialect()).str();
  for (char &c : name)
    if (!llvm::isAlnum(c))
      c = '_';
  return name;
}

/// The launch of `kernel` for `op` at `b`'s insertion point (geometry as
/// the kernel says).
gpu::LaunchFuncOp createLaunch(OpBuilder &b, Location loc, ValueRange written,
                               LLVM::LLVMFuncOp kernel,
                               const KernelOperands &operands, Value tokens,
                               ArrayRef<TmaView> tensorMaps) {
  LaunchGeometry geometry = LaunchGeometry::readFrom(kernel);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  std::array<Value, 3> grid, block;
  for (unsigned d = 0; d < 3; ++d) {
    int64_t perBlock = geometry.tokensPerBlock[d];
    grid[d] = perBlock > 0 ? arith::CeilDivUIOp::create(b, loc, tokens,
                                                        constant(perBlock))
                                 .getResult()
                           : constant(geometry.fixed[d]);
    block[d] = constant(geometry.block[d]);
  }
  // Tensor maps first (the host encodes one per view), then the buffers.
  SmallVector<Value> args;
  SmallVector<int64_t> boxRows, boxCols, cols;
  for (const TmaView &map : tensorMaps) {
    args.push_back(map.view);
    boxRows.push_back(map.boxRows);
    boxCols.push_back(map.boxCols);
    cols.push_back(map.cols);
  }
  args.append(operands.buffers.begin(), operands.buffers.end());
  args.push_back(tokens);
  auto symbol =
      SymbolRefAttr::get(b.getStringAttr(kKernelModule),
                         {FlatSymbolRefAttr::get(kernel.getSymNameAttr())});
  Value sharedBytes = arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                                   geometry.dynamicSharedBytes);
  auto launch = gpu::LaunchFuncOp::create(
      b, loc, symbol, gpu::KernelDim3{grid[0], grid[1], grid[2]},
      gpu::KernelDim3{block[0], block[1], block[2]}, sharedBytes, args);
  // The geometry travels with the launch too: the kernel becomes a binary.
  geometry.attachTo(launch);
  // Which parameters the kernel writes (`written`: the op's inits).
  SmallVector<int64_t> writtenParams;
  for (Value buffer : written)
    writtenParams.push_back(tensorMaps.size() + operands.index.lookup(buffer));
  launch->setAttr("fmlp.written", b.getDenseI64ArrayAttr(writtenParams));
  launch->setAttr("fmlp.tensor_map_box_rows", b.getDenseI64ArrayAttr(boxRows));
  launch->setAttr("fmlp.tensor_map_box_cols", b.getDenseI64ArrayAttr(boxCols));
  launch->setAttr("fmlp.tensor_map_cols", b.getDenseI64ArrayAttr(cols));
  return launch;
}

/// One kernel of a kernel op, for the launches of T up to maxTokens (0:
/// any T past the variants before it).
struct KernelVariant {
  LLVM::LLVMFuncOp func;
  std::optional<TmaPlan> tma;
  int64_t maxTokens = 0;
  /// Its 16-byte loads ask 16-byte aligned arguments (as tensor maps do).
  bool vectorAccess = false;
  /// Split-K: the entry's workspace, its last parameter, and the kernel
  /// that zeroes its counters, launched just before it.
  Value splitKWorkspace;
  LLVM::LLVMFuncOp zeroCounters;
  /// Where it reads the weights as stored, rounding them in its stages
  /// (KernelConfig::roundsInStages): each rounded copy the op names ->
  /// its weight.
  DenseMap<Value, Value> storedWeights;

  ArrayRef<TmaView> maps() const {
    return tma ? ArrayRef<TmaView>(tma->maps) : ArrayRef<TmaView>();
  }
};

/// Replaces `op` with the launches of `variants` (ascending by maxTokens,
/// the last unbounded): one launch, or a chain of `scf.if T <= max` each
/// choosing a variant, each launch marked with its range of T
/// (fmlp.min_tokens, fmlp.max_tokens: the bundle's manifest says the same,
/// and the runtime picks by it).
void replaceWithLaunches(Operation *op, ArrayRef<KernelVariant> variants,
                         const KernelOperands &operands, Value tokenOperand) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value tokens = memref::DimOp::create(b, loc, tokenOperand, 0);
  int64_t minTokens = 0;
  for (const KernelVariant &variant : variants) {
    bool last = &variant == &variants.back();
    scf::IfOp branch;
    if (!last) {
      Value fits = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ule, tokens,
          arith::ConstantIndexOp::create(b, loc, variant.maxTokens));
      branch = scf::IfOp::create(b, loc, fits, /*withElseRegion=*/true);
      b.setInsertionPoint(branch.thenBlock()->getTerminator());
    }
    auto serve = [&](gpu::LaunchFuncOp launch) {
      // dX's GEMM (and its counters' fill) on the side lane: nothing of the
      // weight gradients' depends on it, nor it on them, so it fills the
      // multiprocessors their tiles leave idle (the runtime orders what
      // conflicts: runtime/Lanes.h).
      if (isa<InputGradOp>(op))
        launch->setAttr("fmlp.lane", b.getI64IntegerAttr(1));
      if (minTokens > 0)
        launch->setAttr("fmlp.min_tokens", b.getI64IntegerAttr(minTokens));
      if (!last)
        launch->setAttr("fmlp.max_tokens",
                        b.getI64IntegerAttr(variant.maxTokens));
    };
    ValueRange inits = cast<DestinationStyleOpInterface>(op).getDpsInits();
    KernelOperands launched = operands.replacing(variant.storedWeights);
    SmallVector<TmaView> maps(variant.maps());
    for (TmaView &map : maps)
      if (Value weight = variant.storedWeights.lookup(map.view))
        map.view = weight;
    if (Value workspace = variant.splitKWorkspace) {
      // The counters zero before every launch, whatever the caller's
      // workspace held (each launch leaves them zero too: WgmmaGemm.cpp).
      // The fill also takes the op's outputs, which it does not touch, and
      // says it writes them: the runtime then runs it exactly when it runs
      // the GEMM (a launch is skipped when every argument it writes is an
      // unwanted output; one that wrote only the workspace would always
      // run, also for a dX nobody asked for).
      KernelOperands zeroed;
      zeroed.index[workspace] = 0;
      zeroed.buffers.push_back(workspace);
      for (Value init : inits)
        zeroed = zeroed.with(init);
      serve(createLaunch(b, loc, inits, variant.zeroCounters, zeroed, tokens,
                         {}));
      // Its "writes" are the op's outputs alone: the workspace is scratch,
      // and a launch that writes a non-output is never skipped (Runtime.h).
      launched = launched.with(workspace);
    }
    gpu::LaunchFuncOp launch =
        createLaunch(b, loc, inits, variant.func, launched, tokens, maps);
    serve(launch);
    if (variant.vectorAccess)
      launch->setAttr("fmlp.vector_access", b.getUnitAttr());
    if (!last) {
      minTokens = variant.maxTokens + 1;
      b.setInsertionPoint(branch.elseBlock()->getTerminator());
    }
  }
  op->erase();
}

/// The fill kernel of `fill` (a float constant into a dense, statically
/// shaped buffer), launched where `fill` was, with `tokens` as its T (every
/// kernel takes T last; the fill does not read it).
LogicalResult replaceFill(linalg::FillOp fill, gpu::GPUModuleOp gpuModule,
                          StringRef name, Value tokens) {
  auto constant = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
  auto value = constant ? dyn_cast<FloatAttr>(constant.getValue()) : nullptr;
  auto type = dyn_cast<MemRefType>(fill.getOutputs()[0].getType());
  if (!value || !type || !type.hasStaticShape() ||
      !type.getLayout().isIdentity())
    return fill.emitOpError("fills ")
           << fill.getOutputs()[0].getType()
           << ": the GPU path fills a dense, statically shaped memref with a "
              "float constant";
  KernelOperands operands(fill);
  KernelBuilder kb(gpuModule, name, 0, operands.buffers.size(), fill.getLoc());
  buildFill(kb, type.getElementType(), type.getNumElements(),
            value.getValueAsDouble());
  OpBuilder b(fill);
  createLaunch(b, fill.getLoc(), fill.getDpsInits(), kb.func, operands, tokens,
               {});
  fill.erase();
  return success();
}

/// Why `config` cannot build `gemm`'s kernel on `target` (empty when it
/// can): a kernel_config written by hand, or edited, is checked as
/// fmlp-select-tiles' choices are (TileSelection.h).
std::string whyConfigDoesNotFit(const KernelConfig &config,
                                const KernelGemm &gemm,
                                const Target &target) {
  int64_t accumulators = gemm.b.size();
  int64_t limit = target.sharedBytesPerBlock;
  std::string why;
  llvm::raw_string_ostream os(why);
  if (config.roundsInStages && !readsRoundedWeightCopies(gemm))
    return "rounds_in_stages on a kernel whose B is not every part a "
           "rounded tf32 copy of a weight (fmlp-round-tf32-weights) with A "
           "K-major";
  switch (config.strategy) {
  case KernelStrategy::wgmma: {
    if (config.tileN % kWgmmaOutputBox != 0) {
      os << "a wgmma tile " << config.tileN << " columns wide: the "
         << "epilogue stores boxes of " << kWgmmaOutputBox << " columns";
      break;
    }
    if (config.tileN * accumulators > kWgmmaMaxColumns) {
      os << "a wgmma tile of " << accumulators << " accumulators x "
         << config.tileN << " columns: at most " << kWgmmaMaxColumns
         << " columns in all";
      break;
    }
    if (takesTf32x3(gemm) &&
        config.tileN * accumulators > kWgmmaTf32x3Columns) {
      os << "a wgmma tile of " << accumulators << " accumulators x "
         << config.tileN << " columns for tf32x3: at most "
         << kWgmmaTf32x3Columns << " columns in all (its step sums take "
         << "registers)";
      break;
    }
    if (config.tileK != wgmmaTileK(gemm.element)) {
      os << "a wgmma k-tile of " << config.tileK << " elements: a stage's "
         << "rows hold " << wgmmaTileK(gemm.element) << " of "
         << gemm.element;
      break;
    }
    // An MN-major operand the strategy cannot read is refused by planTma
    // (buildVariant); here it counts as K-major (no landing slot).
    auto kMajor = [&](const GemmOperand &operand) {
      return operand.parts[0].kMajor || !wgmmaReadsMnMajor(gemm.element);
    };
    WgmmaGemmSpec spec;
    spec.element = gemm.element;
    spec.a.kMajor = kMajor(gemm.a);
    for (const GemmOperand &b : gemm.b)
      spec.b.emplace_back().kMajor = kMajor(b);
    spec.tileN = config.tileN;
    spec.stages = config.stages;
    spec.tf32x3 = takesTf32x3(gemm);
    spec.roundsTf32 = roundsTf32(gemm);
    if (int64_t bytes = wgmmaSharedBytes(spec); bytes > limit)
      os << "wgmma stages = " << config.stages << " take " << bytes
         << " B of shared memory, past " << target.chip << "'s " << limit;
    break;
  }
  case KernelStrategy::mma_sync: {
    int64_t elementBytes = gemm.element.getIntOrFloatBitWidth() / 8;
    if (config.stagesByTma && !target.tma) {
      os << "stages_by_tma on " << target.chip << ", which has no TMA";
      break;
    }
    if (config.stagesByTma &&
        (elementBytes != 2 || config.tileK * elementBytes != kTmaRowBytes)) {
      os << "stages_by_tma on k-tiles of " << config.tileK << " "
         << gemm.element << ": TMA stages 16-bit k-tiles of " << kTmaRowBytes
         << "-byte rows";
      break;
    }
    int64_t bytes = mmaSyncSharedBytes(config.tileK, config.stages,
                                       elementBytes,
                                       config.tileN * accumulators,
                                       config.stagesByTma);
    if (bytes > limit)
      os << "mma_sync stages = " << config.stages << " of k-tiles of "
         << config.tileK << " take " << bytes << " B of shared memory, past "
         << target.chip << "'s " << limit;
    break;
  }
  case KernelStrategy::small_tokens: {
    int64_t threads = smallTokensThreads(config.tileN);
    if (gemm.n.tokens || gemm.n.value % config.tileN != 0)
      os << "a small_tokens block of " << config.tileN << " columns: N must "
         << "be a static multiple of it";
    else if (int64_t(config.maxRegisters) * threads >
             target.registersPerMultiprocessor)
      os << "a small_tokens block of " << threads << " threads at "
         << config.maxRegisters << " registers each: past " << target.chip
         << "'s " << target.registersPerMultiprocessor << " a multiprocessor";
    break;
  }
  case KernelStrategy::simt:
    if (config.tileM != kSimtTile || config.tileN != kSimtTile ||
        config.tileK != kSimtTileK)
      os << "simt tiles are " << kSimtTile << " x " << kSimtTile << " x "
         << kSimtTileK << ", not " << config.tileM << " x " << config.tileN
         << " x " << config.tileK;
    break;
  default:
    break;
  }
  return why;
}

/// The configs of GEMM kernel op `op`: the variants for few tokens where
/// tile selection gave them, then the kernel for every larger T.
FailureOr<SmallVector<KernelConfig>> configsOf(Operation *op) {
  SmallVector<KernelConfig> configs;
  if (Attribute attr = op->getAttr(KernelConfigAttr::kVariantsName)) {
    auto array = dyn_cast<ArrayAttr>(attr);
    if (!array)
      return op->emitOpError("has token_variants that are not an array");
    for (Attribute element : array) {
      auto config = dyn_cast<KernelConfigAttr>(element);
      int64_t previous = configs.empty() ? 0 : configs.back().maxTokens;
      if (!config || config.getMaxTokens() <= previous)
        return op->emitOpError("has token_variants that are not kernel "
                               "configs ascending by max_tokens");
      configs.push_back(KernelConfig::fromAttr(config));
    }
  }
  configs.push_back(KernelConfig::fromAttr(
      op->getAttrOfType<KernelConfigAttr>(KernelConfigAttr::kName)));
  if (configs.back().maxTokens != 0)
    return op->emitOpError("has a kernel_config with max_tokens: it serves "
                           "every T past its token_variants");
  return configs;
}

struct ConvertFMLPToNVVMPass
    : mlir::fmlp::impl::ConvertFMLPToNVVMPassBase<ConvertFMLPToNVVMPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> kernels;
    // Each fill (in an entry point) and the T of the chunk loop after it
    // (0 where the one chunk was folded away: the fill does not read T).
    SmallVector<std::pair<linalg::FillOp, Value>> fills;
    WalkResult walk = module.walk([&](Operation *op) {
      auto fill = dyn_cast<linalg::FillOp>(op);
      auto entry = fill ? fill->getParentOfType<func::FuncOp>() : nullptr;
      if (entry && entry->hasAttr("fmlp.entry") &&
          fill.hasPureBufferSemantics()) {
        FailureOr<scf::ForOp> loop = chunkLoopAfter(fill);
        if (failed(loop))
          return WalkResult::interrupt();
        fills.push_back({fill, *loop ? loop->getUpperBound() : Value()});
        return WalkResult::advance();
      }
      if (isa<GatedMlpOp, GatedMlpGradOp>(op)) {
        op->emitOpError("is not part of a kernel plan: run fmlp-expand-"
                        "training and fmlp-fuse first (fmlp-plan-pipeline)");
        return WalkResult::interrupt();
      }
      if (!isKernelOp(op))
        return WalkResult::advance();
      if (op->getNumResults() != 0) {
        op->emitOpError("works on tensors: run fmlp-plan-memory first");
        return WalkResult::interrupt();
      }
      // A weight's copy serves every chunk: fmlp-transpose-weights and
      // fmlp-round-tf32-weights put it before the loop, which the other
      // kernels must be in.
      if (!isWeightCopyOp(op) && failed(chunkLoopOf(op)))
        return WalkResult::interrupt();
      for (Value operand : op->getOperands()) {
        Type element = getElementTypeOrSelf(operand.getType());
        if (!element.isF32() && !element.isBF16() && !element.isF16()) {
          op->emitOpError("has elements of type ")
              << element << ": GPU kernels take f32, bf16 or f16";
          return WalkResult::interrupt();
        }
      }
      if (isWeightCopyOp(op) &&
          !cast<MemRefType>(op->getOperand(0).getType()).hasStaticShape()) {
        op->emitOpError("copies ")
            << op->getOperand(0).getType()
            << ": the GPU kernel copies a statically shaped memref";
        return WalkResult::interrupt();
      }
      if (isGemmKernelOp(op) &&
          !op->getAttrOfType<KernelConfigAttr>(KernelConfigAttr::kName)) {
        op->emitOpError("has no #fmlp.kernel_config: run fmlp-select-tiles "
                        "first");
        return WalkResult::interrupt();
      }
      kernels.push_back(op);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    if (kernels.empty() && fills.empty())
      return;
    // Each GEMM's configs, and each entry's split-K workspace: one
    // argument, sized for its largest split-K kernel (they run one after
    // another on the caller's stream, so they share it).
    DenseMap<Operation *, SmallVector<KernelConfig>> configsByOp;
    DenseMap<Operation *, std::pair<int64_t, Type>> splitKBytes;
    TargetAttr targetAttr = getTarget(module);
    if (!targetAttr) {
      module.emitError(
          "the module has no fmlp.target: run fmlp-attach-target first");
      return signalPassFailure();
    }
    const Target &info = targetAttr.getInfo();
    // Each rounded tf32 copy of a weight, and each transposed one -> the
    // weight (read before the copies' ops are lowered): variants that round
    // or transpose in their stages read the weight.
    DenseMap<Value, Value> storedWeightOf, transposedWeightOf;
    module.walk([&](RoundToTf32Op round) {
      storedWeightOf[round.getInits()[0]] = round.getInput();
    });
    module.walk([&](TransposeOp transpose) {
      transposedWeightOf[transpose.getInits()[0]] = transpose.getInput();
    });
    auto transposedSource = [&](Value copy) {
      return transposedWeightOf.lookup(copy);
    };
    for (Operation *op : kernels) {
      if (!isGemmKernelOp(op))
        continue;
      FailureOr<SmallVector<KernelConfig>> configs = configsOf(op);
      if (failed(configs))
        return signalPassFailure();
      KernelGemm gemm = describeGemm(op);
      for (const KernelConfig &config : *configs) {
        // A kernel that transposes the weights in its stages is the op's
        // reading them as stored (MN-major).
        std::string why;
        if (config.transposesInStages && !readsTransposedWeightCopies(gemm)) {
          why = "transposes_in_stages on a kernel whose B is not every part "
                "a transposed copy of a weight (fmlp-transpose-weights) "
                "with A K-major";
        } else if (config.transposesInStages) {
          ReadingStoredWeights stored(op, transposedSource);
          why = whyConfigDoesNotFit(config, describeGemm(op), info);
        } else {
          why = whyConfigDoesNotFit(config, gemm, info);
        }
        if (!why.empty()) {
          op->emitOpError("has a kernel config it cannot be built with: ")
              << why;
          return signalPassFailure();
        }
      }
      for (const KernelConfig &config : *configs) {
        if (config.splitK == 1)
          continue;
        if (std::string whyNot = notSplittable(gemm, config); !whyNot.empty()) {
          op->emitOpError(whyNot);
          return signalPassFailure();
        }
        auto &[bytes, element] =
            splitKBytes[op->getParentOfType<func::FuncOp>()];
        bytes = std::max(bytes, splitKLayout(gemm, config).bytes);
        element = gemm.element;
      }
      configsByOp[op] = std::move(*configs);
    }
    DenseMap<Operation *, Value> splitKWorkspaces;
    for (auto [entryOp, size] : splitKBytes) {
      auto entry = cast<func::FuncOp>(entryOp);
      auto [bytes, element] = size;
      // In the entry's element type (callers allocate every argument in
      // it): a static size, never T's, as no split-K kernel serves more
      // than its max_tokens. fmlp.workspace makes it the manifest's
      // workspace role (scratch of one call).
      int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
      auto type = MemRefType::get({llvm::divideCeilSigned(bytes, elementBytes)},
                                  element);
      OpBuilder at(&getContext());
      auto attrs = at.getDictionaryAttr(
          {at.getNamedAttr("fmlp.name", at.getStringAttr("split_k_workspace")),
           at.getNamedAttr("fmlp.workspace", at.getUnitAttr())});
      unsigned index = entry.getNumArguments();
      if (failed(entry.insertArgument(index, type, attrs, entry.getLoc())))
        return signalPassFailure();
      splitKWorkspaces[entry] = entry.getArgument(index);
    }

    MLIRContext *context = &getContext();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(context));
    OpBuilder b(context);
    b.setInsertionPointToEnd(module.getBody());
    Target emitted = info;
    emitted.ptxVersion = ptxVersionFor(info);
    auto target = NVVM::NVVMTargetAttr::get(context, /*optLevel=*/3,
                                            "nvptx64-nvidia-cuda", info.chip,
                                            emitted.ptxFeature());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModule,
                                              b.getArrayAttr({target}));

    DenseMap<Operation *, unsigned> countPerEntry;
    for (auto [fill, tokens] : fills) {
      auto entry = fill->getParentOfType<func::FuncOp>();
      if (!tokens) {
        OpBuilder at(fill);
        tokens = arith::ConstantIndexOp::create(at, fill.getLoc(), 0);
      }
      std::string name =
          kernelName(entry.getSymName(), countPerEntry[entry]++, fill);
      if (failed(replaceFill(fill, gpuModule, name, tokens)))
        return signalPassFailure();
    }
    for (Operation *op : kernels) {
      auto entry = op->getParentOfType<func::FuncOp>();
      unsigned index = countPerEntry[entry]++;
      KernelOperands operands(op);
      std::string name = kernelName(entry.getSymName(), index, op);
      if (auto biasGrad = dyn_cast<BiasGradOp>(op)) {
        KernelBuilder kb(gpuModule, name, 0, operands.buffers.size(),
                         op->getLoc());
        buildBiasGrad(biasGrad, kb, operands);
        KernelVariant only;
        only.func = kb.func;
        replaceWithLaunches(op, only, operands, biasGrad.getGrad());
        continue;
      }
      if (isWeightCopyOp(op)) {
        OpBuilder b(op);
        Location loc = op->getLoc();
        // A copy is made only for the T some kernel reads it at.
        FailureOr<std::optional<int64_t>> fewest =
            guardByReaders(b, op, configsByOp);
        if (failed(fewest))
          return signalPassFailure();
        if (!*fewest) {
          op->erase();
          continue;
        }
        KernelBuilder kb(gpuModule, name, 0, operands.buffers.size(), loc);
        auto transpose = dyn_cast<TransposeOp>(op);
        WeightCopy copy;
        copy.transpose = bool(transpose);
        copy.roundToTf32 = !transpose || transpose.getRoundToTf32();
        Value input = op->getOperand(0);
        auto inits = cast<DestinationStyleOpInterface>(op).getDpsInits();
        buildWeightCopy(kb, operands.view(kb, input),
                        operands.view(kb, inits[0]), staticSize(input, 0),
                        staticSize(input, 1), copy);
        // T is the launch's last parameter, which the copy does not read:
        // 0, as for the fills (the weight's rows are not T, and the bundle
        // would take a dim of a static memref for the block's static T).
        Value unread = arith::ConstantIndexOp::create(b, loc, 0);
        gpu::LaunchFuncOp launch =
            createLaunch(b, loc, inits, kb.func, operands, unread, {});
        if (**fewest > 1)
          launch->setAttr("fmlp.min_tokens", b.getI64IntegerAttr(**fewest));
        op->erase();
        continue;
      }
      KernelGemm gemm = describeGemm(op);
      ArrayRef<KernelConfig> configs = configsByOp[op];
      SmallVector<KernelVariant, 1> variants;
      int64_t minTokens = 0;
      // Each kernel is built once. The time model may take one config for
      // two ranges of T apart (the 16-bit variants are chosen per count of
      // row tiles, codegen/TileSelection.h): the kernel_config's between
      // two variants, or a variant's on both sides of another; the later
      // range launches the kernel built for the first. Such a kernel is
      // named by what it is (the kernel_config's name; a variant's width),
      // not by a range it does not bound. Split-K kernels are not shared:
      // their workspace layout is sized by their range's T.
      const KernelConfig &base = configs.back();
      assert(base.splitK == 1 && base.maxTokens == 0 &&
             "the kernel_config serves every T in one slice of K");
      SmallVector<std::pair<KernelConfig, KernelVariant>, 4> builtKernels;
      for (const KernelConfig &config : configs) {
        auto earlier = llvm::find_if(builtKernels, [&](const auto &built) {
          return config.splitK == 1 && built.first.sameKernel(config);
        });
        if (earlier != builtKernels.end()) {
          variants.push_back(earlier->second);
          variants.back().maxTokens = config.maxTokens;
          minTokens = config.maxTokens + 1;
          continue;
        }
        KernelConfig built = config;
        std::string variantName = name;
        if (config.sameKernel(base)) {
          built.maxTokens = 0; // named and built as the kernel_config's
        } else if (config.splitK == 1 &&
                   llvm::count_if(configs, [&](const KernelConfig &other) {
                     return other.sameKernel(config);
                   }) > 1) {
          built.maxTokens = 0;
          variantName += "_n" + std::to_string(config.tileN);
        }
        Value splitK = config.splitK > 1 ? splitKWorkspaces[entry] : Value();
        FailureOr<KernelVariant> variant = failure();
        if (config.transposesInStages) {
          // Built as the op reading the weights as stored (MN-major), at
          // the copies' places among its parameters.
          ReadingStoredWeights stored(op, transposedSource);
          KernelOperands storedOperands(op);
          if (storedOperands.buffers !=
              operands.replacing(stored.weightOfCopy()).buffers) {
            op->emitOpError("reads a weight beside its transposed copy: no "
                            "kernel of it can transpose in its stages");
            return signalPassFailure();
          }
          variant = buildVariant(op, describeGemm(op), built, minTokens,
                                 storedOperands, info, gpuModule, variantName,
                                 splitK);
          if (succeeded(variant))
            variant->storedWeights = stored.weightOfCopy();
        } else {
          variant = buildVariant(op, gemm, built, minTokens, operands, info,
                                 gpuModule, variantName, splitK);
          if (succeeded(variant) && config.roundsInStages)
            for (Value buffer : operands.buffers)
              if (Value weight = storedWeightOf.lookup(buffer))
                variant->storedWeights[buffer] = weight;
        }
        if (failed(variant))
          return signalPassFailure();
        variant->maxTokens = config.maxTokens;
        builtKernels.push_back({config, *variant});
        variants.push_back(std::move(*variant));
        minTokens = config.maxTokens + 1;
      }
      replaceWithLaunches(op, variants, operands, gemm.tokenOperand);
    }
    if (info.programmaticLaunch() && (programmaticLaunch || programmaticNoGrad))
      launchProgrammatically(module);
  }

  /// Programmatic dependent launch for the entries the rule above names
  /// (every entry with --fmlp-programmatic-launch, else the no-grad
  /// forward): each kernel they launch lets the next one on the stream
  /// launch and waits for the ones before it first thing, ahead of any
  /// memory access, and each of their launches says so
  /// (fmlp.programmatic_launch, the manifest's programmatic_launch). The
  /// next kernel's blocks then start as this one's retire, instead of
  /// after its last one. (A kernel launched the usual way passes its wait
  /// at once: one shared with another entry stays correct there.)
  void launchProgrammatically(ModuleOp module) {
    SymbolTableCollection symbols;
    DenseSet<Operation *> waiting;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto entry = launch->getParentOfType<func::FuncOp>();
      if (!programmaticLaunch &&
          getEntryKind(entry) != EntryKind::forward_nograd)
        return;
      launch->setAttr("fmlp.programmatic_launch",
                      UnitAttr::get(module.getContext()));
      auto kernel = symbols.lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
          launch, launch.getKernel());
      assert(kernel && "every launch's kernel is in the kernel module");
      if (!waiting.insert(kernel).second)
        return;
      OpBuilder at = OpBuilder::atBlockBegin(&kernel.getBody().front());
      KernelBuilder::emitWaitForPreviousKernels(at, kernel.getLoc());
    });
  }

  /// The fewest T the launch of a weight copy (`copyOp`: round_to_tf32 or
  /// transpose) serves, `b` placed where it goes: F, the fewest T any
  /// kernel reads the copy at, under `scf.if T >= F` where the readers'
  /// variants of fewer T read the weight as stored
  /// (KernelConfig::readsStoredWeights); 1 (no guard) where some kernel
  /// reads it at every T or a static T is at least F; nullopt (no launch)
  /// where none reads it or a static T is below F.
  FailureOr<std::optional<int64_t>> guardByReaders(
      OpBuilder &b, Operation *copyOp,
      const DenseMap<Operation *, SmallVector<KernelConfig>> &configsByOp) {
    Value copy = cast<DestinationStyleOpInterface>(copyOp).getDpsInits()[0];
    auto entry = copyOp->getParentOfType<func::FuncOp>();
    std::optional<int64_t> fewest;
    Value tokenOperand;
    for (Operation *reader : copy.getUsers()) {
      if (reader == copyOp)
        continue;
      auto configs = configsByOp.find(reader);
      if (configs == configsByOp.end()) {
        fewest = 1; // not a GEMM with variants: it reads the copy always
        continue;
      }
      tokenOperand = describeGemm(reader).tokenOperand;
      // A reader in the token-chunk loop is launched at T <= a chunk's.
      FailureOr<scf::ForOp> chunkLoop = chunkLoopOf(reader);
      if (failed(chunkLoop))
        return failure();
      int64_t most = *chunkLoop ? *getConstantIntValue(chunkLoop->getStep())
                                : std::numeric_limits<int64_t>::max();
      int64_t first = 1;
      for (const KernelConfig &config : configs->second) {
        if (!config.readsStoredWeights()) {
          if (first <= most)
            fewest = std::min(fewest.value_or(first), first);
          break;
        }
        first = config.maxTokens + 1;
      }
    }
    if (!fewest || *fewest == 1)
      return fewest;
    // T: the product of the leading dimensions (all but the last) of the
    // entry's first argument with a dynamic one (the manifest's -1 rows,
    // which the runtime flattens so), or a reader's static T.
    Location loc = copyOp->getLoc();
    Value tokens;
    for (BlockArgument argument : entry.getArguments()) {
      auto type = dyn_cast<MemRefType>(argument.getType());
      if (!type || type.getRank() == 0)
        continue;
      int64_t leading = std::max<int64_t>(type.getRank() - 1, 1);
      if (llvm::none_of(type.getShape().take_front(leading),
                        ShapedType::isDynamic))
        continue;
      for (int64_t d = 0; d < leading; ++d) {
        Value extent = memref::DimOp::create(b, loc, argument, d);
        tokens = tokens
                     ? arith::MulIOp::create(b, loc, tokens, extent).getResult()
                     : extent;
      }
      break;
    }
    if (!tokens) {
      auto type = cast<MemRefType>(tokenOperand.getType());
      if (type.isDynamicDim(0))
        return copyOp->emitOpError("has a reader whose T is dynamic but no "
                                   "argument of T rows in its entry point");
      return type.getDimSize(0) < *fewest ? std::nullopt
                                          : std::optional<int64_t>(1);
    }
    Value needed =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tokens,
                              arith::ConstantIndexOp::create(b, loc, *fewest));
    auto branch = scf::IfOp::create(b, loc, needed, /*withElseRegion=*/false);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    return fewest;
  }

  /// highest's tf32x3 is within fp32's bound only from
  /// kHighestTf32x3MinTerms terms on: K itself, or the fewest T a config
  /// (`aStrategy`: "a wgmma", "an mma_sync") serves (from `minTokens`)
  /// where K is T.
  static LogicalResult checkHighestTerms(Operation *op, const KernelGemm &gemm,
                                         int64_t minTokens,
                                         StringRef aStrategy) {
    int64_t fewestTerms = gemm.k.tokens ? minTokens : gemm.k.value;
    if (gemm.precision != Precision::highest ||
        fewestTerms >= kHighestTf32x3MinTerms)
      return success();
    return op->emitOpError("has ")
           << aStrategy << " config for precision highest on contractions of "
           << (gemm.k.tokens ? "T terms from T = " : "") << fewestTerms
           << (gemm.k.tokens ? "" : " terms")
           << "; tf32x3 is within IEEE fp32's bound from "
           << kHighestTf32x3MinTerms << " terms on (fewer take a SIMT "
           << (gemm.k.tokens ? "variant" : "kernel") << ")";
  }

  /// The kernel of `op` as `config` says (serving T from `minTokens`),
  /// named `name` plus the variant's range; fails with a diagnostic at `op`
  /// when the config does not suit the chip or the operands.
  FailureOr<KernelVariant> buildVariant(Operation *op, const KernelGemm &gemm,
                                        const KernelConfig &config,
                                        int64_t minTokens,
                                        const KernelOperands &operands,
                                        const Target &info,
                                        gpu::GPUModuleOp gpuModule,
                                        StringRef name,
                                        Value splitKWorkspace) {
    KernelVariant variant;
    variant.maxTokens = config.maxTokens;
    std::string kernelName = name.str();
    switch (config.strategy) {
    case KernelStrategy::wgmma: {
      if (!info.has(kWgmma))
        return op->emitOpError("is configured for WGMMA, which ")
               << StringRef(info.chip) << " does not have";
      // fp32 operands: one product of their tf32 values, which the tensor
      // core reads from the bits TMA stored, or tf32x3's three of the
      // parts its producer splits them into (highest's too).
      if (gemm.element.isF32() &&
          !(gemm.precision &&
            isTf32Precision(getProductFormat(*gemm.precision, true))))
        return op->emitOpError("has a wgmma config on fp32 operands ")
               << "contracted as "
               << (gemm.precision ? stringifyPrecision(*gemm.precision)
                                  : StringRef("ieee"))
               << "; wgmma takes fp32 operands as tf32, tf32x3 or highest";
      if (failed(checkHighestTerms(op, gemm, minTokens, "a wgmma")))
        return failure();
      std::string whyNot;
      FailureOr<TmaPlan> planned = planTma(op, gemm, config.tileN, whyNot);
      if (failed(planned))
        return op->emitOpError("is configured for WGMMA, but ") << whyNot;
      variant.tma = std::move(*planned);
      if (config.maxTokens)
        kernelName += "_upto" + std::to_string(config.maxTokens);
      if (config.roundsInStages)
        kernelName += "_round_in_stages";
      if (config.transposesInStages)
        kernelName += "_transpose_in_stages";
      if (config.splitK > 1) {
        kernelName += "_splitk" + std::to_string(config.splitK);
        variant.splitKWorkspace = splitKWorkspace;
        // Its buffers: the workspace, then the op's outputs (untouched;
        // see replaceWithLaunches).
        KernelBuilder zero(
            gpuModule, kernelName + "_zero_counters", 0,
            1 + cast<DestinationStyleOpInterface>(op).getNumDpsInits(),
            op->getLoc());
        buildFill(zero, zero.b.getF32Type(),
                  splitKLayout(gemm, config).counters, 0.0);
        variant.zeroCounters = zero.func;
      }
      break;
    }
    case KernelStrategy::small_tokens: {
      std::string whyNot = notSmallTokensReady(gemm);
      if (!whyNot.empty() || !info.has(kMmaSync))
        return op->emitOpError("has a small_tokens config it cannot take: ")
               << (whyNot.empty() ? "the chip has no mma.sync" : whyNot);
      variant.vectorAccess = true;
      kernelName += "_small_tokens";
      if (config.maxTokens != kSmallTokens)
        kernelName += "_upto" + std::to_string(config.maxTokens);
      break;
    }
    case KernelStrategy::mma_sync: {
      std::string whyNot = notMmaSyncReady(gemm);
      if (!whyNot.empty() || !info.has(kMmaSync))
        return op->emitOpError("has an mma_sync config it cannot take: ")
               << (whyNot.empty() ? "the chip has no mma.sync" : whyNot);
      int64_t columns = config.tileN * static_cast<int64_t>(gemm.b.size());
      if (!mmaSyncTakesColumns(columns, gemm.b.size()))
        return op->emitOpError("has an mma_sync tile of ")
               << config.tileN << " columns per accumulator; "
               << (gemm.b.size() == 1
                       ? "its one accumulator takes " +
                             std::to_string(kMmaSyncTileColumns) + ", " +
                             std::to_string(kMmaSyncGridTileColumns) + " or " +
                             std::to_string(kMmaSyncNarrowTileColumns)
                       : "its two accumulators take " +
                             std::to_string(kMmaSyncTileColumns / 2) + " or " +
                             std::to_string(kMmaSyncNarrowTileColumns / 2));
      // tf32x3 keeps its step sums beside 64 accumulators a thread: 8
      // warps of 32 columns (MmaSyncGemm.cpp's multiplyTf32 halves).
      if (takesTf32x3(gemm) && columns != kMmaSyncNarrowTileColumns)
        return op->emitOpError("has a tf32x3 mma_sync tile of ")
               << columns << " columns; tf32x3 takes "
               << kMmaSyncNarrowTileColumns;
      int64_t elementBytes = gemm.element.getIntOrFloatBitWidth() / 8;
      if (gemm.element.isF32() &&
          !(gemm.precision &&
            isTf32Precision(getProductFormat(*gemm.precision, true))))
        return op->emitOpError("has an mma_sync config on fp32 operands ")
               << "contracted as "
               << (gemm.precision ? stringifyPrecision(*gemm.precision)
                                  : StringRef("ieee"))
               << "; mma_sync takes fp32 operands as tf32, tf32x3 or highest";
      if (failed(checkHighestTerms(op, gemm, minTokens, "an mma_sync")))
        return failure();
      if (!llvm::is_contained(kMmaSyncTileKBytes,
                              config.tileK * elementBytes))
        return op->emitOpError("has an mma_sync k-tile of ")
               << config.tileK << " elements of " << elementBytes * 8
               << " bits; its rows take " << kMmaSyncTileKBytes[0] << " or "
               << kMmaSyncTileKBytes[1] << " bytes";
      int64_t shared = mmaSyncSharedBytes(config.tileK, config.stages,
                                          elementBytes, columns,
                                          config.stagesByTma);
      if (shared > info.sharedBytesPerBlock)
        return op->emitOpError("has an mma_sync config of ")
               << config.stages << " stages of k-tiles of " << config.tileK
               << ", " << shared << " shared bytes, over "
               << StringRef(info.chip) << "'s " << info.sharedBytesPerBlock;
      variant.vectorAccess = true;
      kernelName += "_mma_sync";
      if (config.stagesByTma) {
        std::string whyNot;
        FailureOr<TmaPlan> planned = planTma(
            op, gemm, config.tileN, whyNot,
            mmaSyncStagesEpilogue() ? OutputMaps::planned : OutputMaps::none);
        if (failed(planned))
          return op->emitOpError("has an mma_sync config staged by TMA, but ")
                 << whyNot;
        variant.tma = std::move(*planned);
      }
      if (config.maxTokens)
        kernelName += "_upto" + std::to_string(config.maxTokens);
      break;
    }
    case KernelStrategy::simt:
      if (config.maxTokens)
        kernelName += "_upto" + std::to_string(config.maxTokens);
      break;
    }
    ArrayRef<TmaView> maps = variant.maps();
    KernelBuilder kb(gpuModule, kernelName, maps.size(),
                     operands.buffers.size() + (splitKWorkspace ? 1 : 0),
                     op->getLoc());
    KernelOperands viewed = operands;
    viewed.alignedArguments = variant.vectorAccess || variant.tma.has_value();
    bool noGradForward =
        getEntryKind(op->getParentOfType<func::FuncOp>()) ==
        EntryKind::forward_nograd;
    EpilogueLowering lowering{kb, viewed, gemm, config,
                              variant.tma ? &*variant.tma : nullptr,
                              noGradForward};
    llvm::TypeSwitch<Operation *>(op)
        .Case<GateUpOp, DownOp, GateOp, DownGradOp, InputGradOp,
              GateUpWeightGradOp, DownWeightGradOp>(
            [&](auto kernel) { lowering.build(kernel); });
    variant.func = kb.func;
    return variant;
  }
};

} // namespace
