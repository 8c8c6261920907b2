//===- Manifest.cpp - A bundle's manifest.json, parsed and checked --------===//

#include "Manifest.h"

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

int64_t integer(const json &object, const char *name,
                const std::string &where) {
  const json &value = field(object, name, where);
  if (!value.is_number_integer())
    throw Malformed{where + "." + name + " is not an integer"};
  return value.get<int64_t>();
}

std::string text(const json &object, const char *name,
                 const std::string &where) {
  const json &value = field(object, name, where);
  if (!value.is_string())
    throw Malformed{where + "." + name + " is not a string"};
  return value.get<std::string>();
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

std::array<int64_t, 3> triple(const json &object, const char *name,
                              const std::string &where) {
  const json &values = array(object, name, where);
  if (values.size() != 3)
    throw Malformed{where + "." + name + " does not have 3 elements"};
  std::array<int64_t, 3> result{};
  for (size_t i = 0; i < 3; ++i) {
    if (!values[i].is_number_integer() || values[i].get<int64_t>() < 0)
      throw Malformed{where + "." + name + " holds a non-integer or negative"};
    result[i] = values[i].get<int64_t>();
  }
  return result;
}

fmlp_dtype parseDtype(const std::string &name, const std::string &where) {
  for (fmlp_dtype dtype : {FMLP_F32, FMLP_BF16, FMLP_F16})
    if (name == dtypeName(dtype))
      return dtype;
  throw Malformed{where + ".dtype \"" + name + "\" is not f32, bf16 or f16"};
}

fmlp_role parseRole(const std::string &name, const std::string &where) {
  for (fmlp_role role : {FMLP_ROLE_INPUT, FMLP_ROLE_OUTPUT, FMLP_ROLE_SAVED,
                         FMLP_ROLE_WORKSPACE})
    if (name == roleName(role))
      return role;
  throw Malformed{where + ".role \"" + name + "\" is unknown"};
}

Argument parseArgument(const json &object, const std::string &where) {
  Argument argument;
  argument.name = text(object, "name", where);
  argument.role = parseRole(text(object, "role", where), where);
  argument.dtype = parseDtype(text(object, "dtype", where), where);
  argument.alignment =
      static_cast<int32_t>(integer(object, "alignment", where));
  argument.consumed = flag(object, "consumed", where);
  for (const json &extent : array(object, "shape", where)) {
    if (!extent.is_number_integer())
      throw Malformed{where + ".shape holds a non-integer"};
    argument.shape.push_back(extent.get<int64_t>());
  }
  size_t rank = argument.shape.size();
  if (rank < 1 || rank > 2)
    throw Malformed{where + ".shape is not of rank 1 or 2"};
  for (size_t d = 0; d < rank; ++d)
    if (argument.shape[d] < (d == 0 && rank == 2 ? -1 : 1) ||
        argument.shape[d] == 0)
      throw Malformed{where + ".shape has an invalid extent"};
  if (argument.alignment < 1 || (argument.alignment & (argument.alignment - 1)))
    throw Malformed{where + ".alignment is not a power of two"};
  return argument;
}

Launch parseLaunch(const json &object, const Entry &entry,
                   const std::string &where) {
  Launch launch;
  launch.kernel = text(object, "kernel", where);
  launch.tokensPerBlock = triple(object, "grid_tokens_per_block", where);
  launch.fixed = triple(object, "grid_fixed", where);
  launch.block = triple(object, "block", where);
  launch.dynamicSharedBytes = integer(object, "dynamic_shared_bytes", where);
  for (int d = 0; d < 3; ++d)
    if (launch.tokensPerBlock[d] == 0 && launch.fixed[d] == 0)
      throw Malformed{where + " has an empty grid dimension"};
  int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
  if (threads < 1 || threads > 1024)
    throw Malformed{where + ".block is not 1 to 1024 threads"};
  if (launch.dynamicSharedBytes < 0)
    throw Malformed{where + ".dynamic_shared_bytes is negative"};
  const json &params = array(object, "params", where);
  for (size_t i = 0; i < params.size(); ++i) {
    std::string at = where + ".params[" + std::to_string(i) + "]";
    Param param;
    if (params[i].contains("tokens")) {
      param.kind = Param::Kind::Tokens;
      if (!flag(params[i], "tokens", at))
        throw Malformed{at + ".tokens is false"};
    } else if (params[i].contains("tensor_map")) {
      param.kind = Param::Kind::TensorMap;
      const json &map = params[i].at("tensor_map");
      std::string mapAt = at + ".tensor_map";
      param.argument = static_cast<int>(integer(map, "argument", mapAt));
      param.offset = integer(map, "offset", mapAt);
      param.rows = integer(map, "rows", mapAt);
      param.cols = integer(map, "cols", mapAt);
      param.rowStride = integer(map, "row_stride", mapAt);
      param.boxRows = integer(map, "box_rows", mapAt);
      param.boxCols = integer(map, "box_cols", mapAt);
      if (param.argument < 0 ||
          param.argument >= static_cast<int>(entry.arguments.size()))
        throw Malformed{mapAt + ".argument is out of range"};
      const Argument &argument = entry.arguments[param.argument];
      if ((param.rows == -1) != argument.hasTokenRows() || param.rows == 0 ||
          param.rows < -1 || param.cols < 1 || param.rowStride < param.cols ||
          param.offset < 0 ||
          param.offset + param.cols > argument.staticElements() ||
          param.boxRows < 1 || param.boxRows > 256 || param.boxCols < 1 ||
          param.boxCols > 256)
        throw Malformed{mapAt + " does not describe a view of argument " +
                        argument.name};
    } else {
      param.argument = static_cast<int>(integer(params[i], "argument", at));
      param.offset = integer(params[i], "offset", at);
      if (param.argument < 0 ||
          param.argument >= static_cast<int>(entry.arguments.size()))
        throw Malformed{at + ".argument is out of range"};
      const Argument &argument = entry.arguments[param.argument];
      if (param.offset < 0 || param.offset >= argument.staticElements())
        throw Malformed{at + ".offset is outside argument " + argument.name};
    }
    launch.params.push_back(param);
  }
  if (launch.params.size() > kMaxParams)
    throw Malformed{where + " has more than " + std::to_string(kMaxParams) +
                    " params"};
  return launch;
}

} // namespace

