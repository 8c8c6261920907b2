//===- TileSelection.h - Tile and stage choice per kernel -------*- C++ -*-===//
//
// Which instantiation of the GEMM skeleton a kernel takes on a chip, and
// its tiles and pipeline depth, such that it fits the chip's shared memory
// per block and its register file. The rule:
//
//   WGMMA (sm_90a only): 16-bit operands, both K-major and TMA-addressable
//     (16-byte aligned rows and views); tile 128 x (256 / accumulators) x
//     64, as many stages (at most 6) as the shared memory takes. When M and
//     N are static (the weight gradients, whose K is T) the grid is known:
//     a narrower tile (192 or 128) is taken when it cuts waves x width, the
//     time of the busiest multiprocessor, by at least 10 %.
//   SIMT otherwise: fp32 FMA, 64 x 64 x 16 tiles, any chip, any strides.
//
// fmlp-select-tiles records the choice on each kernel op; convert-fmlp-to-
// nvvm follows it.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_LIB_CODEGEN_TILESELECTION_H
#define FMLP_LIB_CODEGEN_TILESELECTION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Types.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::fmlp {

/// Shared memory one block may use on `chip`: sm_90a 232448, sm_80 166912,
/// sm_86/sm_89/sm_120 101376 bytes (48 KiB for a chip fmlp does not know).
int64_t sharedMemoryPerBlock(StringRef chip);
/// Whether `chip` has WGMMA (sm_90a: the architecture-specific target).
bool hasWgmma(StringRef chip);
/// Multiprocessors of the largest part of `chip` (sm_90a: H100 SXM and
/// H200, 132), which the tile choice fills in waves; 0 where fmlp does not
/// choose tiles by waves.
int64_t multiprocessorCount(StringRef chip);

enum class KernelPath { Simt, Wgmma };

struct KernelConfig {
  KernelPath path = KernelPath::Simt;
  int64_t tileM = 64, tileN = 64, tileK = 16, stages = 1;
  /// Per block: the ring (or SIMT tiles) and its barriers. The WGMMA
  /// lowering may add an epilogue hand-off area past the ring where it fits
  /// (WgmmaGemm.cpp, StagingPlan); a bundle's manifest has the launch's
  /// exact dynamic shared bytes.
  int64_t sharedBytes = 0;
  int64_t maxRegisters = 0; // per thread
  std::string reason;       // why this path (for remarks and tests)

  DictionaryAttr toAttr(MLIRContext *context) const;
  static std::optional<KernelConfig> fromAttr(DictionaryAttr attr);
};

/// What the selection needs to know of one GEMM.
struct GemmShape {
  Type element;
  unsigned accumulators = 1;
  /// Both operands K-major with 16-byte aligned rows and views (TMA boxes).
  bool tmaReady = false;
  std::string notTmaReady; // why not, when !tmaReady
  /// M and N when both are static (0 when either is T).
  int64_t rows = 0, cols = 0;
};

KernelConfig selectGemmConfig(StringRef chip, const GemmShape &shape);

} // namespace mlir::fmlp

#endif // FMLP_LIB_CODEGEN_TILESELECTION_H
