//===- TileSelection.cpp - Tile and stage choice per kernel ---------------===//

#include "lib/CodeGen/TileSelection.h"

#include "lib/CodeGen/KernelBuilder.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fmlp;

namespace {
constexpr int64_t kMaxStages = 6;

/// The WGMMA tile width per accumulator. Two accumulators fill the widest
/// WGMMA (256) at 128. One takes 256 unless the grid is static and a
/// narrower tile makes the busiest multiprocessor's work, waves x width,
/// at least 10 % smaller (D = 1024, H = 2816: K6's 8 x 11 tiles of 256 are
/// 88 blocks on 132 multiprocessors, its 8 x 15 of 192 are 120: 25 % less).
int64_t wgmmaTileN(StringRef chip, const GemmShape &shape) {
  if (shape.accumulators != 1)
    return 256 / shape.accumulators;
  int64_t multiprocessors = multiprocessorCount(chip);
  int64_t best = 256;
  if (!shape.rows || !shape.cols || !multiprocessors)
    return best;
  auto cost = [&](int64_t tileN) {
    int64_t tiles = llvm::divideCeil(shape.rows, kWgmmaTileM) *
                    llvm::divideCeil(shape.cols, tileN);
    return llvm::divideCeil(tiles, multiprocessors) * tileN;
  };
  for (int64_t narrower : {192, 128})
    if (10 * cost(narrower) <= 9 * cost(best))
      best = narrower;
  return best;
}
} // namespace

int64_t mlir::fmlp::sharedMemoryPerBlock(StringRef chip) {
  if (chip.starts_with("sm_90"))
    return 232448;
  if (chip == "sm_80" || chip == "sm_87")
    return 166912;
  if (chip == "sm_86" || chip == "sm_89" || chip.starts_with("sm_12"))
    return 101376;
  return 49152;
}

bool mlir::fmlp::hasWgmma(StringRef chip) { return chip == "sm_90a"; }

int64_t mlir::fmlp::multiprocessorCount(StringRef chip) {
  return chip.starts_with("sm_90") ? 132 : 0;
}

DictionaryAttr KernelConfig::toAttr(MLIRContext *context) const {
  Builder b(context);
  return b.getDictionaryAttr({
      b.getNamedAttr("path", b.getStringAttr(
                                 path == KernelPath::Wgmma ? "wgmma" : "simt")),
      b.getNamedAttr("tile_m", b.getI64IntegerAttr(tileM)),
      b.getNamedAttr("tile_n", b.getI64IntegerAttr(tileN)),
      b.getNamedAttr("tile_k", b.getI64IntegerAttr(tileK)),
      b.getNamedAttr("stages", b.getI64IntegerAttr(stages)),
      b.getNamedAttr("shared_bytes", b.getI64IntegerAttr(sharedBytes)),
      b.getNamedAttr("max_registers", b.getI64IntegerAttr(maxRegisters)),
      b.getNamedAttr("reason", b.getStringAttr(reason)),
  });
}

std::optional<KernelConfig> KernelConfig::fromAttr(DictionaryAttr attr) {
  if (!attr)
    return std::nullopt;
  auto path = attr.getAs<StringAttr>("path");
  if (!path || (path.getValue() != "wgmma" && path.getValue() != "simt"))
    return std::nullopt;
  KernelConfig config;
  config.path =
      path.getValue() == "wgmma" ? KernelPath::Wgmma : KernelPath::Simt;
  for (auto [name, field] :
       {std::pair{"tile_m", &config.tileM}, std::pair{"tile_n", &config.tileN},
        std::pair{"tile_k", &config.tileK}, std::pair{"stages", &config.stages},
        std::pair{"shared_bytes", &config.sharedBytes},
        std::pair{"max_registers", &config.maxRegisters}}) {
    auto value = attr.getAs<IntegerAttr>(name);
    if (!value)
      return std::nullopt;
    *field = value.getInt();
  }
  if (auto reason = attr.getAs<StringAttr>("reason"))
    config.reason = reason.getValue().str();
  return config;
}

KernelConfig mlir::fmlp::selectGemmConfig(StringRef chip,
                                          const GemmShape &shape) {
  int64_t limit = sharedMemoryPerBlock(chip);
  bool sixteenBit =
      shape.element && (shape.element.isBF16() || shape.element.isF16());
  std::string why;
  if (!hasWgmma(chip))
    why = chip.str() + " has no WGMMA";
  else if (!sixteenBit)
    why = "fp32 operands take the IEEE fp32 SIMT path";
  else if (!shape.tmaReady)
    why = shape.notTmaReady;

  if (why.empty()) {
    WgmmaGemmSpec spec;
    spec.b.resize(shape.accumulators);
    spec.tileN = wgmmaTileN(chip, shape);
    int64_t stages = kMaxStages;
    for (; stages >= 2; --stages) {
      spec.stages = stages;
      if (wgmmaSharedBytes(spec) <= limit)
        break;
    }
    if (stages >= 2) {
      KernelConfig config;
      config.path = KernelPath::Wgmma;
      config.tileM = kWgmmaTileM;
      config.tileN = spec.tileN;
      config.tileK = kWgmmaTileK;
      config.stages = stages;
      config.sharedBytes = wgmmaSharedBytes(spec);
      config.maxRegisters = kWgmmaMaxRegisters;
      config.reason = "16-bit operands in TMA-addressable views on sm_90a";
      return config;
    }
    why = "no two WGMMA stages fit " + chip.str() + "'s shared memory";
  }
  KernelConfig config;
  config.tileM = config.tileN = kSimtTile;
  config.tileK = kSimtTileK;
  config.sharedBytes = simtSharedBytes(shape.accumulators);
  config.maxRegisters = kSimtMaxRegisters;
  config.reason = why;
  return config;
}