int64_t Argument::staticElements() const {
  int64_t elements = 1;
  for (int64_t extent : shape)
    if (extent > 0)
      elements *= extent;
  return elements;
}

std::array<uint64_t, 3> Launch::grid(int64_t tokens) const {
  std::array<uint64_t, 3> grid{};
  for (int d = 0; d < 3; ++d)
    grid[d] = tokensPerBlock[d] > 0
                  ? static_cast<uint64_t>((tokens + tokensPerBlock[d] - 1) /
                                          tokensPerBlock[d])
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
    manifest.version = static_cast<int>(integer(root, "version", where));
    if (manifest.version != FMLP_BUNDLE_VERSION) {
      error = "bundle format version " + std::to_string(manifest.version) +
              " is not supported: this runtime reads version " +
              std::to_string(FMLP_BUNDLE_VERSION) +
              "; recompile the bundle with a matching fmlp-compile";
      return FMLP_ERROR_VERSION;
    }
    manifest.chip = text(root, "chip", where);
    if (manifest.chip.rfind("sm_", 0) != 0 || manifest.chip.size() < 5)
      throw Malformed{"manifest.chip \"" + manifest.chip + "\" is not sm_XY"};
    const json &images = field(root, "images", where);
    manifest.ptxFile = text(images, "ptx", "manifest.images");
    if (images.contains("cubin"))
      manifest.cubinFile = text(images, "cubin", "manifest.images");
    const json &entries = array(root, "entry_points", where);
    for (size_t e = 0; e < entries.size(); ++e) {
      std::string at = "manifest.entry_points[" + std::to_string(e) + "]";
      Entry entry;
      entry.symbol = text(entries[e], "symbol", at);
      entry.kind = text(entries[e], "kind", at);
      entry.staticTokens = integer(entries[e], "static_tokens", at);
      if (entry.staticTokens < 0)
        throw Malformed{at + ".static_tokens is negative"};
      const json &arguments = array(entries[e], "arguments", at);
      for (size_t a = 0; a < arguments.size(); ++a)
        entry.arguments.push_back(parseArgument(
            arguments[a], at + ".arguments[" + std::to_string(a) + "]"));
      const json &launches = array(entries[e], "launches", at);
      for (size_t l = 0; l < launches.size(); ++l)
        entry.launches.push_back(parseLaunch(
            launches[l], entry, at + ".launches[" + std::to_string(l) + "]"));
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
