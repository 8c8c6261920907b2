// A serving program's use of an installed fmlp runtime (C API, no MLIR):
// open a bundle, find its entry points and the bytes they need for T tokens.
// Loading needs a GPU; without one it must fail with a named error.
#include "fmlp/Runtime.h"

#include <cstdio>
#include <cstring>
#include <initializer_list>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: run-with-fmlp mlp.bundle\n");
    return 2;
  }
  fmlp_bundle *bundle = nullptr;
  if (fmlp_bundle_open(argv[1], &bundle) != FMLP_OK) {
    std::fprintf(stderr, "run-with-fmlp: %s\n", fmlp_last_error());
    return 1;
  }
  for (const char *kind : {"forward", "backward", "forward_nograd"}) {
    int entry = -1;
    int64_t bytes = -1;
    if (fmlp_entry_find(bundle, kind, &entry) != FMLP_OK ||
        fmlp_workspace_bytes(bundle, entry, 4096, &bytes) != FMLP_OK) {
      std::fprintf(stderr, "run-with-fmlp: %s\n", fmlp_last_error());
      return 1;
    }
    std::printf("%s: %d arguments, %lld bytes beyond inputs at T = 4096\n",
                kind, fmlp_argument_count(bundle, entry),
                static_cast<long long>(bytes));
  }
  fmlp_status loaded = fmlp_bundle_load(bundle);
  std::printf("load on chip %s: %s%s%s\n", fmlp_bundle_chip(bundle),
              fmlp_status_name(loaded), loaded ? ": " : "",
              loaded ? fmlp_last_error() : "");
  fmlp_bundle_close(bundle);
  // Without a driver the load must fail with a message; with one, succeed.
  return loaded == FMLP_OK || std::strlen(fmlp_last_error()) > 0 ? 0 : 1;
}
