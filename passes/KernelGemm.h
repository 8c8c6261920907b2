//===- KernelGemm.h - Each kernel op as one GEMM ---------------*- C++ -*-===//
//
// The one description of what each kernel op computes as a GEMM
// C_j(m, n) = sum_k A(m, k) B_j(k, n): its extents in terms of T, D and H,
// its operands as they are stored (which buffers, and which of their
// indices is k), and the operand whose first dimension is T. Every reader
// derives from it: tile selection its shape (SelectTiles.cpp), the SIMT
// strategy its loaders and the WGMMA strategy its tensor maps (planTma,
// both in ConvertFMLPToNVVM.cpp). What each op does with an accumulated
// element, its epilogue, is written beside its lowering there.
//
//   op                    m     n    k    A            B_j
//   K1 gate_up            T     H    D    x            Wg, Wu
//   K2 down               T     D    H    A            Wd
//   K3 down_grad          T     H    D    dy           Wd read transposed
//   K4 input_grad         T     D    2H   dG | dU      Wg | Wu, transposed
//   K5 gate_up_weight_grad 2H   D    T    (dG | dU)^T  x
//   K6 down_weight_grad   D     H    T    dy^T         A
//   gate (save=u)         T     H    D    x            Wg
//
// ("|": buffers concatenated along that index.) An op's adapter term
// (docs/LoRA.md) extends k by R: A gains its token-major [T, R] operand,
// each B_j the adapter matrix it multiplies (K1: [x | Z], [Wg | Bg] and
// [Wu | Bu]; K2: [A | Zd], [Wd | Bd]; K3: [dy | dZd], [Wd^T | Ad]; K4:
// [dG | dU | dZ], [Wg^T | Wu^T | A_cat]).
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PASSES_KERNELGEMM_H
#define FMLP_PASSES_KERNELGEMM_H

#include "codegen/KernelBuilder.h"
#include "codegen/TileSelection.h"
#include "dialects/FMLP/FMLPAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::fmlp {

/// One stored buffer of an operand. K-major: its rows index the operand's
/// m (of A) or n (of B_j), so k runs along them; else its rows index k.
struct GemmPart {
  Value memref;
  bool kMajor = true;
  StringRef role; // names it in reasons: "x", "gate", "dG"
};

/// An operand, A(m, k) or B_j(k, n), as its parts are read: one buffer, or
/// buffers concatenated along k (`alongK`) or along A's m, part i from
/// index starts[i] on (K4's and K5's [dG dU], K4's [Wg Wu]; an adapter
/// term's columns after the block's own, docs/LoRA.md: [x | Z]).
struct GemmOperand {
  SmallVector<GemmPart, 3> parts;
  SmallVector<int64_t, 3> starts; // starts[0] = 0
  bool alongK = true;
  StringRef role;                            // the whole operand, in reasons

  bool isPlain() const { return parts.size() == 1; }
};

struct KernelGemm {
  Extent m, n, k;
  Type element; // of every operand
  /// The contractions' operand format (the op's precision attribute), when
  /// it has one.
  std::optional<Precision> precision;
  /// tf32 products whose operands reach the tensor core rounded to tf32
  /// (the op's kTf32RoundedAttr, fmlp-round-tf32-weights): the WGMMA
  /// kernel rounds what it stages (WgmmaGemmSpec::roundsTf32).
  bool tf32Rounded = false;
  GemmOperand a;
  SmallVector<GemmOperand> b; // one per accumulator
  /// The operand whose first dimension is T (the launch's grid follows it).
  Value tokenOperand;
  /// Whether the outputs are each one buffer TMA may address (not K5's
  /// [dWg; dWu], two buffers under one view).
  bool outputsMappable = true;
};

/// The unit attribute fmlp-round-tf32-weights puts on a GEMM kernel op
/// whose tf32 operands it prepared for rounding to nearest: the weights it
/// reads K-major by TMA come rounded from global memory, and its WGMMA
/// kernel rounds the operands it stages itself.
inline constexpr llvm::StringLiteral kTf32RoundedAttr = "fmlp.tf32_rounded";

/// The GEMM of a kernel op (every kernel op but bias_grad, a column sum).
KernelGemm describeGemm(Operation *kernelOp);

