//===- Manifest.h - A bundle's manifest.json, parsed and checked -*- C++
//-*-===//
//
// The runtime's view of a bundle (the format: lib/Pipeline/Bundle.h and
// docs/Bundle.md). parseManifest checks everything a launch later relies
// on (indices in range, shapes, geometry, every number inside the range of
// the field it is read into, every view inside its argument, every size
// within int64), so that a malformed bundle is refused when it is opened,
// never misread when it is launched. What parseManifest establishes, the
// launch path relies on: an Argument's byte size per row (or in all) fits
// int64, and a tensor map's view lies inside its argument for every T.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_RUNTIME_MANIFEST_H
#define FMLP_RUNTIME_MANIFEST_H

#include "fmlp/Runtime.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fmlp::runtime {

struct Argument {
  std::string name;
  fmlp_role role = FMLP_ROLE_INPUT;
  fmlp_dtype dtype = FMLP_F32;
  std::vector<int64_t> shape; // rank 1 or 2; shape[0] == -1 for T rows
  int32_t alignment = 1;
  bool consumed = false;
  /// A workspace no launch lists among its writes (split-K's partials and
  /// counters): written by every launch that refers to it.
  bool scratch = false;
  /// The least minTokens of the launches that refer to it (INT64_MAX: none
  /// does): at fewer T no launch reads or writes it (a per-chunk launch's
  /// chunk has at most T tokens), so a workspace may be passed null there
  /// (tf32's rounded weight copies, read only from the T at which the token
  /// variants that round in their stages hand over).
  int64_t firstUsedTokens = INT64_MAX;

  /// Elements per token row (token arguments) or in all (the others);
  /// times the dtype's bytes, it fits int64 (parseManifest checks).
  int64_t staticElements = 1;

  bool hasTokenRows() const { return !shape.empty() && shape[0] == -1; }
  /// Bytes of the argument at T = `tokens` (>= 0); nullopt when that
  /// overflows int64.
  std::optional<int64_t> bytes(int64_t tokens) const;
  /// Whether a launch at T = `tokens` (>= 0) may use it: every argument but
  /// a workspace no launch uses at that T, which the caller may pass null.
  bool neededAt(int64_t tokens) const {
    return role != FMLP_ROLE_WORKSPACE || tokens >= firstUsedTokens;
  }
};

/// A kernel parameter: T, an argument's pointer moved by `offset`
/// elements, or a tensor map (CUtensorMap, by value) of a view of an
/// argument: `rows` (-1: T) x `cols` elements, rows `rowStride` apart,
/// read in 128-byte swizzled boxes of boxRows x boxCols. Invariants: a
/// pointer's offset is an element of the argument (of its first row for a
/// token argument); a view's last element, offset + (rows - 1) * rowStride
/// + cols - 1, is one of the argument's for every T >= 1 (for T rows:
/// offset + cols <= n and rowStride <= n, n elements per row).
///
/// In a per-chunk launch (Launch::perChunk), T is the chunk's token count
/// Tc <= the entry's chunkTokens, and the view of the chunk from token c0
/// starts offset + tokenStride * c0 elements into the argument: tokenStride
/// is n for an argument of T rows (the view moves by whole rows, c0 + Tc
/// <= T of them: it stays inside, as for T rows above) and 0 for any other
/// (weights, and the workspace every chunk reuses from its row 0); a tensor
/// map's rows -1 are then Tc, and for an argument without T rows the view
/// lies inside it for Tc = chunkTokens.
struct Param {
  enum class Kind { Tokens, Pointer, TensorMap } kind = Kind::Pointer;
  int argument = -1;
  int64_t offset = 0, tokenStride = 0;
  int64_t rows = 0, cols = 0, rowStride = 0, boxRows = 0, boxCols = 0;
};
constexpr size_t kMaxParams = 32;
// The driver's limits on a launch (CUDA C Programming Guide, "Technical
// Specifications per Compute Capability", the same for every chip since
// sm_30): grid and block dimensions, and threads in a block.
constexpr std::array<int64_t, 3> kMaxGrid{2147483647, 65535, 65535};
constexpr std::array<int64_t, 3> kMaxBlock{1024, 1024, 64};
constexpr int64_t kMaxThreads = 1024;

