//===- Manifest.h - A bundle's manifest.json, parsed and checked -*- C++
//-*-===//
//
// The runtime's view of a bundle (the format: lib/Pipeline/Bundle.h and
// docs/Bundle.md). parseManifest checks everything a launch later relies
// on (indices in range, shapes, geometry), so that a malformed bundle is
// refused when it is opened, never misread when it is launched.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_RUNTIME_MANIFEST_H
#define FMLP_RUNTIME_MANIFEST_H

#include "fmlp/Runtime.h"

#include <array>
#include <cstdint>
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

  bool hasTokenRows() const { return !shape.empty() && shape[0] == -1; }
  /// Elements per token row (token arguments) or in all (the others).
  int64_t staticElements() const;
};

/// A kernel parameter: T, an argument's pointer moved by `offset`
/// elements, or a tensor map (CUtensorMap, by value) of a view of an
/// argument: `rows` (-1: T) x `cols` elements, rows `rowStride` apart,
/// read in 128-byte swizzled boxes of boxRows x boxCols.
struct Param {
  enum class Kind { Tokens, Pointer, TensorMap } kind = Kind::Pointer;
  int argument = -1;
  int64_t offset = 0;
  int64_t rows = 0, cols = 0, rowStride = 0, boxRows = 0, boxCols = 0;
};
constexpr size_t kMaxParams = 32;

struct Launch {
  std::string kernel;
  // grid[i] = ceil(T / tokensPerBlock[i]) if tokensPerBlock[i] > 0, else
  // fixed[i].
  std::array<int64_t, 3> tokensPerBlock{}, fixed{}, block{};
  int64_t dynamicSharedBytes = 0;
  std::vector<Param> params;

  std::array<uint64_t, 3> grid(int64_t tokens) const;
};

struct Entry {
  std::string symbol, kind;
  int64_t staticTokens = 0; // T of a block compiled for one token count
  std::vector<Argument> arguments;
  std::vector<Launch> launches;
};

struct Manifest {
  int version = 0;
  std::string chip;
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
