//===- FMLPAttrs.cpp - fmlp attribute helpers -----------------------------===//
//
// The enum attributes' generated code and the helpers declared in FMLPAttrs.h.
//
//===----------------------------------------------------------------------===//

#include "dialects/FMLP/FMLPAttrs.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::fmlp;

#include "dialects/FMLP/FMLPEnums.cpp.inc"

ProjectionExtents mlir::fmlp::getProjectionExtents(WeightLayout layout,
                                                   ArrayRef<int64_t> shape) {
  assert(shape.size() == 2 && "a projection weight is 2-D");
  switch (layout) {
  case WeightLayout::in_out:
    return {shape[0], shape[1]};
  case WeightLayout::out_in:
    return {shape[1], shape[0]};
  }
  llvm_unreachable("unknown weight layout");
}

SmallVector<int64_t, 2> mlir::fmlp::getWeightShape(WeightLayout layout,
                                                   ProjectionExtents extents) {
  switch (layout) {
  case WeightLayout::in_out:
    return {extents.in, extents.out};
  case WeightLayout::out_in:
    return {extents.out, extents.in};
  }
  llvm_unreachable("unknown weight layout");
}

bool mlir::fmlp::isTf32Precision(Precision precision) {
  return precision == Precision::tf32 || precision == Precision::tf32x3;
}

Precision mlir::fmlp::getElementPrecision(Type element) {
  if (element && element.isBF16())
    return Precision::bf16;
  if (element && element.isF16())
    return Precision::f16;
  return Precision::ieee;
}

bool mlir::fmlp::isFloat32Precision(Precision precision) {
  switch (precision) {
  case Precision::bf16:
  case Precision::f16:
    return false;
  case Precision::tf32:
  case Precision::tf32x3:
  case Precision::ieee:
  case Precision::highest:
    return true;
  }
  llvm_unreachable("unknown precision");
}

Precision mlir::fmlp::getProductFormat(Precision precision, bool tensorCores) {
  if (precision != Precision::highest)
    return precision;
  return tensorCores ? Precision::tf32x3 : Precision::ieee;
}

TargetAttr mlir::fmlp::getTarget(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto target = op->getAttrOfType<TargetAttr>(TargetAttr::kName))
      return target;
  return {};
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   StringRef chip) {
  if (!findTarget(chip))
    return emitError() << unknownTargetMessage(chip);
  return success();
}

const Target &TargetAttr::getInfo() const { return *findTarget(getChip()); }

LogicalResult
KernelConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         KernelStrategy strategy, ArrayRef<int64_t> tile,
                         int64_t stages, ArrayRef<int64_t> cluster,
                         int64_t sharedBytes, int64_t maxRegisters,
                         StringRef reason, int64_t maxTokens, int64_t splitK,
                         bool roundsInStages, bool transposesInStages,
                         bool stagesByTma) {
  if (stagesByTma && strategy != KernelStrategy::mma_sync)
    return emitError() << "stages_by_tma: only an mma_sync kernel chooses "
                          "how it stages its operands";
  if (roundsInStages && strategy != KernelStrategy::wgmma)
    return emitError() << "rounds_in_stages: only a wgmma kernel rounds its "
                          "operands in its stages";
  if (transposesInStages && strategy != KernelStrategy::wgmma)
    return emitError() << "transposes_in_stages: only a wgmma kernel "
                          "transposes its operands in its stages";
  if (splitK < 1)
    return emitError() << "split_k must be at least 1 (1: K is not split)";
  if (splitK > 1 && strategy != KernelStrategy::wgmma)
    return emitError() << "split_k = " << splitK
                       << ": only a wgmma kernel splits K";
  if (maxTokens < 0)
    return emitError() << "max_tokens must be non-negative (0: any T)";
  if (tile.size() != 3 || llvm::any_of(tile, [](int64_t v) { return v <= 0; }))
    return emitError() << "tile must be three positive extents (M, N, K)";
  if (cluster.size() != 2 ||
      llvm::any_of(cluster, [](int64_t v) { return v <= 0; }))
    return emitError() << "cluster must be two positive extents (M, N)";
  // 8 blocks: the portable cluster size (CUDA's guarantee on every chip
  // with clusters).
  if (cluster[0] * cluster[1] > 8)
    return emitError() << "a cluster of " << cluster[0] * cluster[1]
                       << " blocks is over the portable 8";
  if (stages < 1)
    return emitError() << "stages must be at least 1";
  if (sharedBytes < 0)
    return emitError() << "shared_bytes must be non-negative";
  if (maxRegisters < 0 || maxRegisters > 255)
    return emitError() << "max_registers must be in [0, 255] (0: no cap)";
  switch (strategy) {
  case KernelStrategy::simt:
    if (stages != 1)
      return emitError() << "a simt kernel has one stage";
    break;
  case KernelStrategy::wgmma:
    // Two consumer warpgroups of m64 WGMMAs; n a multiple of 8 up to 256;
    // k-steps through 128-byte swizzled rows: 64 16-bit elements (k16
    // instructions) or 32 fp32 ones (tf32, k8). Which of the two the
    // operands take, convert-fmlp-to-nvvm checks.
    if (tile[0] != 128 || tile[1] % 8 || tile[1] > 256 ||
        (tile[2] != 64 && tile[2] != 32))
      return emitError() << "a wgmma tile is 128 x N x K with N a multiple "
                            "of 8 up to 256 and K a 128-byte row (64 16-bit "
                            "or 32 fp32 elements)";
    if (stages < 2)
      return emitError() << "a wgmma kernel needs at least two stages";
    break;
  case KernelStrategy::small_tokens:
    // 16 or 32 tokens (token tiles of m16n8k16's n = 8, two per epilogue
    // pass) x 16 output columns (32 for 16 tokens: 16 warps a block), k in
    // chunks of 32 (one 16-byte piece of four threads).
    if ((tile[0] != 16 && tile[0] != 32) ||
        (tile[1] != 16 && !(tile[1] == 32 && tile[0] == 16)) ||
        tile[2] != 32 || stages != 1)
      return emitError() << "a small_tokens kernel has tile 16 x 16 x 32, "
                            "16 x 32 x 32 or 32 x 16 x 32 and one stage";
    if (maxTokens != tile[0])
      return emitError() << "a small_tokens kernel serves T <= its tile M "
                            "(max_tokens = tile M)";
    break;
  case KernelStrategy::mma_sync:
    // 8 warps on 128 rows x 256, 192 or 128 columns (tile N per
    // accumulator: 256, 192, 128 or 64: the lowering checks it against the
    // accumulators), k-tiles of 64- or 128-byte rows through a cp.async or
    // TMA ring (16 or 32 fp32 elements, 32 or 64 16-bit ones: the lowering
    // checks which).
    if (tile[0] != 128 ||
        !llvm::is_contained(
            {int64_t(256), int64_t(192), int64_t(128), int64_t(64)}, tile[1]) ||
        (tile[2] != 16 && tile[2] != 32 && tile[2] != 64))
      return emitError() << "an mma_sync tile is 128 x N x K with N 256, 192, "
                            "128 or 64 (256, 192 or 128 columns over the "
                            "accumulators), K 16, 32 or 64";
    if (stages < 2)
      return emitError() << "an mma_sync kernel needs at least two stages";
    break;
  }
  return success();
}
