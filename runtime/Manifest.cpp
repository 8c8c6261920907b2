//===- Manifest.cpp - A bundle's manifest.json, parsed and checked --------===//

#include "Manifest.h"

#include "Checked.h"
#include "fmlp/EntryKind.h"
#include "fmlp/Target.h"

#include <algorithm>
#include <climits>

#include <nlohmann/json.hpp>

namespace fmlp::runtime {
namespace {

using nlohmann::json;

/// A malformed manifest: the message says where.
struct Malformed {
  std::string message;
};

const json &field(const json &object, const char *name,
                  const std::string &where) {
  if (!object.is_object() || !object.contains(name))
    throw Malformed{where + " has no \"" + name + "\""};
  return object.at(name);
}

/// A value as the manifest writes it, cut short.
std::string shown(const json &value) {
  std::string text = value.dump();
  return text.size() <= 48 ? text : text.substr(0, 45) + "...";
}

/// `value` (found at `where`) as an integer in [min, max]. A value outside
/// (one that would not fit the field it is read into, or that the field
/// does not allow) is refused, never narrowed; so is a fraction.
int64_t integerIn(const json &value, const std::string &where, int64_t min,
                  int64_t max) {
  if (!value.is_number_integer())
    throw Malformed{where + " = " + shown(value) + " is not an integer"};
  // Above INT64_MAX nlohmann holds an unsigned: outside every range here.
  bool fits = !(value.is_number_unsigned() &&
                value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX));
  if (!fits || value.get<int64_t>() < min || value.get<int64_t>() > max)
    throw Malformed{where + " = " + shown(value) + " is outside " +
                    std::to_string(min) + " to " + std::to_string(max)};
  return value.get<int64_t>();
}

int64_t integer(const json &object, const char *name, const std::string &where,
                int64_t min, int64_t max) {
  return integerIn(field(object, name, where), where + "." + name, min, max);
}

std::string text(const json &object, const char *name,
                 const std::string &where) {
  const json &value = field(object, name, where);
  if (!value.is_string())
    throw Malformed{where + "." + name + " is not a string"};
  std::string result = value.get<std::string>();
  if (result.find('\0') != std::string::npos)
    throw Malformed{where + "." + name + " holds a NUL character"};
  return result;
}

bool flag(const json &object, const char *name, const std::string &where) {
  const json &value = field(object, name, where);
  if (!value.is_boolean())
    throw Malformed{where + "." + name + " is not a boolean"};
  return value.get<bool>();
}

const json &array(const json &object, const char *name,
                  const std::string &where) {
  const json &value = field(object, name, where);
  if (!value.is_array())
    throw Malformed{where + "." + name + " is not an array"};
  return value;
}

/// Three integers, element i in [min, max[i]].
std::array<int64_t, 3> triple(const json &object, const char *name,
                              const std::string &where, int64_t min,
                              const std::array<int64_t, 3> &max) {
  const json &values = array(object, name, where);
  if (values.size() != 3)
    throw Malformed{where + "." + name + " does not have 3 elements"};
  std::array<int64_t, 3> result{};
  for (size_t i = 0; i < 3; ++i)
    result[i] = integerIn(values[i],
                          where + "." + name + "[" + std::to_string(i) + "]",
                          min, max[i]);
  return result;
}

/// An image's file name: a plain name inside the bundle directory.
std::string fileName(const json &object, const char *name,
                     const std::string &where) {
  std::string file = text(object, name, where);
  if (file.empty() || file == "." || file == ".." ||
      file.find('/') != std::string::npos)
    throw Malformed{where + "." + name + " " + shown(file) +
                    " is not a file name inside the bundle"};
  return file;
}

fmlp_dtype parseDtype(const std::string &name, const std::string &where) {
  for (fmlp_dtype dtype : {FMLP_F32, FMLP_BF16, FMLP_F16})
    if (name == dtypeName(dtype))
      return dtype;
  throw Malformed{where + ".dtype " + shown(name) + " is not f32, bf16 or f16"};
}

fmlp_role parseRole(const std::string &name, const std::string &where) {
  for (fmlp_role role : {FMLP_ROLE_INPUT, FMLP_ROLE_OUTPUT, FMLP_ROLE_SAVED,
                         FMLP_ROLE_WORKSPACE})
    if (name == roleName(role))
      return role;
  throw Malformed{where + ".role " + shown(name) + " is unknown"};
}

constexpr int64_t kInt64Max = INT64_MAX;

Argument parseArgument(const json &object, const std::string &where) {
  Argument argument;
  argument.name = text(object, "name", where);
  argument.role = parseRole(text(object, "role", where), where);
  argument.dtype = parseDtype(text(object, "dtype", where), where);
  argument.alignment = static_cast<int32_t>(
      integer(object, "alignment", where, 1, INT32_MAX));
  argument.consumed = flag(object, "consumed", where);
  const json &shape = array(object, "shape", where);
  size_t rank = shape.size();
  if (rank < 1 || rank > 2)
    throw Malformed{where + ".shape is not of rank 1 or 2"};
  // Extents are positive; only the rows of a rank-2 shape may be -1 (T).
  std::optional<int64_t> bytes = static_cast<int64_t>(dtypeBytes(argument.dtype));
  std::string shapeText;
  for (size_t d = 0; d < rank; ++d) {
    std::string at = where + ".shape[" + std::to_string(d) + "]";
    int64_t extent = integerIn(shape[d], at, -1, kInt64Max);
    if (extent == 0 || (extent == -1 && !(d == 0 && rank == 2)))
      throw Malformed{at + " = " + std::to_string(extent) +
                      " is an invalid extent (positive, or -1 for the T "
                      "rows of a rank-2 shape)"};
    argument.shape.push_back(extent);
    shapeText += (d ? ", " : "") + std::to_string(extent);
    if (extent > 0 && bytes)
      bytes = checkedMul(*bytes, extent);
  }
  if (!bytes)
    throw Malformed{where + ".shape [" + shapeText + "] of " +
                    dtypeName(argument.dtype) +
                    " has more bytes than int64 counts"};
  // Elements <= bytes: no overflow.
  for (int64_t extent : argument.shape)
    if (extent > 0)
      argument.staticElements *= extent;
  if (argument.alignment & (argument.alignment - 1))
    throw Malformed{where + ".alignment is not a power of two"};
  return argument;
}

/// The argument a parameter refers to, by its index in the entry point.
int parseArgumentIndex(const json &object, const Entry &entry,
                       const std::string &where) {
  int64_t index = integer(object, "argument", where, INT64_MIN, kInt64Max);
  if (index < 0 || index >= static_cast<int64_t>(entry.arguments.size()))
    throw Malformed{where + ".argument is out of range: " +
                    std::to_string(index) + ", and the entry point has " +
                    std::to_string(entry.arguments.size()) + " arguments"};
  return static_cast<int>(index);
}

/// A pointer's or tensor map's token_stride (Manifest.h): present exactly
/// in per-chunk launches, n for an argument of T rows (n elements per row),
/// 0 for any other.
int64_t parseTokenStride(const json &object, const Argument &argument,
                         bool perChunk, const std::string &where) {
  if (!perChunk) {
    if (object.contains("token_stride"))
      throw Malformed{where + ".token_stride is given in a launch that is "
                              "not per_chunk"};
    return 0;
  }
  int64_t stride = integer(object, "token_stride", where, 0, kInt64Max);
  int64_t expected = argument.hasTokenRows() ? argument.staticElements : 0;
  if (stride != expected)
    throw Malformed{where + ".token_stride = " + std::to_string(stride) +
                    " for argument " + argument.name + ": a chunk's view " +
                    (argument.hasTokenRows()
                         ? "of T rows moves by whole rows, " +
                               std::to_string(expected) + " elements per token"
                         : "of an argument without T rows stays in place "
                           "(0)")};
  return stride;
}

/// A tensor map's view, checked inside its argument (the invariant in
/// Manifest.h): for T rows, offset + cols <= n and rowStride <= n make row
/// t's last element, offset + t * rowStride + cols - 1, less than (t + 1) n
/// for every t < T; for static rows the last row's end is computed, and
/// for rows -1 of an argument without T rows (a per-chunk view of the
/// workspace) that of the largest chunk's.
Param parseTensorMap(const json &map, const Entry &entry, bool perChunk,
                     const std::string &where) {
  Param param;
  param.kind = Param::Kind::TensorMap;
  param.argument = parseArgumentIndex(map, entry, where);
  const Argument &argument = entry.arguments[param.argument];
  param.offset = integer(map, "offset", where, 0, kInt64Max);
  param.tokenStride = parseTokenStride(map, argument, perChunk, where);
  param.rows = integer(map, "rows", where, -1, kInt64Max);
  param.cols = integer(map, "cols", where, 1, kInt64Max);
  param.rowStride = integer(map, "row_stride", where, 1, kInt64Max);
  param.boxRows = integer(map, "box_rows", where, 1, 256);
  param.boxCols = integer(map, "box_cols", where, 1, 256);
  std::string view = where + " does not describe a view of argument " +
                     argument.name + ": ";
  int64_t extent = argument.staticElements; // of a row, or in all
  bool chunkRows = perChunk && param.rows == -1 && !argument.hasTokenRows();
  if (((param.rows == -1) != argument.hasTokenRows() && !chunkRows) ||
      param.rows == 0)
    throw Malformed{view + "rows = " + std::to_string(param.rows) +
                    (argument.hasTokenRows()
                         ? ", the argument has T rows (-1)"
                         : ", the argument has no T rows (1 or more, or -1 "
                           "for a chunk's in a per_chunk launch)")};
  if (param.rowStride < param.cols)
    throw Malformed{view + "rows " + std::to_string(param.rowStride) +
                    " elements apart are narrower than its " +
                    std::to_string(param.cols) + " columns"};
  if (param.rowStride > extent)
    throw Malformed{view + "rows " + std::to_string(param.rowStride) +
                    " elements apart, beyond the argument's " +
                    std::to_string(extent) + " elements" +
                    (argument.hasTokenRows() ? " per row" : "")};
  int64_t rowsSpanned = chunkRows          ? entry.chunkTokens
                        : param.rows == -1 ? 1
                                           : param.rows;
  std::optional<int64_t> end = checkedMulAdd(
      rowsSpanned - 1, param.rowStride, param.offset);
  if (end)
    end = checkedAdd(*end, param.cols);
  if (!end || *end > extent)
    throw Malformed{view + std::to_string(rowsSpanned) + " rows x " +
                    std::to_string(param.cols) + " columns, rows " +
                    std::to_string(param.rowStride) +
                    " elements apart, from element " +
                    std::to_string(param.offset) + ", end " +
                    (end ? "at element " + std::to_string(*end)
                         : std::string("beyond int64")) +
                    ", outside its " + std::to_string(extent) + " elements" +
                    (argument.hasTokenRows() ? " per row" : "")};
  return param;
}

/// The arguments `launch` writes: its "writes" (optional; the compiler's
/// fmlp.written), else every non-input argument its params refer to (a
/// superset of what it writes: what a caller may skip is then decided
/// conservatively). Each written argument is one the launch refers to, and
/// none is an input (an argument some launch writes is an output, saved
/// or workspace).
void parseWrites(const json &object, const Entry &entry,
                 const std::string &where, Launch &launch) {
  auto refersTo = [&](int argument) {
    return std::any_of(
        launch.params.begin(), launch.params.end(), [&](const Param &p) {
          return p.kind != Param::Kind::Tokens && p.argument == argument;
        });
  };
  if (!object.contains("writes")) {
    for (int a = 0; a < static_cast<int>(entry.arguments.size()); ++a)
      if (entry.arguments[a].role != FMLP_ROLE_INPUT && refersTo(a))
        launch.writes.push_back(a);
    return;
  }
  const json &writes = array(object, "writes", where);
  for (size_t i = 0; i < writes.size(); ++i) {
    std::string at = where + ".writes[" + std::to_string(i) + "]";
    int64_t index = integerIn(
        writes[i], at, 0, static_cast<int64_t>(entry.arguments.size()) - 1);
    const Argument &argument = entry.arguments[index];
    if (argument.role == FMLP_ROLE_INPUT)
      throw Malformed{at + " = " + std::to_string(index) + ": argument " +
                      argument.name + " is an input, which no launch writes"};
    if (!refersTo(static_cast<int>(index)))
      throw Malformed{at + " = " + std::to_string(index) + ": argument " +
                      argument.name + " is not among the launch's params"};
    launch.writes.push_back(static_cast<int>(index));
  }
  std::sort(launch.writes.begin(), launch.writes.end());
  if (std::adjacent_find(launch.writes.begin(), launch.writes.end()) !=
      launch.writes.end())
    throw Malformed{where + ".writes names an argument twice"};
}

Launch parseLaunch(const json &object, const Entry &entry,
                   const std::string &where) {
  Launch launch;
  launch.kernel = text(object, "kernel", where);
  if (launch.kernel.empty())
    throw Malformed{where + ".kernel is empty"};
  launch.tokensPerBlock =
      triple(object, "grid_tokens_per_block", where, 0,
             {kInt64Max, kInt64Max, kInt64Max});
  launch.fixed = triple(object, "grid_fixed", where, 0, kMaxGrid);
  launch.block = triple(object, "block", where, 1, kMaxBlock);
  launch.dynamicSharedBytes =
      integer(object, "dynamic_shared_bytes", where, 0, INT32_MAX);
  for (int d = 0; d < 3; ++d)
    if (launch.tokensPerBlock[d] == 0 && launch.fixed[d] == 0)
      throw Malformed{where + " has an empty grid dimension"};
  // Optional (version 2): absent, the launch serves every T >= 1.
  if (object.contains("min_tokens"))
    launch.minTokens = integer(object, "min_tokens", where, 1, kInt64Max);
  if (object.contains("max_tokens"))
    launch.maxTokens =
        integer(object, "max_tokens", where, launch.minTokens, kInt64Max);
  // Optional (version 3): absent, the launch runs once at T.
  if (object.contains("per_chunk")) {
    launch.perChunk = flag(object, "per_chunk", where);
    if (launch.perChunk && entry.chunkTokens == 0)
      throw Malformed{where + " is per_chunk, but the entry point has no "
                              "chunk_tokens"};
  }
  // Optional: absent, the launch waits for the previous kernel as usual.
  if (object.contains("programmatic_launch"))
    launch.programmatic = flag(object, "programmatic_launch", where);
  // Optional: absent, the launch runs on the caller's stream.
  if (object.contains("lane"))
    launch.lane = static_cast<int>(integer(object, "lane", where, 0, 1));
  // Each factor is at most 1024: no overflow.
  int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
  if (threads > kMaxThreads)
    throw Malformed{where + ".block is not 1 to 1024 threads (" +
                    std::to_string(threads) + ")"};
  const json &params = array(object, "params", where);
  if (params.size() > kMaxParams)
    throw Malformed{where + " has more than " + std::to_string(kMaxParams) +
                    " params"};
  for (size_t i = 0; i < params.size(); ++i) {
    std::string at = where + ".params[" + std::to_string(i) + "]";
    if (!params[i].is_object())
      throw Malformed{at + " is not an object"};
    Param param;
    if (params[i].contains("tokens")) {
      param.kind = Param::Kind::Tokens;
      if (!flag(params[i], "tokens", at))
        throw Malformed{at + ".tokens is false"};
    } else if (params[i].contains("tensor_map")) {
      param = parseTensorMap(params[i].at("tensor_map"), entry, launch.perChunk,
                             at + ".tensor_map");
    } else {
      param.argument = parseArgumentIndex(params[i], entry, at);
      const Argument &argument = entry.arguments[param.argument];
      param.offset = integer(params[i], "offset", at, 0, kInt64Max);
      param.tokenStride =
          parseTokenStride(params[i], argument, launch.perChunk, at);
      if (param.offset >= argument.staticElements)
        throw Malformed{at + ".offset is outside argument " + argument.name +
                        ": element " + std::to_string(param.offset) +
                        " of its " + std::to_string(argument.staticElements) +
                        (argument.hasTokenRows() ? " per row" : "")};
    }
    launch.params.push_back(param);
  }
  parseWrites(object, entry, where, launch);
  return launch;
}

/// What the launches say of each argument: a workspace argument that no
/// launch lists among its writes is scratch (split-K's partials and
/// counters, which the manifest's writes leave out: every launch that
/// refers to it may write it); the fewest T at which a launch refers to it.
void markUses(Entry &entry) {
  for (size_t a = 0; a < entry.arguments.size(); ++a)
    entry.arguments[a].scratch =
        entry.arguments[a].role == FMLP_ROLE_WORKSPACE &&
        std::none_of(entry.launches.begin(), entry.launches.end(),
                     [&](const Launch &launch) {
                       return std::count(launch.writes.begin(),
                                         launch.writes.end(), int(a)) != 0;
                     });
  for (const Launch &launch : entry.launches)
    for (const Param &param : launch.params)
      if (param.kind != Param::Kind::Tokens) {
        int64_t &first = entry.arguments[param.argument].firstUsedTokens;
        first = std::min(first, launch.minTokens);
      }
}

/// The per-chunk launches of an entry with chunk_tokens form one
/// contiguous run (the chunk loop's body), and there is one.
void checkChunkLoop(const Entry &entry, const std::string &where) {
  const std::vector<Launch> &launches = entry.launches;
  auto first = std::find_if(launches.begin(), launches.end(),
                            [](const Launch &l) { return l.perChunk; });
  if (entry.chunkTokens > 0 && first == launches.end())
    throw Malformed{where +
                    ".chunk_tokens = " + std::to_string(entry.chunkTokens) +
                    ", but no launch is per_chunk"};
  auto end = std::find_if(first, launches.end(),
                          [](const Launch &l) { return !l.perChunk; });
  auto again = std::find_if(end, launches.end(),
                            [](const Launch &l) { return l.perChunk; });
  if (again != launches.end())
    throw Malformed{where + ".launches[" +
                    std::to_string(again - launches.begin()) +
                    "] is per_chunk, but not contiguous with the per_chunk "
                    "launches before it (one chunk loop per entry point)"};
}

/// The chip's row of the compiler's table (fmlp/Target.h): the runtime
/// knows exactly the chips fmlp-compile does.
void parseChip(Manifest &manifest) {
  const mlir::fmlp::Target *target = mlir::fmlp::findTarget(manifest.chip);
  if (!target)
    throw Malformed{"manifest.chip " + shown(manifest.chip) + ": " +
                    mlir::fmlp::unknownTargetMessage(manifest.chip)};
  manifest.chipVersion = target->major * 10 + target->minor;
  manifest.archSpecific = target->archSpecific;
}

} // namespace

