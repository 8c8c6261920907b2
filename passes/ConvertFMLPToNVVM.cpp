//===- ConvertFMLPToNVVM.cpp - The kernel plan as GPU kernels -------------===//
//
// Implements convert-fmlp-to-nvvm (see Passes.td). Each kernel op of a
// planned entry point becomes one kernel in the gpu.module @fmlp_kernels,
// and the op itself a gpu.launch_func of it. Every kernel is the one GEMM
// skeleton of lib/CodeGen/KernelBuilder.h with its operands and epilogue
// plugged in; the math of each epilogue is the CPU lowering's
// (ConvertFMLPToLinalg.cpp), so both paths round the same values:
//
//   K1 m=T  n=H  k=D   A=x            B=Wg, Wu (2 accumulators) -> A[,G,U]
//   K2 m=T  n=D  k=H   A=A            B=Wd                      -> y
//   K3 m=T  n=H  k=D   A=dy           B=Wd read transposed  -> dG,dU on G,U
//   K4 m=T  n=D  k=2H  A=dG | dU      B=Wg | Wu read transposed -> dx
//   K5 m=2H n=D  k=T   A=(dG | dU)^T  B=x                   -> dWg | dWu
//   K6 m=D  n=H  k=T   A=dy^T         B=A, or act(G) U          -> dWd
//
// ("|": two buffers concatenated along that index, one MatrixView.) Kernel
// parameters are one pointer per distinct buffer (already offset to the
// view's first element by the caller) and T.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/FMLP/FMLPOps.h"
#include "lib/CodeGen/Activation.h"
#include "lib/CodeGen/KernelBuilder.h"
#include "lib/CodeGen/TileSelection.h"
#include "passes/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <numeric>

namespace mlir::fmlp {
#define GEN_PASS_DEF_CONVERTFMLPTONVVMPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

namespace {

constexpr StringLiteral kKernelModule = "fmlp_kernels";

/// The distinct memref operands of a kernel op, as kernel parameters.
class KernelOperands {
public:
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
    // The bundle asks 16-byte aligned arguments of the WGMMA kernels.
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    if (kb.numTensorMaps > 0 && !ShapedType::isDynamic(offset))
      view.baseAlignment = std::gcd(offset, 16 / elementBytes);
    return view;
  }
  /// A weight of the projection in -> out as W(in, out), whatever its layout.
  MatrixView weight(KernelBuilder &kb, Value memref,
                    WeightLayout layout) const {
    MatrixView stored = view(kb, memref);
    return layout == WeightLayout::in_out ? stored : stored.transposed();
  }

