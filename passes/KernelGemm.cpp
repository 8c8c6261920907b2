//===- KernelGemm.cpp - Each kernel op as one GEMM ------------------------===//

#include "passes/KernelGemm.h"
#include "passes/ViewOffset.h"
#include "passes/WeightCopies.h"

#include "codegen/CheckedOption.h"

#include "dialects/FMLP/FMLPOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace mlir::fmlp;

// For A/B runs on a GPU (bench/compare_bundles.py): the rows of the boxes
// in which a K-major A whose rows are T arrives (WgmmaOperand::rowsPerBox).
namespace {
/// A box's rows divide the tile's and are a multiple of 8 (a core matrix).
struct RowsPerBox {
  static bool accepts(int n) {
    return n >= 8 && n <= kWgmmaTileM && kWgmmaTileM % n == 0 && n % 8 == 0;
  }
  static constexpr const char *expected = "8, 16, 32, 64 or 128";
};
} // namespace
static llvm::cl::opt<int, false, CheckedIntParser<RowsPerBox>>
    tokenRowsPerBox(
        "fmlp-wgmma-token-rows-per-box", llvm::cl::Hidden, llvm::cl::init(32),
        llvm::cl::desc("WGMMA kernels: the rows of each TMA box of an A "
                       "operand whose rows are T (8, 16, 32, 64 or 128)"));

namespace {

/// Extent 1 of a 2-D memref (H of dG, D of x and dy).
int64_t columnsOf(Value view) {
  return cast<MemRefType>(view.getType()).getDimSize(1);
}

/// A weight W(in, out) stored in `layout`, read as B(k = in, n = out) or,
/// `readTransposed`, as B(k = out, n = in): K-major when its stored rows
/// index n.
GemmPart weight(Value memref, WeightLayout layout, bool readTransposed,
                StringRef role) {
  bool rowsAreOut = layout == WeightLayout::out_in;
  return {memref, rowsAreOut != readTransposed, role};
}

GemmOperand plain(GemmPart part) {
  GemmOperand operand;
  operand.parts.push_back(part);
  operand.starts.push_back(0);
  operand.role = part.role;
  return operand;
}

/// `operand` with `part` after it, from index `start` on; `role` names the
/// whole.
GemmOperand followedBy(GemmOperand operand, GemmPart part, int64_t start,
                       StringRef role) {
  operand.parts.push_back(part);
  operand.starts.push_back(start);
  operand.role = role;
  return operand;
}

GemmOperand concatenated(GemmPart first, GemmPart second, int64_t start,
                         bool alongK, StringRef role) {
  GemmOperand operand = followedBy(plain(first), second, start, role);
  operand.alongK = alongK;
  return operand;
}

} // namespace