struct Launch {
  std::string kernel;
  // grid[i] = ceil(T / tokensPerBlock[i]) if tokensPerBlock[i] > 0, else
  // fixed[i] (within the driver's grid limits); block[i] within the
  // driver's block limits, 1 to 1024 threads in all; dynamicSharedBytes
  // fits the driver's int.
  std::array<int64_t, 3> tokensPerBlock{}, fixed{}, block{};
  int64_t dynamicSharedBytes = 0;
  std::vector<Param> params;
  // The range of T the launch serves: 1 <= minTokens <= maxTokens
  // (INT64_MAX: no upper bound). An entry point runs, in order, the
  // launches whose range holds T (the compiler gives the variants of one
  // kernel, a small-T one and the usual one, disjoint ranges; nothing here
  // relies on it).
  int64_t minTokens = 1, maxTokens = INT64_MAX;
  // The arguments the launch writes (indices, ascending, no repeats): the
  // manifest's "writes", else every non-input argument among its params.
  // Invariant (parseManifest): none is an input, each is one its params
  // refer to. A launch reads only what its params refer to.
  std::vector<int> writes;
  // Runs once per token chunk, at the chunk's T (the range above is of
  // it); the per-chunk launches of an entry are contiguous.
  bool perChunk = false;
  // The kernel waits for the kernels before it on the stream itself
  // (griddepcontrol.wait before any memory access): it may be launched
  // while they end (programmatic stream serialization).
  bool programmatic = false;
  // The stream it runs on: 0 the caller's, 1 a side stream (Lanes.h; the
  // runtime orders whatever conflicts, so this changes only what may run
  // at the same time).
  int lane = 0;

  std::array<uint64_t, 3> grid(int64_t tokens) const;
  bool serves(int64_t tokens) const {
    return minTokens <= tokens && tokens <= maxTokens;
  }
};

struct Entry {
  std::string symbol, kind;
  int64_t staticTokens = 0; // T of a block compiled for one token count
  // > 0: the per-chunk launches run over chunks of this many tokens (at
  // least one launch is per-chunk); 0: none is.
  int64_t chunkTokens = 0;
  std::vector<Argument> arguments;
  std::vector<Launch> launches;
};

/// The launches of `entry` at T = `tokens` (>= 1), in order: each calls
/// visit(launch, launchTokens, firstToken) and the first status other than
/// FMLP_OK ends the walk and is returned. A launch outside the chunk loop
/// runs at T from token 0 when it serves T; the run of per-chunk launches
/// is repeated for c0 = 0, C, 2C, .. < T (C = chunkTokens), each launch
/// that serves Tc = min(C, T - c0) running at Tc from token c0. The
/// launches of one chunk go to the stream before the next chunk's, so on
/// one stream a chunk's kernels finish before the next chunk's start: the
/// workspace, sized for one chunk, is reused safely, and each weight
/// gradient adds its chunk's sum after the previous chunk's. Allocates
/// nothing.
template <typename Visit>
fmlp_status forEachLaunch(const Entry &entry, int64_t tokens, Visit &&visit) {
  const std::vector<Launch> &launches = entry.launches;
  for (size_t i = 0; i < launches.size();) {
    if (!launches[i].perChunk) {
      if (launches[i].serves(tokens))
        if (fmlp_status status = visit(launches[i], tokens, int64_t(0)))
          return status;
      ++i;
      continue;
    }
    size_t end = i;
    while (end < launches.size() && launches[end].perChunk)
      ++end;
    // first + C < T when the loop goes on: no overflow.
    for (int64_t first = 0;; first += entry.chunkTokens) {
      int64_t chunk = std::min(entry.chunkTokens, tokens - first);
      for (size_t j = i; j < end; ++j)
        if (launches[j].serves(chunk))
          if (fmlp_status status = visit(launches[j], chunk, first))
            return status;
      if (tokens - first <= entry.chunkTokens)
        break;
    }
    i = end;
  }
  return FMLP_OK;
}

struct Manifest {
  int64_t version = 0;
  std::string compiler; // "fmlp 0.2.0"; empty for bundles that predate it
  std::string chip;
  int chipVersion = 0;       // 10 X + Y of sm_XY
  bool archSpecific = false; // sm_90a: the cubin and PTX run on 9.0 only
  std::string ptxFile, cubinFile; // cubinFile empty: PTX only
  std::vector<Entry> entries;
};

/// Parses `text`; on failure returns FMLP_ERROR_BUNDLE or
/// FMLP_ERROR_VERSION and says why in `error`.
fmlp_status parseManifest(const std::string &text, Manifest &manifest,
                          std::string &error);

size_t dtypeBytes(fmlp_dtype dtype);
const char *dtypeName(fmlp_dtype dtype);
const char *roleName(fmlp_role role);

} // namespace fmlp::runtime

#endif // FMLP_RUNTIME_MANIFEST_H