  SmallVector<Value> buffers;
  DenseMap<Value, unsigned> index;
};

int64_t staticSize(Value memref, unsigned dim) {
  return cast<MemRefType>(memref.getType()).getDimSize(dim);
}

bool adjacentAlongCols(const MatrixView &view) { return view.colStride == 1; }

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

/// What a kernel op becomes: its GEMM (or column sum) and the operand whose
/// first dimension is T.
struct KernelPlan {
  Value tokenOperand;
};

/// The GEMM of a kernel op, as either instantiation of the skeleton: the
/// WGMMA one reads A and B_j through the plan's tensor maps (and moves the
/// outputs it stages through theirs), the SIMT one through the loaders;
/// both share the epilogue.
void buildGemm(KernelBuilder &kb, const KernelOperands &ops,
               const KernelConfig &config, const TmaPlan *tma, GemmSpec spec) {
  if (config.strategy == KernelStrategy::simt || !tma)
    return buildSimtGemm(kb, spec);
  WgmmaGemmSpec wgmma;
  wgmma.m = spec.m;
  wgmma.n = spec.n;
  wgmma.k = spec.k;
  wgmma.a = tma->a;
  wgmma.b = tma->b;
  for (auto [memref, map] : tma->outputMaps)
    wgmma.outputMaps.push_back({ops.view(kb, memref), map});
  wgmma.tileN = config.tileN;
  wgmma.sharedBytesLimit =
      getTarget(kb.func).getInfo().sharedBytesPerBlock;
  wgmma.stages = config.stages;
  wgmma.element = spec.element;
  wgmma.epilogue = spec.epilogue;
  buildWgmmaGemm(kb, wgmma);
}

KernelPlan build(GateUpOp op, KernelBuilder &kb, const KernelOperands &ops,
                 const KernelConfig &config, const TmaPlan *tma) {
  ValueRange outs = op.getInits();
  MatrixView x = ops.view(kb, op.getX());
  MatrixView wg = ops.weight(kb, op.getGate(), op.getGateLayout());
  MatrixView wu = ops.weight(kb, op.getUp(), op.getUpLayout());
  SmallVector<MatrixView> stored;
  for (Value out : outs)
    stored.push_back(ops.view(kb, out));
  std::optional<MatrixView> gateBias, upBias;
  if (op.getGateBias())
    gateBias = ops.view(kb, op.getGateBias());
  if (op.getUpBias())
    upBias = ops.view(kb, op.getUpBias());

  GemmSpec spec;
  spec.element = x.element;
  spec.m = Extent::ofTokens();
  spec.n = Extent::of(staticSize(outs[0], 1));
  spec.k = Extent::of(staticSize(op.getX(), 1));
  spec.loadA = [x](KernelBuilder &kb, Value m, Value k) {
    return kb.load(x, m, k);
  };
  for (MatrixView w : {wg, wu})
    spec.loadB.push_back(
        [w](KernelBuilder &kb, Value k, Value n) { return kb.load(w, k, n); });
  spec.aAdjacentAlongK = adjacentAlongCols(x);
  spec.bAdjacentAlongN = adjacentAlongCols(wg);
  std::optional<APFloat> mg = op.getGateMultiplier();
  Activation activation = op.getActivation();
  const Primitives &primitives = primitivesFor(spec.element);
  spec.epilogue = [&](KernelBuilder &kb, Value m, Value n,
                      ArrayRef<Value> acc) {
    Value zero = kb.i64(0);
    Value g = gateBias ? fadd(kb, acc[0], kb.load(*gateBias, zero, n)) : acc[0];
    Value u = upBias ? fadd(kb, acc[1], kb.load(*upBias, zero, n)) : acc[1];
    g = scale(kb, g, mg);
    Value a =
        fmul(kb, buildActivation(kb.b, kb.loc, activation, g, primitives), u);
    kb.store(stored[0], m, n, a);
    if (stored.size() == 3) {
      kb.store(stored[1], m, n, g);
      kb.store(stored[2], m, n, u);
    }
  };
  buildGemm(kb, ops, config, tma, spec);
  return {op.getX()};
}

KernelPlan build(DownOp op, KernelBuilder &kb, const KernelOperands &ops,
                 const KernelConfig &config, const TmaPlan *tma) {
  Value out = op.getInits()[0];
  MatrixView a = ops.view(kb, op.getA()), y = ops.view(kb, out);
  MatrixView wd = ops.weight(kb, op.getDown(), op.getDownLayout());
  std::optional<MatrixView> bias;
  if (op.getDownBias())
    bias = ops.view(kb, op.getDownBias());
  GemmSpec spec;
  spec.element = a.element;
  spec.m = Extent::ofTokens();
  spec.n = Extent::of(staticSize(out, 1));
  spec.k = Extent::of(staticSize(op.getA(), 1));
  spec.loadA = [a](KernelBuilder &kb, Value m, Value k) {
    return kb.load(a, m, k);
  };
  spec.loadB.push_back(
      [wd](KernelBuilder &kb, Value k, Value n) { return kb.load(wd, k, n); });
  spec.aAdjacentAlongK = adjacentAlongCols(a);
  spec.bAdjacentAlongN = adjacentAlongCols(wd);
  std::optional<APFloat> md = op.getDownMultiplier();
  spec.epilogue = [&](KernelBuilder &kb, Value m, Value n,
                      ArrayRef<Value> acc) {
    Value sum = bias ? fadd(kb, acc[0], kb.load(*bias, kb.i64(0), n)) : acc[0];
    kb.store(y, m, n, scale(kb, sum, md));
  };
  buildGemm(kb, ops, config, tma, spec);
  return {op.getA()};
}

KernelPlan build(DownGradOp op, KernelBuilder &kb, const KernelOperands &ops,
                 const KernelConfig &config, const TmaPlan *tma) {
  ValueRange outs = op.getInits();
  MatrixView dy = ops.view(kb, op.getDy());
  // B(k = d, n = h) = Wd(in = h, out = d).
  MatrixView wdT =
      ops.weight(kb, op.getDown(), op.getDownLayout()).transposed();
  MatrixView g = ops.view(kb, op.getG()), u = ops.view(kb, op.getU());
  MatrixView dg = ops.view(kb, outs[0]), du = ops.view(kb, outs[1]);
  GemmSpec spec;
  spec.element = dy.element;
  spec.m = Extent::ofTokens();
  spec.n = Extent::of(staticSize(op.getG(), 1));
  spec.k = Extent::of(staticSize(op.getDy(), 1));
  spec.loadA = [dy](KernelBuilder &kb, Value m, Value k) {
    return kb.load(dy, m, k);
  };
  spec.loadB.push_back([wdT](KernelBuilder &kb, Value k, Value n) {
    return kb.load(wdT, k, n);
  });
  spec.aAdjacentAlongK = adjacentAlongCols(dy);
  spec.bAdjacentAlongN = adjacentAlongCols(wdT);
  Activation activation = op.getActivation();
  std::optional<APFloat> mg = op.getGateMultiplier(),
                         md = op.getDownMultiplier();
  const Primitives &primitives = primitivesFor(spec.element);
  spec.epilogue = [=, &primitives](KernelBuilder &kb, Value m, Value n,
                                   ArrayRef<Value> acc) {
    Value da = scale(kb, acc[0], md);
    Value gv = kb.load(g, m, n), uv = kb.load(u, m, n);
    Value slope =
        buildActivationDerivative(kb.b, kb.loc, activation, gv, primitives);
    Value dgv = scale(kb, fmul(kb, fmul(kb, da, uv), slope), mg);
    Value duv =
        fmul(kb, da, buildActivation(kb.b, kb.loc, activation, gv, primitives));
    kb.store(dg, m, n, dgv);
    kb.store(du, m, n, duv);
  };
  buildGemm(kb, ops, config, tma, spec);
  return {op.getDy()};
}

KernelPlan build(InputGradOp op, KernelBuilder &kb, const KernelOperands &ops,
                 const KernelConfig &config, const TmaPlan *tma) {
  Value out = op.getInits()[0];
  int64_t hidden = staticSize(op.getDg(), 1);
  MatrixView dg = ops.view(kb, op.getDg()), du = ops.view(kb, op.getDu());
  // B(k = h, n = d) = W(in = d, out = h).
  MatrixView wgT =
      ops.weight(kb, op.getGate(), op.getGateLayout()).transposed();
  MatrixView wuT = ops.weight(kb, op.getUp(), op.getUpLayout()).transposed();
  MatrixView dx = ops.view(kb, out);
  GemmSpec spec;
  spec.element = dg.element;
  spec.m = Extent::ofTokens();
  spec.n = Extent::of(staticSize(out, 1));
  spec.k = Extent::of(2 * hidden);
  // K = 2H: k < H reads the gate's half, k >= H the up half.
  MatrixView a = MatrixView::concatenate(dg, du, hidden, /*alongRows=*/false);
  MatrixView w = MatrixView::concatenate(wgT, wuT, hidden, /*alongRows=*/true);
  spec.loadA = [=](KernelBuilder &kb, Value m, Value k) {
    return kb.load(a, m, k);
  };
  spec.loadB.push_back(
      [=](KernelBuilder &kb, Value k, Value n) { return kb.load(w, k, n); });
  spec.aAdjacentAlongK = adjacentAlongCols(dg);
  spec.bAdjacentAlongN = adjacentAlongCols(wgT);
  spec.epilogue = [=](KernelBuilder &kb, Value m, Value n,
                      ArrayRef<Value> acc) { kb.store(dx, m, n, acc[0]); };
  buildGemm(kb, ops, config, tma, spec);
  return {op.getDg()};
}

/// out(m, n) = acc, or out(m, n) + acc when accumulating, through
/// KernelBuilder::load and store (which the WGMMA epilogue pairs and stages).
void storeGradient(KernelBuilder &kb, const MatrixView &out, Value m, Value n,
                   Value acc, bool accumulate) {
  if (accumulate)
    acc = fadd(kb, kb.load(out, m, n), acc);
  kb.store(out, m, n, acc);
}

KernelPlan build(GateUpWeightGradOp op, KernelBuilder &kb,
                 const KernelOperands &ops, const KernelConfig &config,
                 const TmaPlan *tma) {
  ValueRange outs = op.getInits();
  int64_t hidden = staticSize(op.getDg(), 1);
  MatrixView x = ops.view(kb, op.getX());
  // A(m = h, k = t) = dG(t, h) for h < H, dU(t, h - H) above.
  MatrixView dgT = ops.view(kb, op.getDg()).transposed();
  MatrixView duT = ops.view(kb, op.getDu()).transposed();
  // Stored as W(in = d, out = h): element (h, d) is the transpose.
  MatrixView dwgT = ops.weight(kb, outs[0], op.getGateLayout()).transposed();
  MatrixView dwuT = ops.weight(kb, outs[1], op.getUpLayout()).transposed();
  bool accumulate = op.getAccumulate();
  GemmSpec spec;
  spec.element = x.element;
  spec.m = Extent::of(2 * hidden);
  spec.n = Extent::of(staticSize(op.getX(), 1));
  spec.k = Extent::ofTokens();
  // M = 2H: m < H is the gate's half, m >= H the up half.
  MatrixView grads =
      MatrixView::concatenate(dgT, duT, hidden, /*alongRows=*/true);
  MatrixView weights =
      MatrixView::concatenate(dwgT, dwuT, hidden, /*alongRows=*/true);
  spec.loadA = [=](KernelBuilder &kb, Value m, Value k) {
    return kb.load(grads, m, k);
  };
  spec.loadB.push_back(
      [x](KernelBuilder &kb, Value k, Value n) { return kb.load(x, k, n); });
  spec.aAdjacentAlongK = adjacentAlongCols(dgT);
  spec.bAdjacentAlongN = adjacentAlongCols(x);
  spec.epilogue = [=](KernelBuilder &kb, Value m, Value n,
                      ArrayRef<Value> acc) {
    storeGradient(kb, weights, m, n, acc[0], accumulate);
  };
  buildGemm(kb, ops, config, tma, spec);
  return {op.getX()};
}

KernelPlan build(DownWeightGradOp op, KernelBuilder &kb,
                 const KernelOperands &ops, const KernelConfig &config,
                 const TmaPlan *tma) {
  Value out = op.getInits()[0];
  ValueRange sources = op.getActivationInputs();
  MatrixView dyT = ops.view(kb, op.getDy()).transposed();
  SmallVector<MatrixView> inputs;
  for (Value source : sources)
    inputs.push_back(ops.view(kb, source));
  // Stored as W(in = h, out = d): element (d, h) is the transpose.
  MatrixView dwdT = ops.weight(kb, out, op.getDownLayout()).transposed();
  Activation activation = op.getActivation();
  bool accumulate = op.getAccumulate();
  GemmSpec spec;
  spec.element = dyT.element;
  spec.m = Extent::of(staticSize(op.getDy(), 1));
  spec.n = Extent::of(staticSize(sources[0], 1));
  spec.k = Extent::ofTokens();
  spec.loadA = [dyT](KernelBuilder &kb, Value m, Value k) {
    return kb.load(dyT, m, k);
  };
  // B(k = t, n = h) = A(t, h), or act(G) U recomputed from G and U.
  const Primitives &primitives = primitivesFor(spec.element);
  spec.loadB.push_back([=, &primitives](KernelBuilder &kb, Value k, Value n) {
    Value a = kb.load(inputs[0], k, n);
    if (inputs.size() == 1)
      return a;
    return fmul(kb, buildActivation(kb.b, kb.loc, activation, a, primitives),
                kb.load(inputs[1], k, n));
  });
  spec.aAdjacentAlongK = adjacentAlongCols(dyT);
  spec.bAdjacentAlongN = adjacentAlongCols(inputs[0]);
  std::optional<APFloat> md = op.getDownMultiplier();
  spec.epilogue = [=](KernelBuilder &kb, Value m, Value n,
                      ArrayRef<Value> acc) {
    Value grad = scale(kb, acc[0], md);
    storeGradient(kb, dwdT, m, n, grad, accumulate);
  };
  buildGemm(kb, ops, config, tma, spec);
  return {op.getDy()};
}

KernelPlan build(BiasGradOp op, KernelBuilder &kb, const KernelOperands &ops,
                 const KernelConfig &config, const TmaPlan *tma) {
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
  return {op.getGrad()};
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

/// Replaces `op` with the launch of `kernel` (geometry as the kernel says).
void replaceWithLaunch(Operation *op, LLVM::LLVMFuncOp kernel,
                       const KernelOperands &operands, Value tokenOperand,
                       ArrayRef<TmaView> tensorMaps) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  LaunchGeometry geometry = LaunchGeometry::readFrom(kernel);
  Value tokens = memref::DimOp::create(b, loc, tokenOperand, 0);
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
  SmallVector<int64_t> boxRows, cols;
  for (const TmaView &map : tensorMaps) {
    args.push_back(map.view);
    boxRows.push_back(map.boxRows);
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
  // Which parameters the kernel writes (the op's inits).
  SmallVector<int64_t> written;
  for (Value init : cast<DestinationStyleOpInterface>(op).getDpsInits())
    written.push_back(tensorMaps.size() + operands.index.lookup(init));
  launch->setAttr("fmlp.written", b.getDenseI64ArrayAttr(written));
  launch->setAttr("fmlp.tensor_map_box_rows", b.getDenseI64ArrayAttr(boxRows));
  launch->setAttr("fmlp.tensor_map_cols", b.getDenseI64ArrayAttr(cols));
  op->erase();
}

struct ConvertFMLPToNVVMPass
    : mlir::fmlp::impl::ConvertFMLPToNVVMPassBase<ConvertFMLPToNVVMPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> kernels;
    WalkResult walk = module.walk([&](Operation *op) {
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
      if (op->getParentOfType<scf::ForOp>()) {
        op->emitOpError("is inside a token-chunk loop: the GPU bundle does "
                        "not support chunk-tokens yet (plan with "
                        "chunk-tokens=0)");
        return WalkResult::interrupt();
      }
      for (Value operand : op->getOperands()) {
        Type element = getElementTypeOrSelf(operand.getType());
        if (!element.isF32() && !element.isBF16() && !element.isF16()) {
          op->emitOpError("has elements of type ")
              << element << ": GPU kernels take f32, bf16 or f16";
          return WalkResult::interrupt();
        }
      }
      if (!isa<BiasGradOp>(op) &&
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
    if (kernels.empty())
      return;
    TargetAttr targetAttr = getTarget(module);
    if (!targetAttr) {
      module.emitError(
          "the module has no fmlp.target: run fmlp-attach-target first");
      return signalPassFailure();
    }
    const Target &info = targetAttr.getInfo();

    MLIRContext *context = &getContext();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(context));
    OpBuilder b(context);
    b.setInsertionPointToEnd(module.getBody());
    auto target = NVVM::NVVMTargetAttr::get(
        context, /*optLevel=*/3, "nvptx64-nvidia-cuda", info.chip,
        info.ptxFeature());
    auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModule,
                                              b.getArrayAttr({target}));

    DenseMap<Operation *, unsigned> countPerEntry;
    for (Operation *op : kernels) {
      auto entry = op->getParentOfType<func::FuncOp>();
      unsigned index = countPerEntry[entry]++;
      KernelOperands operands(op);
      // A column sum (bias_grad) has no GEMM to configure.
      KernelConfig config;
      if (auto attr = op->getAttrOfType<KernelConfigAttr>(
              KernelConfigAttr::kName))
        config = KernelConfig::fromAttr(attr);
      std::optional<TmaPlan> tma;
      if (config.strategy == KernelStrategy::wgmma) {
        if (!info.has(kWgmma)) {
          op->emitOpError("is configured for WGMMA, which ")
              << StringRef(info.chip) << " does not have";
          return signalPassFailure();
        }
        std::string whyNot;
        FailureOr<TmaPlan> planned = planTma(op, config.tileN, whyNot);
        if (failed(planned)) {
          op->emitOpError("is configured for WGMMA, but ") << whyNot;
          return signalPassFailure();
        }
        tma = std::move(*planned);
      }
      ArrayRef<TmaView> maps =
          tma ? ArrayRef<TmaView>(tma->maps) : ArrayRef<TmaView>();
      KernelBuilder kb(gpuModule, kernelName(entry.getSymName(), index, op),
                       maps.size(), operands.buffers.size(), op->getLoc());
      KernelPlan plan =
          llvm::TypeSwitch<Operation *, KernelPlan>(op)
              .Case<GateUpOp, DownOp, DownGradOp, InputGradOp,
                    GateUpWeightGradOp, DownWeightGradOp, BiasGradOp>(
                  [&](auto kernel) {
                    return build(kernel, kb, operands, config,
                                 tma ? &*tma : nullptr);
                  });
      replaceWithLaunch(op, kb.func, operands, plan.tokenOperand, maps);
    }
  }
};

} // namespace