KernelGemm mlir::fmlp::describeGemm(Operation *op) {
  KernelGemm gemm;
  gemm.element = getElementTypeOrSelf(op->getOperand(0).getType());
  if (auto precision = op->getAttrOfType<PrecisionAttr>("precision"))
    gemm.precision = precision.getValue();
  gemm.tf32Rounded = op->hasAttr(kTf32RoundedAttr);
  // M = T: the rows of `a` (K-major, K its columns) are the tokens, and N
  // the out's columns.
  auto overTokens = [&](Value a, StringRef role, int64_t n) {
    gemm.m = Extent::ofTokens();
    gemm.n = Extent::of(n);
    gemm.k = Extent::of(columnsOf(a));
    gemm.a = plain({a, true, role}); // role: a literal (GemmPart keeps a StringRef)
    gemm.tokenOperand = a;
  };
  // An adapter term (docs/LoRA.md): R more k, A's token-major [T, R]
  // operand `z` after its own columns and B_j's adapter matrix after its
  // k rows; roles name the augmented operands in reasons. An adapter
  // matrix [out, in] read as B(k = r, n) is K-major when its rows index n
  // (Bg, Bu [H, R] and Bd [D, Rd]), MN-major when they index k (Ad [Rd, H]
  // and A_cat [R, D], which K3 and K4 read).
  auto adapter = [&](Value z, StringRef zRole, StringRef aRole,
                     ArrayRef<std::pair<GemmPart, StringRef>> matrices) {
    if (!z)
      return;
    int64_t k = gemm.k.value;
    assert(gemm.a.alongK && "an adapter term extends k");
    gemm.a = followedBy(gemm.a, {z, true, zRole}, k, aRole);
    for (auto [b, matrix] : llvm::zip_equal(gemm.b, matrices))
      b = followedBy(b, matrix.first, k, matrix.second);
    gemm.k = Extent::of(k + columnsOf(z));
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](GateUpOp k1) {
        overTokens(k1.getX(), "x", columnsOf(k1.getInits()[0]));
        gemm.b.push_back(
            plain(weight(k1.getGate(), k1.getGateLayout(), false, "gate")));
        gemm.b.push_back(
            plain(weight(k1.getUp(), k1.getUpLayout(), false, "up")));
        adapter(k1.getLoraZ(), "Z", "[x Z]",
                {{{k1.getGateLoraB(), /*kMajor=*/true, "Bg"}, "[Wg Bg]"},
                 {{k1.getUpLoraB(), /*kMajor=*/true, "Bu"}, "[Wu Bu]"}});
      })
      .Case([&](DownOp k2) {
        overTokens(k2.getA(), "A", columnsOf(k2.getInits()[0]));
        gemm.b.push_back(
            plain(weight(k2.getDown(), k2.getDownLayout(), false, "down")));
        adapter(k2.getLoraZ(), "Zd", "[A Zd]",
                {{{k2.getLoraB(), /*kMajor=*/true, "Bd"}, "[Wd Bd]"}});
      })
      .Case([&](GateOp gate) {
        overTokens(gate.getX(), "x", columnsOf(gate.getInits()[0]));
        gemm.b.push_back(plain(
            weight(gate.getGate(), gate.getGateLayout(), false, "gate")));
        adapter(gate.getLoraZ(), "Z", "[x Z]",
                {{{gate.getGateLoraB(), /*kMajor=*/true, "Bg"}, "[Wg Bg]"}});
      })
      .Case([&](DownGradOp k3) { // B(k = d, n = h) = Wd(in = h, out = d)
        overTokens(k3.getDy(), "dy", columnsOf(k3.getG()));
        gemm.b.push_back(
            plain(weight(k3.getDown(), k3.getDownLayout(), true, "down")));
        adapter(k3.getLoraDz(), "dZd", "[dy dZd]",
                {{{k3.getLoraA(), /*kMajor=*/false, "Ad"}, "[Wd Ad]"}});
      })
      .Case([&](InputGradOp k4) { // k < H: gate's half, k >= H: up's
        int64_t hidden = columnsOf(k4.getDg());
        gemm.m = Extent::ofTokens();
        gemm.n = Extent::of(columnsOf(k4.getInits()[0]));
        gemm.k = Extent::of(2 * hidden);
        gemm.a = concatenated({k4.getDg(), true, "dG"}, {k4.getDu(), true, "dU"},
                              hidden, /*alongK=*/true, "[dG dU]");
        // B(k = h, n = d) = W(in = d, out = h).
        gemm.b.push_back(concatenated(
            weight(k4.getGate(), k4.getGateLayout(), true, "gate"),
            weight(k4.getUp(), k4.getUpLayout(), true, "up"), hidden,
            /*alongK=*/true, "[Wg Wu]"));
        gemm.tokenOperand = k4.getDg();
        adapter(k4.getLoraDz(), "dZ", "[dG dU dZ]",
                {{{k4.getLoraA(), /*kMajor=*/false, "A_cat"},
                  "[Wg Wu A_cat]"}});
      })
      .Case([&](GateUpWeightGradOp k5) { // m < H: gate's half, m >= H: up's
        int64_t hidden = columnsOf(k5.getDg());
        gemm.m = Extent::of(2 * hidden);
        gemm.n = Extent::of(columnsOf(k5.getX()));
        gemm.k = Extent::ofTokens();
        // A(m = h, k = t) = dG(t, h): rows index k.
        gemm.a = concatenated({k5.getDg(), false, "dG"},
                              {k5.getDu(), false, "dU"}, hidden,
                              /*alongK=*/false, "[dG dU]");
        gemm.b.push_back(plain({k5.getX(), false, "x"}));
        gemm.tokenOperand = k5.getX();
        gemm.outputsMappable = false;
      })
      .Case([&](DownWeightGradOp k6) {
        gemm.m = Extent::of(columnsOf(k6.getDy()));
        gemm.n = Extent::of(columnsOf(k6.getA()));
        gemm.k = Extent::ofTokens();
        gemm.a = plain({k6.getDy(), false, "dy"});
        gemm.b.push_back(plain({k6.getA(), false, "A"}));
        gemm.tokenOperand = k6.getDy();
      })
      .Default([](Operation *op) {
        llvm_unreachable("describeGemm: not a GEMM kernel op");
      });
  return gemm;
}

