//===- fmlp-bundle-info.cpp - What a bundle holds, as the runtime sees it -===//
//
// Opens a bundle with fmlp's runtime (no MLIR) and prints its chip, entry
// points, their arguments and the bytes of saved activations and workspace
// each needs for --tokens; with --load, also loads it into a CUDA context
// (the first device's primary context) and reports the outcome.
//
//   fmlp-bundle-info mlp.bundle [--tokens=4096] [--load]
//
// The runtime is all it uses of fmlp; its command line is LLVM's (llvm::cl),
// like the other tools'.
//
//===----------------------------------------------------------------------===//

#include "fmlp/Runtime.hpp"
#include "tools/common/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

#include <cstdio>
#include <string>

namespace {

llvm::cl::opt<std::string> bundlePath(llvm::cl::Positional,
                                      llvm::cl::desc("<bundle directory>"),
                                      llvm::cl::Required,
                                      llvm::cl::cat(mlir::fmlp::getToolCategory()));
llvm::cl::opt<int64_t>
    tokensOption("tokens",
                 llvm::cl::desc("Tokens T of the saved and workspace sizes"),
                 llvm::cl::init(4096), llvm::cl::cat(mlir::fmlp::getToolCategory()));
llvm::cl::opt<bool> load("load",
                         llvm::cl::desc("Also load the bundle into the first "
                                        "CUDA device's primary context"),
                         llvm::cl::init(false),
                         llvm::cl::cat(mlir::fmlp::getToolCategory()));

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::fmlp::setVersionPrinter("fmlp-bundle-info");
  mlir::fmlp::hideUnrelatedOptions(/*keepMlirDebugging=*/false);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "fmlp-bundle-info: what a bundle holds, as the runtime "
                  "sees it\n");
  if (!mlir::fmlp::checkMinimum(tokensOption, 0))
    return 1;
  const std::string &path = bundlePath;
  try {
    fmlp::Bundle bundle(path);
    std::printf("bundle %s: chip %s, %d entry points, compiled by %s\n",
                path.c_str(), fmlp_bundle_chip(bundle.get()),
                fmlp_entry_count(bundle.get()),
                *fmlp_bundle_compiler(bundle.get())
                    ? fmlp_bundle_compiler(bundle.get())
                    : "an fmlp before 0.2.0 (not recorded)");
    for (int e = 0; e < fmlp_entry_count(bundle.get()); ++e) {
      // An entry compiled for one T runs at that T whatever --tokens says.
      long long compiledFor = fmlp_entry_static_tokens(bundle.get(), e);
      long long tokens = compiledFor ? compiledFor : tokensOption;
      long long chunk = fmlp_entry_chunk_tokens(bundle.get(), e);
      std::string chunks =
          chunk ? ", in chunks of " + std::to_string(chunk) + " tokens" : "";
      if (compiledFor)
        chunks += " (compiled for this T only)";
      std::printf("entry %s (%s): %lld B saved + workspace at T = %lld%s, "
                  "%lld B of it used there\n",
                  fmlp_entry_symbol(bundle.get(), e),
                  fmlp_entry_kind(bundle.get(), e),
                  static_cast<long long>(bundle.workspaceBytes(e, tokens)),
                  tokens, chunks.c_str(),
                  static_cast<long long>(bundle.workspaceBytesUsed(e, tokens)));
      std::vector<fmlp_argument_info> arguments = bundle.arguments(e);
      for (size_t i = 0; i < arguments.size(); ++i) {
        const fmlp_argument_info &a = arguments[i];
        std::string shape = a.shape[0] < 0 ? "T" : std::to_string(a.shape[0]);
        if (a.rank == 2)
          shape += ", " + std::to_string(a.shape[1]);
        // A workspace the kernels use only from some T may be null below.
        int64_t firstUse = 1;
        fmlp::check(fmlp_argument_min_tokens(bundle.get(), e,
                                             static_cast<int>(i), &firstUse));
        std::string use;
        if (a.role == FMLP_ROLE_WORKSPACE && firstUse == INT64_MAX)
          use = ", used by no kernel";
        else if (a.role == FMLP_ROLE_WORKSPACE && firstUse > 1)
          use = ", used from T = " + std::to_string(firstUse);
        std::printf("  %-10s %-9s %-4s [%s] align %d%s%s\n", a.name,
                    fmlp_role_name(a.role), fmlp_dtype_name(a.dtype),
                    shape.c_str(), a.alignment, a.consumed ? " consumed" : "",
                    use.c_str());
      }
      // The kernels in launch order, each with the range of T it serves
      // (of a chunk's T for a per-chunk kernel: chunks of C tokens, and the
      // last of T mod C when that is not 0).
      for (int k = 0; k < fmlp_kernel_count(bundle.get(), e); ++k) {
        int64_t min = 0, max = 0;
        fmlp::check(fmlp_kernel_tokens(bundle.get(), e, k, &min, &max));
        std::string upper =
            max == INT64_MAX ? std::string("inf") : std::to_string(max);
        auto serves = [&](long long t) { return min <= t && t <= max; };
        const char *name = fmlp_kernel_name(bundle.get(), e, k);
        if (!fmlp_kernel_per_chunk(bundle.get(), e, k)) {
          std::printf("  kernel %s: T in [%lld, %s], %s at T = %lld\n", name,
                      static_cast<long long>(min), upper.c_str(),
                      serves(tokens) ? "runs" : "not run", tokens);
          continue;
        }
        long long full = tokens / chunk, last = tokens % chunk;
        long long runs = (serves(chunk) ? full : 0) + (last && serves(last));
        std::printf("  kernel %s, per chunk: chunk T in [%lld, %s], runs in "
                    "%lld of %lld chunks at T = %lld\n",
                    name, static_cast<long long>(min), upper.c_str(), runs,
                    full + (last != 0), tokens);
      }
    }
    if (load) {
      bundle.load();
      std::printf("loaded\n");
    }
  } catch (const fmlp::RuntimeError &error) {
    std::fprintf(stderr, "fmlp-bundle-info: %s\n", error.what());
    return 1;
  }
  return 0;
}
