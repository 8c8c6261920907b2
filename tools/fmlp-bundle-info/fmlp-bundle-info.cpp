//===- fmlp-bundle-info.cpp - What a bundle holds, as the runtime sees it -===//
//
// Opens a bundle with fmlp's runtime (no MLIR) and prints its chip, entry
// points, their arguments and the bytes of saved activations and workspace
// each needs for --tokens; with --load, also loads it into a CUDA context
// (the first device's primary context) and reports the outcome.
//
//   fmlp-bundle-info mlp.bundle [--tokens=4096] [--load]
//
//===----------------------------------------------------------------------===//

#include "fmlp/Runtime.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char **argv) {
  std::string path;
  long long tokens = 4096;
  bool load = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--tokens=", 9) == 0)
      tokens = std::atoll(argv[i] + 9);
    else if (std::strcmp(argv[i], "--load") == 0)
      load = true;
    else
      path = argv[i];
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: %s BUNDLE [--tokens=T] [--load]\n", argv[0]);
    return 2;
  }
  try {
    fmlp::Bundle bundle(path);
    std::printf("bundle %s: chip %s, %d entry points, compiled by %s\n",
                path.c_str(), fmlp_bundle_chip(bundle.get()),
                fmlp_entry_count(bundle.get()),
                *fmlp_bundle_compiler(bundle.get())
                    ? fmlp_bundle_compiler(bundle.get())
                    : "an fmlp before 0.2.0 (not recorded)");
    for (int e = 0; e < fmlp_entry_count(bundle.get()); ++e) {
      std::printf(
          "entry %s (%s): %lld B saved + workspace at T = %lld\n",
          fmlp_entry_symbol(bundle.get(), e), fmlp_entry_kind(bundle.get(), e),
          static_cast<long long>(bundle.workspaceBytes(e, tokens)), tokens);
      for (const fmlp_argument_info &a : bundle.arguments(e)) {
        std::string shape = a.shape[0] < 0 ? "T" : std::to_string(a.shape[0]);
        if (a.rank == 2)
          shape += ", " + std::to_string(a.shape[1]);
        std::printf("  %-10s %-9s %-4s [%s] align %d%s\n", a.name,
                    fmlp_role_name(a.role), fmlp_dtype_name(a.dtype),
                    shape.c_str(), a.alignment, a.consumed ? " consumed" : "");
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