std::optional<int64_t> Argument::bytes(int64_t tokens) const {
  // staticElements * dtypeBytes fits (parseManifest).
  int64_t perRow = staticElements * static_cast<int64_t>(dtypeBytes(dtype));
  return hasTokenRows() ? checkedMul(tokens, perRow) : perRow;
}

std::array<uint64_t, 3> Launch::grid(int64_t tokens) const {
  std::array<uint64_t, 3> grid{};
  // ceil(T / n) as T / n + (T % n != 0): T + n - 1 could overflow.
  for (int d = 0; d < 3; ++d)
    grid[d] = tokensPerBlock[d] > 0
                  ? static_cast<uint64_t>(tokens / tokensPerBlock[d] +
                                          (tokens % tokensPerBlock[d] != 0))
                  : static_cast<uint64_t>(fixed[d]);
  return grid;
}

size_t dtypeBytes(fmlp_dtype dtype) { return dtype == FMLP_F32 ? 4 : 2; }

const char *roleName(fmlp_role role) {
  switch (role) {
  case FMLP_ROLE_INPUT:
    return "input";
  case FMLP_ROLE_OUTPUT:
    return "output";
  case FMLP_ROLE_SAVED:
    return "saved";
  case FMLP_ROLE_WORKSPACE:
    return "workspace";
  }
  return "unknown";
}