/// Whether `gemm` takes tf32 products of rounded operands (the op's
/// kTf32RoundedAttr) with A K-major and every part of each B_j a rounded
/// copy of a weight that an fmlp.round_to_tf32 writes: a WGMMA kernel of
/// it may read the weights as stored instead and round them in its stages
/// (KernelConfig::roundsInStages).
bool readsRoundedWeightCopies(const KernelGemm &gemm);
/// Whether `gemm` has fp32 operands, A K-major and every part of every B_j
/// a K-major copy of a weight that fmlp-transpose-weights transposed: a
/// WGMMA kernel may read the weights MN-major as stored and transpose
/// them in its stages (KernelConfig::transposesInStages).
bool readsTransposedWeightCopies(const KernelGemm &gemm);

/// What tile selection reads of a kernel op's GEMM (codegen/TileSelection.h):
/// its element, precision and accumulators, whether TMA can read its
/// operands (and which are K-major), which strategies' operand rules it
/// meets, its static extents. fmlp-select-tiles chooses by it, and
/// fmlp-transpose-weights asks the same rule what the op would take.
GemmShape describeGemmShape(Operation *kernelOp);

/// The module's fmlp.target and the strategy `strategy` names, for the
/// passes that ask the tile rule (`pass` names the one asking); failure
/// with an error on `module` when it has no target (fmlp-attach-target
/// not run) or the name is not auto, mma_sync or simt.
LogicalResult readTargetAndStrategy(ModuleOp module, StringRef pass,
                                    StringRef strategy, TargetAttr &target,
                                    StrategyChoice &choice);

/// Why the small_tokens strategy (codegen/KernelBuilder.h) cannot compute
/// `gemm`, or "": M must be T, A and each B_j K-major buffers read in
/// 16-byte pieces (one, or parts concatenated along k, each starting at a
/// multiple of a piece: an adapter's [x | Z] and [Wg | Bg]), the elements
/// 16-bit, K a multiple of 16 and N of 16.
std::string notSmallTokensReady(const KernelGemm &gemm);

/// Why the mma_sync strategy (codegen/KernelBuilder.h) cannot stage
/// `gemm`'s operands, or "": 16-bit or fp32 elements; every part stored
/// with a unit inner stride, rows and offset 16-byte aligned (cp.async
/// pieces of 16 bytes along its contiguous index, k or m/n alike), and two
/// parts concatenated along that index split at a multiple of a piece.
std::string notMmaSyncReady(const KernelGemm &gemm);

/// A view the WGMMA strategy reads through a tensor map: `cols` columns of
/// it (more than its type's when two adjacent views are read as one, K4's
/// and K5's [dG dU]), K-major or MN-major, boxes of `boxRows` rows x
/// `boxCols` columns (128 bytes of them: one WGMMA stage row of k, 64
/// 16-bit or 32 fp32 elements; 64 m/n of an MN-major or output view).
struct TmaView {
  Value view;
  int64_t cols = 0;
  bool kMajor = true;
  int64_t boxRows = 0, boxCols = 0;
};

/// How the WGMMA strategy reads a GEMM's operands: the tensor maps (in
/// parameter order) and the operands A, B_j that use them; and the maps
/// (boxes of 64 x 64) of the outputs TMA can address, through which the
/// epilogue moves its staged blocks (WgmmaGemmSpec::outputMaps).
struct TmaPlan {
  SmallVector<TmaView> maps;
  WgmmaOperand a;
  SmallVector<WgmmaOperand> b;
  SmallVector<std::pair<Value, unsigned>> outputMaps; // memref, map
};

/// Whether a plan maps the outputs an epilogue may stage by TMA (the
/// WGMMA kernels'), or the operands alone (the mma_sync kernels', whose
/// epilogue stores by threads).
enum class OutputMaps { planned, none };

/// The plan of `kernelOp`'s GEMM for tiles of 128 x tileN, or failure with
/// `whyNot` set: an operand TMA cannot address, a concatenation the
/// strategy cannot split, or an MN-major operand of fp32 elements (WGMMA
/// multiplies them as tf32, which it reads K-major only).
FailureOr<TmaPlan> planTma(Operation *kernelOp, const KernelGemm &gemm,
                           int64_t tileN, std::string &whyNot,
                           OutputMaps outputs = OutputMaps::planned);

} // namespace mlir::fmlp

#endif // FMLP_PASSES_KERNELGEMM_H
