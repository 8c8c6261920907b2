//===- Bundle.h - Kernel bundles: what the runtime loads --------*- C++ -*-===//
//
// A bundle is a directory:
//
//   manifest.json   format "fmlp-bundle", version kBundleVersion, the target
//                   chip, the entry points (arguments with names, element
//                   types, shapes with -1 for T, flags; launches in order,
//                   each naming its kernel, its grid as functions of T and
//                   its parameters as entry arguments + element offsets or
//                   T, and the range of T it serves when the launch op
//                   has fmlp.min_tokens / fmlp.max_tokens; the launches
//                   in the token-chunk loop are per-chunk, each pointer
//                   saying how many elements it moves per token of the
//                   chunk's start), and the images' file names;
//   kernels.ptx     the PTX of every kernel (always);
//   kernels.cubin   the same assembled by ptxas for the chip (when ptxas is
//                   present), with ptxas.log, its -v report.
//
// The format is documented for readers in docs/Bundle.md; the runtime
// (runtime/) parses it with no MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_LIB_PIPELINE_BUNDLE_H
#define FMLP_LIB_PIPELINE_BUNDLE_H

#include "fmlp/Runtime.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::fmlp {

/// The format written: the one the runtime reads (one definition, in the
/// runtime's C header).
constexpr int kBundleVersion = FMLP_BUNDLE_VERSION;

/// One kernel as `ptxas -v` reported it.
struct KernelResources {
  std::string name;
  int64_t registers = 0, stackBytes = 0, spillStoreBytes = 0,
          spillLoadBytes = 0, sharedBytes = 0;
  /// ptxas's note that it had to change the kernel's WGMMA pipeline
  /// (C7515: WGMMAs serialized, C7519: a fence injected), or "".
  std::string wgmmaNote;
};
std::vector<KernelResources> parsePtxasReport(StringRef report);

struct BundleOptions {
  std::string chip = "sm_90a";
  std::string cudaPath = "/usr/local/cuda";
  /// Fail when a kernel spills, has a stack frame, exceeds the chip's
  /// shared memory or has its WGMMA pipeline changed by ptxas (the ptxas
  /// check).
  bool checkResources = true;
};

/// Writes the bundle of `module` (after buildGpuPipeline) to `directory`.
/// `log` receives ptxas' per-kernel report. Errors name what is wrong.
/// The bundle appears whole or not at all: its files are written into a new
/// directory beside `directory`, renamed into place once all are written,
/// and removed on failure. An existing `directory` is replaced only if it
/// is a bundle (holds a manifest.json); on failure it is left as it was.
LogicalResult writeBundle(ModuleOp module, StringRef directory,
                          const BundleOptions &options, llvm::raw_ostream &log,
                          std::string &error);

} // namespace mlir::fmlp

#endif // FMLP_LIB_PIPELINE_BUNDLE_H
