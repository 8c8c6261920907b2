//===- Target.h - The GPUs fmlp generates kernels for -----------*- C++ -*-===//
//
// One table of the chips `--chip` names, with what the code generator and
// the bundle writer need to know of each: the resources tile selection fits
// (shared memory per block, registers), the multiprocessors it fills in
// waves, the MMA families and copy engines a kernel strategy may use, and
// the PTX ISA version and ptxas architecture to emit. The chip is looked up
// here once (fmlp-attach-target puts it on the module as #fmlp.target);
// every later stage reads this row, never the name. Plain C++ without MLIR,
// so that the runtime and the tools share it.
//
// Counts are those of one representative product per row (named in it);
// shared memory per block is the opt-in maximum (cudaFuncAttribute-
// MaxDynamicSharedMemorySize plus static), per multiprocessor the carveout
// maximum (CUDA C Programming Guide, "Compute Capabilities", table 21).
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_TARGET_H
#define FMLP_TARGET_H

#include <cstdint>
#include <string>
#include <string_view>

namespace mlir::fmlp {

/// The matrix-multiply instruction families of PTX, as a bit set.
enum MmaFamily : unsigned {
  kMmaSync = 1u << 0, // mma.sync (warp-level; sm_80 onwards)
  kWgmma = 1u << 1,   // wgmma.mma_async (warpgroup; sm_90a only)
  kTcgen05 = 1u << 2, // tcgen05.mma (tensor memory; sm_100a, sm_103a)
};

struct Target {
  std::string_view chip;    // what --chip takes: sm_90a
  std::string_view product; // the part the counts below are of
  int major, minor;         // compute capability
  /// An 'a' target: its PTX runs on exactly this capability (and gains the
  /// architecture-specific instructions: wgmma, tcgen05, setmaxnreg).
  bool archSpecific;
  int multiprocessors;
  int64_t sharedBytesPerBlock; // opt-in maximum
  int64_t sharedBytesPerMultiprocessor;
  int registersPerMultiprocessor; // 32-bit
  int registersPerThread;
  unsigned mma;  // MmaFamily bits
  bool tma;      // cp.async.bulk.tensor (sm_90 onwards)
  bool clusters; // thread block clusters (sm_90 onwards)
  /// PTX ISA version to emit, x10 (80: .version 8.0): the lowest that LLVM
  /// 22's NVPTX backend accepts for the chip, but never below 8.0, which the
  /// kernels of sm_80..sm_90a have always been emitted with.
  int ptxVersion;
  std::string_view ptxasArch; // ptxas -arch=

  bool has(MmaFamily family) const { return mma & family; }
  /// Shared memory the chip reserves for each resident block: the opt-in
  /// maximum is the multiprocessor's less one such reservation.
  int64_t sharedBytesReservedPerBlock() const {
    return sharedBytesPerMultiprocessor - sharedBytesPerBlock;
  }
  /// griddepcontrol, programmatic dependent launch (sm_90 onwards): a
  /// kernel may be launched while the one before it on the stream ends.
  bool programmaticLaunch() const { return major >= 9; }
  /// The NVPTX feature string of the PTX version: "+ptx80".
  std::string ptxFeature() const {
    return "+ptx" + std::to_string(ptxVersion);
  }
};

// clang-format off
/// Every chip fmlp knows, oldest first. 65,536 registers per multiprocessor
/// and 255 per thread on every row.
inline constexpr Target kTargets[] = {
  // chip      product                          cc    'a'    SMs  smem/block smem/SM  regs/SM regs/thr mma                            tma    clusters ptx ptxas
  {"sm_80",   "A100 SXM",                       8, 0, false, 108, 166912, 167936, 65536, 255, kMmaSync,                     false, false,   80, "sm_80"},
  {"sm_86",   "RTX 3090 (A10: 72 SMs)",         8, 6, false,  82, 101376, 102400, 65536, 255, kMmaSync,                     false, false,   80, "sm_86"},
  {"sm_89",   "L40S (RTX 4090: 128 SMs)",       8, 9, false, 142, 101376, 102400, 65536, 255, kMmaSync,                     false, false,   80, "sm_89"},
  {"sm_90",   "H100 SXM / H200",                9, 0, false, 132, 232448, 233472, 65536, 255, kMmaSync,                     true,  true,    80, "sm_90"},
  {"sm_90a",  "H100 SXM / H200",                9, 0, true,  132, 232448, 233472, 65536, 255, kMmaSync | kWgmma,            true,  true,    80, "sm_90a"},
  {"sm_100",  "B200",                          10, 0, false, 148, 232448, 233472, 65536, 255, kMmaSync,                     true,  true,    86, "sm_100"},
  {"sm_100a", "B200",                          10, 0, true,  148, 232448, 233472, 65536, 255, kMmaSync | kTcgen05,          true,  true,    86, "sm_100a"},
  {"sm_103",  "B300 (SM count assumed as B200)",10, 3, false, 148, 232448, 233472, 65536, 255, kMmaSync,                     true,  true,    88, "sm_103"},
  {"sm_103a", "B300 (SM count assumed as B200)",10, 3, true,  148, 232448, 233472, 65536, 255, kMmaSync | kTcgen05,          true,  true,    88, "sm_103a"},
  {"sm_120",  "RTX 5090",                      12, 0, false, 170, 101376, 102400, 65536, 255, kMmaSync,                     true,  true,    87, "sm_120"},
  {"sm_120a", "RTX 5090",                      12, 0, true,  170, 101376, 102400, 65536, 255, kMmaSync,                     true,  true,    87, "sm_120a"},
};
// clang-format on

/// The row of `chip`, or nullptr when fmlp does not know it.
constexpr const Target *findTarget(std::string_view chip) {
  for (const Target &target : kTargets)
    if (target.chip == chip)
      return &target;
  return nullptr;
}

/// "sm_80, sm_86, ...": for errors that name an unknown chip.
inline std::string knownTargetNames() {
  std::string names;
  for (const Target &target : kTargets)
    names += (names.empty() ? "" : ", ") + std::string(target.chip);
  return names;
}

/// The error for a chip the table lacks, naming the ones it has.
inline std::string unknownTargetMessage(std::string_view chip) {
  return "unknown chip '" + std::string(chip) + "': fmlp knows " +
         knownTargetNames();
}

/// The chip to compile for a device of compute capability major.minor: the
/// architecture-specific row where it has an MMA family the plain row lacks
/// (sm_90a's WGMMA, sm_100a's tcgen05; its PTX then runs on exactly that
/// capability), else the plain one (whose PTX later chips also run). A
/// capability the table lacks takes the plain row of the same major with
/// the highest minor below it (sm_87, Jetson Orin: sm_86; sm_121, GB10:
/// sm_120), whose PTX the driver compiles for the device (the runtime loads
/// a bundle's PTX on a later chip): a later minor revision has at least the
/// earlier one's shared memory and registers, which the row's tiles are
/// sized by. nullptr for a major the table lacks (sm_75 and older: no bf16
/// tensor cores).
constexpr const Target *targetForCapability(int major, int minor) {
  const Target *plain = nullptr, *specific = nullptr, *earlier = nullptr;
  for (const Target &target : kTargets) {
    if (target.major != major)
      continue;
    if (target.minor == minor)
      (target.archSpecific ? specific : plain) = &target;
    else if (target.minor < minor && !target.archSpecific &&
             (!earlier || target.minor > earlier->minor))
      earlier = &target;
  }
  if (specific && (!plain || specific->mma != plain->mma))
    return specific;
  return plain ? plain : earlier;
}

} // namespace mlir::fmlp

#endif // FMLP_TARGET_H