const char *dtypeName(fmlp_dtype dtype) {
  switch (dtype) {
  case FMLP_F32:
    return "f32";
  case FMLP_BF16:
    return "bf16";
  case FMLP_F16:
    return "f16";
  }
  return "unknown";
}

fmlp_status parseManifest(const std::string &source, Manifest &manifest,
                          std::string &error) {
  try {
    json root = json::parse(source);
    const std::string where = "manifest";
    if (text(root, "format", where) != "fmlp-bundle")
      throw Malformed{"manifest.format is not \"fmlp-bundle\""};
    // Compared as JSON numbers: 4294967297 is not 1 (no narrowing).
    const json &version = field(root, "version", where);
    if (!version.is_number_integer())
      throw Malformed{"manifest.version = " + shown(version) +
                      " is not an integer"};
    if (version != FMLP_BUNDLE_VERSION) {
      error = "bundle format version " + shown(version) +
              " is not supported: this runtime reads version " +
              std::to_string(FMLP_BUNDLE_VERSION) +
              "; recompile the bundle with a matching fmlp-compile";
      return FMLP_ERROR_VERSION;
    }
    manifest.version = FMLP_BUNDLE_VERSION;
    // Provenance only (the version decides compatibility): bundles written
    // before fmlp 0.2.0 lack it.
    if (root.is_object() && root.contains("compiler"))
      manifest.compiler = text(root, "compiler", where);
    manifest.chip = text(root, "chip", where);
    parseChip(manifest);
    const json &images = field(root, "images", where);
    manifest.ptxFile = fileName(images, "ptx", "manifest.images");
    if (images.contains("cubin"))
      manifest.cubinFile = fileName(images, "cubin", "manifest.images");
    const json &entries = array(root, "entry_points", where);
    for (size_t e = 0; e < entries.size(); ++e) {
      std::string at = "manifest.entry_points[" + std::to_string(e) + "]";
      Entry entry;
      entry.symbol = text(entries[e], "symbol", at);
      entry.kind = text(entries[e], "kind", at);
      if (!mlir::fmlp::entryKindNamed(entry.kind))
        throw Malformed{at + ".kind \"" + entry.kind +
                        "\" is not " + mlir::fmlp::entryKindList()};
      for (const Entry &earlier : manifest.entries)
        if (earlier.symbol == entry.symbol)
          throw Malformed{at + ".symbol \"" + entry.symbol +
                          "\" names an earlier entry point too"};
      entry.staticTokens =
          integer(entries[e], "static_tokens", at, 0, kInt64Max);
      // Optional (version 3): absent, no launch is per-chunk.
      if (entries[e].is_object() && entries[e].contains("chunk_tokens"))
        entry.chunkTokens =
            integer(entries[e], "chunk_tokens", at, 0, kInt64Max);
      const json &arguments = array(entries[e], "arguments", at);
      for (size_t a = 0; a < arguments.size(); ++a)
        entry.arguments.push_back(parseArgument(
            arguments[a], at + ".arguments[" + std::to_string(a) + "]"));
      const json &launches = array(entries[e], "launches", at);
      for (size_t l = 0; l < launches.size(); ++l)
        entry.launches.push_back(parseLaunch(
            launches[l], entry, at + ".launches[" + std::to_string(l) + "]"));
      if (entry.launches.empty())
        throw Malformed{at + ".launches is empty: the entry point would "
                             "write none of its outputs"};
      checkChunkLoop(entry, at);
      markUses(entry);
      manifest.entries.push_back(std::move(entry));
    }
    if (manifest.entries.empty())
      throw Malformed{"manifest.entry_points is empty"};
  } catch (const Malformed &malformed) {
    error = malformed.message;
    return FMLP_ERROR_BUNDLE;
  } catch (const nlohmann::json::exception &exception) {
    error = std::string("manifest.json is not valid JSON: ") + exception.what();
    return FMLP_ERROR_BUNDLE;
  }
  return FMLP_OK;
}

} // namespace fmlp::runtime