namespace {

constexpr int64_t kPieceBytes = 16; // TMA's alignment; a vector load's

/// Why `view` read as `cols` columns cannot be read in 16-byte pieces
/// (unit inner stride, rows and first element 16-byte aligned: a TMA view
/// or 16-byte loads), or "".
std::string notIn16BytePieces(Value view, int64_t cols, StringRef role) {
  auto type = cast<MemRefType>(view.getType());
  auto [strides, offset] = type.getStridesAndOffset();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  if (type.getRank() != 2 || strides[1] != 1)
    return (role + " has no unit inner stride").str();
  if (ShapedType::isDynamic(strides[0]) || (strides[0] * bytes) % kPieceBytes ||
      !viewStartAligned(view, kPieceBytes) || strides[0] < cols)
    return (role + " has rows or an offset not 16-byte aligned").str();
  return "";
}

} // namespace

std::string mlir::fmlp::notSmallTokensReady(const KernelGemm &gemm) {
  if (!gemm.m.tokens || gemm.n.tokens || gemm.k.tokens)
    return "M is not T";
  if (gemm.element.getIntOrFloatBitWidth() != 16)
    return "the elements are not 16-bit";
  if (gemm.k.value % 16 || gemm.n.value % 16)
    return "K or N is not a multiple of 16";
  int64_t piece = kPieceBytes * 8 / gemm.element.getIntOrFloatBitWidth();
  for (const GemmOperand &operand : llvm::concat<const GemmOperand>(
           ArrayRef<GemmOperand>(gemm.a), ArrayRef<GemmOperand>(gemm.b))) {
    if (!operand.isPlain() && !operand.alongK)
      return (operand.role + " is concatenated along m or n").str();
    for (auto [part, start] : llvm::zip_equal(operand.parts, operand.starts)) {
      if (!part.kMajor)
        return (part.role + " is not K-major").str();
      if (start % piece)
        return (part.role + " starts at k = " + Twine(start) +
                ", not a multiple of a 16-byte piece")
            .str();
      if (std::string why = notIn16BytePieces(part.memref, 0, part.role);
          !why.empty())
        return why;
    }
  }
  return "";
}

std::string mlir::fmlp::notMmaSyncReady(const KernelGemm &gemm) {
  if (gemm.element.getIntOrFloatBitWidth() != 16 && !gemm.element.isF32())
    return "the elements are neither 16-bit nor fp32";
  for (const GemmOperand &operand : llvm::concat<const GemmOperand>(
           ArrayRef<GemmOperand>(gemm.a), ArrayRef<GemmOperand>(gemm.b))) {
    for (const GemmPart &part : operand.parts)
      if (std::string why = notIn16BytePieces(part.memref, 0, part.role);
          !why.empty())
        return why;
    // One index contiguous in every part (the view mma.sync stages).
    for (const GemmPart &part : operand.parts)
      if (part.kMajor != operand.parts[0].kMajor)
        return (operand.parts[0].role + " and " + part.role +
                " have different layouts")
            .str();
    // A K-major part's columns are k: a concatenation along k splits its
    // contiguous index, as does one along m or n of parts whose rows are k.
    int64_t piece = kPieceBytes * 8 / gemm.element.getIntOrFloatBitWidth();
    if (operand.alongK == operand.parts[0].kMajor)
      for (auto [part, start] : llvm::zip_equal(operand.parts, operand.starts))
        if (start % piece)
          return (part.role + " starts at " + Twine(start) +
                  ", inside a 16-byte piece")
              .str();
  }
  return "";
}

//===----------------------------------------------------------------------===//
// The WGMMA strategy's tensor maps
//===----------------------------------------------------------------------===//

namespace {

/// Whether `second` follows `first` in the same rows: one view of both
/// (in a chunk loop, the same rows of every chunk).
bool adjacent(Value first, Value second) {
  auto f = cast<MemRefType>(first.getType());
  auto s = cast<MemRefType>(second.getType());
  std::optional<ViewOffset> fo = traceViewOffset(first);
  std::optional<ViewOffset> so = traceViewOffset(second);
  return f.getStridesAndOffset().first == s.getStridesAndOffset().first && fo &&
         so && fo->root == so->root && fo->tokenStride == so->tokenStride &&
         fo->chunkLoop == so->chunkLoop &&
         so->offset == fo->offset + f.getDimSize(1);
}

/// Plans tensor maps one operand at a time.
class TmaPlanner {
public:
  TmaPlanner(int64_t tileN, Type element)
      : tileN(tileN), tileK(wgmmaTileK(element)),
        mnMajorTaken(wgmmaReadsMnMajor(element)) {}

  /// Why the WGMMA strategy cannot read `operand` as it is formed, or "".
  /// Its parts K-major where it reads no MN-major ones (fp32 operands,
  /// tf32, unless the producer transposes them: wgmmaReadsMnMajor), and
  /// all of one layout. A map after the first (mapFirsts) only
  /// a concatenation along k can have, starting at a k-step ([Wg Wu], an
  /// adapter's columns).
  std::string unsupportedForm(const GemmOperand &operand, bool isA) const {
    const auto &parts = operand.parts;
    if (!mnMajorTaken)
      for (const GemmPart &part : parts)
        if (!part.kMajor)
          return ("tf32 WGMMA reads K-major operands only, and " + part.role +
                  " is MN-major (its rows index k), which "
                  "--fmlp-tf32-wgmma-mn-major=false leaves untransposed")
              .str();
    for (const GemmPart &part : parts)
      if (part.kMajor != parts[0].kMajor)
        return (parts[0].role + " and " + part.role +
                " have different layouts")
            .str();
    SmallVector<size_t, 3> firsts = mapFirsts(operand, isA);
    for (size_t first : llvm::drop_begin(firsts)) {
      if (!operand.alongK)
        return (parts[first - 1].role + " and " + parts[first].role +
                " are not adjacent columns of one buffer")
            .str();
      if (operand.starts[first] % tileK)
        return (parts[first].role + " starts at k = " +
                Twine(operand.starts[first]) +
                ", not a multiple of the k-tile (" + Twine(tileK) + ")")
            .str();
    }
    return "";
  }

  /// A's maps: its rows are T when `tokenRows`: K-major, it is read in
  /// boxes of 32 rows (the option above), so that a box past T is not
  /// loaded (WgmmaOperand::rowsPerBox).
  WgmmaOperand operandA(const GemmOperand &operand, bool tokenRows) {
    int64_t rowsPerBox = tokenRows && operand.parts[0].kMajor
                             ? int64_t(tokenRowsPerBox)
                             : kWgmmaTileM;
    WgmmaOperand a = operandMaps(operand, rowsPerBox, /*isA=*/true);
    if (rowsPerBox != kWgmmaTileM)
      a.rowsPerBox = rowsPerBox;
    return a;
  }
  WgmmaOperand operandB(const GemmOperand &operand) {
    return operandMaps(operand, tileN, /*isA=*/false);
  }
  /// The map of an output the epilogue stages, in boxes of its consumers'
  /// 64 rows, if TMA can address it (else its blocks move by threads).
  /// 16-bit outputs only: the WGMMA epilogue stores fp32 ones directly
  /// (WgmmaGemm.cpp).
  void addOutput(Value view) {
    auto type = cast<MemRefType>(view.getType());
    if (type.getRank() != 2 || type.getElementTypeBitWidth() != 16)
      return;
    int64_t cols = type.getDimSize(1);
    if (notIn16BytePieces(view, cols, "").empty())
      plan.outputMaps.push_back({view, record(view, cols, /*kMajor=*/true,
                                              kWgmmaOutputBox,
                                              kWgmmaOutputBox)});
  }
  void fail(std::string reason) {
    if (whyNot.empty())
      whyNot = std::move(reason);
  }

  int64_t tileN, tileK;
  bool mnMajorTaken;
  TmaPlan plan;
  std::string whyNot;

private:
  /// The first part of each map of `operand`: parts of A that are
  /// adjacent columns of one buffer are one map (K4's and K5's [dG dU]),
  /// every other part a map of its own.
  static SmallVector<size_t, 3> mapFirsts(const GemmOperand &operand,
                                          bool isA) {
    SmallVector<size_t, 3> firsts = {0};
    for (size_t i = 1; i < operand.parts.size(); ++i)
      if (!isA ||
          !adjacent(operand.parts[i - 1].memref, operand.parts[i].memref))
        firsts.push_back(i);
    return firsts;
  }

  /// `operand`'s maps (mapFirsts), those after the first from their k on.
  WgmmaOperand operandMaps(const GemmOperand &operand, int64_t tileRows,
                           bool isA) {
    const auto &parts = operand.parts;
    SmallVector<size_t, 3> firsts = mapFirsts(operand, isA);
    firsts.push_back(parts.size());
    WgmmaOperand result;
    result.kMajor = parts[0].kMajor;
    for (auto [first, end] : llvm::zip(firsts, llvm::drop_begin(firsts))) {
      // A map of several parts covers all their columns.
      int64_t cols = 0;
      for (const GemmPart &part : ArrayRef(parts).slice(first, end - first))
        cols += columnsOf(part.memref);
      bool several = end - first > 1;
      unsigned map = add(parts[first].memref, result.kMajor, tileRows,
                         several ? operand.role : parts[first].role,
                         several ? cols : 0);
      if (first == 0)
        result.map = map;
      else
        result.further.push_back({operand.starts[first], map});
    }
    return result;
  }

  /// Adds the map of `view` (`cols` columns; 0: all), whose rows index the
  /// tile's m/n (K-major) or k (MN-major), for an operand of `tileRows`.
  unsigned add(Value view, bool kMajor, int64_t tileRows, StringRef role,
               int64_t cols = 0) {
    if (!cols)
      cols = cast<MemRefType>(view.getType()).getDimSize(1);
    fail(notIn16BytePieces(view, cols, role));
    // K-major: boxes of the tile's rows x a stage's row of k; MN-major:
    // of a stage's k rows x as many m/n (128 bytes of them: 64 x 64
    // 16-bit, 32 x 32 fp32 elements).
    return kMajor ? record(view, cols, kMajor, tileRows, tileK)
                  : record(view, cols, kMajor, tileK, tileK);
  }
  unsigned record(Value view, int64_t cols, bool kMajor, int64_t boxRows,
                  int64_t boxCols) {
    plan.maps.push_back({view, cols, kMajor, boxRows, boxCols});
    return plan.maps.size() - 1;
  }
};

} // namespace

FailureOr<TmaPlan> mlir::fmlp::planTma(Operation *op, const KernelGemm &gemm,
                                       int64_t tileN, std::string &whyNot,
                                       OutputMaps outputs) {
  TmaPlanner p(tileN, gemm.element);
  // Each operand's form first, then (in parameter order) its maps.
  p.fail(p.unsupportedForm(gemm.a, /*isA=*/true));
  for (const GemmOperand &b : gemm.b)
    p.fail(p.unsupportedForm(b, /*isA=*/false));
  if (!p.whyNot.empty()) {
    whyNot = p.whyNot;
    return failure();
  }
  p.plan.a = p.operandA(gemm.a, gemm.m.tokens);
  for (const GemmOperand &b : gemm.b)
    p.plan.b.push_back(p.operandB(b));
  if (!p.whyNot.empty()) {
    whyNot = p.whyNot;
    return failure();
  }
  if (outputs == OutputMaps::planned && gemm.outputsMappable)
    for (Value out : cast<DestinationStyleOpInterface>(op).getDpsInits())
      p.addOutput(out);
  return p.plan;
}

bool mlir::fmlp::readsRoundedWeightCopies(const KernelGemm &gemm) {
  auto kMajor = [](const GemmPart &part) { return part.kMajor; };
  return gemm.tf32Rounded && llvm::all_of(gemm.a.parts, kMajor) &&
         llvm::all_of(gemm.b, [&](const GemmOperand &b) {
           return llvm::all_of(b.parts, [&](const GemmPart &part) {
             return kMajor(part) && roundedCopySource(part.memref);
           });
         });
}

bool mlir::fmlp::readsTransposedWeightCopies(const KernelGemm &gemm) {
  auto kMajor = [](const GemmPart &part) { return part.kMajor; };
  return gemm.element.isF32() && llvm::all_of(gemm.a.parts, kMajor) &&
         llvm::all_of(gemm.b, [&](const GemmOperand &b) {
           return llvm::all_of(b.parts, [&](const GemmPart &part) {
             return kMajor(part) && transposedCopySource(part.memref);
           });
         });
}

GemmShape mlir::fmlp::describeGemmShape(Operation *op) {
  KernelGemm gemm = describeGemm(op);
  GemmShape shape;
  shape.element = gemm.element;
  shape.accumulators = gemm.b.size();
  shape.precision = gemm.precision;
  shape.tf32Rounded = gemm.tf32Rounded;
  FailureOr<TmaPlan> plan =
      planTma(op, gemm, 256 / shape.accumulators, shape.notTmaReady);
  shape.tmaReady = succeeded(plan);
  if (shape.tmaReady) {
    shape.aKMajor = plan->a.kMajor;
    for (const WgmmaOperand &b : plan->b)
      shape.bKMajor.push_back(b.kMajor);
  }
  shape.notSmallTokensReady = notSmallTokensReady(gemm);
  // K3 with [in, out] weights meets the kernel's requirements too, but no
  // GPU test has run it (every GPU-test bundle has nn.Linear's layout).
  if (shape.notSmallTokensReady.empty() && !isa<GateUpOp, DownOp>(op))
    shape.notSmallTokensReady =
        "small_tokens kernels are verified on the GPU for K1 and K2 only";
  shape.smallTokensReady = shape.notSmallTokensReady.empty();
  shape.notMmaSyncReady = notMmaSyncReady(gemm);
  shape.mmaSyncReady = shape.notMmaSyncReady.empty();
  // The WGMMA token variants (TileSelection.h) for the kernels the GPU
  // tests verify at every tile width; split K where one accumulator is
  // stored as it is (K2's bias epilogue spills when split: 584 B at (1024,
  // 2816) in 8 slices).
  shape.tokenVariantsReady =
      gemm.m.tokens && isa<GateUpOp, DownOp, DownGradOp, InputGradOp>(op);
  auto down = dyn_cast<DownOp>(op);
  shape.splitKReady = (down && !down.getDownBias()) || isa<InputGradOp>(op);
  if (!gemm.n.tokens)
    shape.n = gemm.n.value;
  if (!gemm.k.tokens)
    shape.k = gemm.k.value;
  shape.readsRoundedWeightCopies = readsRoundedWeightCopies(gemm);
  shape.readsTransposedWeightCopies = readsTransposedWeightCopies(gemm);
  // The grid is static when neither M nor N is T (the weight gradients).
  if (!gemm.m.tokens && !gemm.n.tokens) {
    shape.rows = gemm.m.value;
    shape.cols = gemm.n.value;
  }
  return shape;
}

LogicalResult mlir::fmlp::readTargetAndStrategy(ModuleOp module, StringRef pass,
                                                StringRef strategy,
                                                TargetAttr &target,
                                                StrategyChoice &choice) {
  target = getTarget(module);
  if (!target)
    return module.emitError(
        "the module has no fmlp.target: run fmlp-attach-target first");
  std::optional<StrategyChoice> named = parseStrategyChoice(strategy);
  if (!named)
    return module.emitError()
           << pass << ": strategy must be auto, mma_sync or simt, got '"
           << strategy << "'";
  choice = *named;
  return success();
}
