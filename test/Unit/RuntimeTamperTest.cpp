//===- RuntimeTamperTest.cpp - Tampered manifests through the runtime -----===//
//
// A real manifest (Inputs/llama-7b-mlp.manifest.json, written by
// fmlp-compile for examples/llama-7b-mlp.linalg.bf16.mlir; and its
// token-chunked form, llama-7b-mlp-x-c1024.manifest.json, written with
// --save=x --chunk-tokens=1024, with the chunk fields tampered too), mutated at
// random with a fixed seed (numbers made huge, negative, 2^32 + k, 2^62 + k,
// fractional; values of the wrong type; keys and elements removed or
// repeated; views moved outside their argument; the text itself cut or
// garbled), then opened, loaded and launched (every entry point, at a T
// drawn per case) through the runtime on the stand-in driver
// (FakeCudaDriver.cpp). Each case must end in one of two ways:
//  - a clean error: a failing status with a message;
//  - success, where everything the driver received is exactly what the
//    manifest, as written, says (kernel, grid, block, shared bytes, each
//    parameter) and lies inside the buffers the test passed.
// A crash fails the test by ending it. The number of cases and the seed
// come from FMLP_TAMPER_CASES and FMLP_TAMPER_SEED (scripts/fuzz-runtime.sh
// runs thousands under ASan and UBSan); ctest runs a few hundred.
//
//===----------------------------------------------------------------------===//

#include "BundleDir.h"
#include "FakeCudaDriver.h"

#include "fmlp/Runtime.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>

namespace {

using nlohmann::json;
/// The oracle's arithmetic: wide enough that no product of two int64 or
/// uint64 values in a manifest overflows it.
using Wide = __int128;

constexpr uint64_t kMapTag = 0xF3A9000000000000ull;

std::string str(Wide value) {
  if (value == 0)
    return "0";
  bool negative = value < 0;
  unsigned __int128 magnitude =
      negative ? -static_cast<unsigned __int128>(value) : value;
  std::string digits;
  for (; magnitude; magnitude /= 10)
    digits.insert(digits.begin(), char('0' + int(magnitude % 10)));
  return (negative ? "-" : "") + digits;
}

/// A JSON integer as a Wide; nullopt for anything else.
std::optional<Wide> integerOf(const json &value) {
  if (value.is_number_unsigned())
    return Wide(value.get<uint64_t>());
  if (value.is_number_integer())
    return Wide(value.get<int64_t>());
  return std::nullopt;
}

/// `value` as the JSON integer it fits, or a double beyond uint64.
json toJson(Wide value) {
  if (value >= INT64_MIN && value <= INT64_MAX)
    return static_cast<int64_t>(value);
  if (value > 0 && value <= Wide(UINT64_MAX))
    return static_cast<uint64_t>(value);
  return static_cast<double>(value);
}

/// A caller's device buffer: its (fake) address and size in bytes.
struct Buffer {
  uint64_t address = 0;
  Wide bytes = 0;
};

/// What the stand-in driver recorded during one call.
struct DriverCalls {
  std::vector<fake_cuda_launch> launches;
  std::vector<fake_cuda_memset> memsets;
};

/// The driver calls of an accepted launch of entry point `e` at T =
/// `tokens`, checked against the manifest as written: "" when every number
/// is the manifest's and every address range lies inside the caller's
/// buffers, else the first discrepancy. `maps` are all tensor maps encoded
/// so far (a map parameter carries its index + 1).
std::string misread(const json &manifest, size_t e, int64_t tokens,
                    const std::vector<Buffer> &buffers, const DriverCalls &calls,
                    const std::vector<fake_cuda_tensor_map> &maps) {
  try {
    const json &entry = manifest.at("entry_points").at(e);
    const json &arguments = entry.at("arguments");
    std::string where = "entry_points[" + std::to_string(e) + "]";
    if (buffers.size() != arguments.size())
      return where + ": launched with " + std::to_string(buffers.size()) +
             " tensors, the manifest lists " +
             std::to_string(arguments.size()) + " arguments";
    auto elementBytes = [&](size_t a) -> Wide {
      return arguments.at(a).at("dtype") == "f32" ? 4 : 2;
    };
    // [start, start + length) inside buffer a.
    auto inside = [&](size_t a, Wide start, Wide length) {
      const Buffer &b = buffers.at(a);
      return length >= 0 && start >= Wide(b.address) &&
             start + length <= Wide(b.address) + b.bytes;
    };
    if (tokens == 0) {
      if (!calls.launches.empty())
        return where + ": launched a kernel at T = 0";
      for (const fake_cuda_memset &m : calls.memsets) {
        bool zeroesAnOutput = false;
        for (size_t a = 0; a < arguments.size(); ++a)
          zeroesAnOutput |= arguments[a].at("role") == "output" &&
                            m.address == buffers[a].address &&
                            Wide(m.bytes) == buffers[a].bytes && m.value == 0;
        if (!zeroesAnOutput)
          return where + ": a memset of " + std::to_string(m.bytes) +
                 " bytes at " + std::to_string(m.address) +
                 " is not one whole output";
      }
      return "";
    }
    if (!calls.memsets.empty())
      return where + ": a memset at T = " + std::to_string(tokens);
    // The launches whose range of T (min_tokens 1 and max_tokens no bound
    // when absent) holds T, in order; a run of per_chunk launches repeated
    // for the chunks c0 = 0, C, .. < T, at the chunk's T.
    struct Planned {
      json launch;
      Wide tokens, first;
    };
    std::vector<Planned> plan;
    std::optional<Wide> chunk = entry.contains("chunk_tokens")
                                    ? integerOf(entry.at("chunk_tokens"))
                                    : std::optional<Wide>(0);
    if (!chunk || *chunk < 0 || *chunk > INT64_MAX)
      return where + ": chunk_tokens " + entry.at("chunk_tokens").dump() +
             " was accepted";
    const json &launches = entry.at("launches");
    std::string badRange;
    auto serves = [&](const json &launch, Wide t) {
      std::optional<Wide> min = launch.contains("min_tokens")
                                    ? integerOf(launch.at("min_tokens"))
                                    : std::optional<Wide>(1);
      std::optional<Wide> max = launch.contains("max_tokens")
                                    ? integerOf(launch.at("max_tokens"))
                                    : std::optional<Wide>(INT64_MAX);
      if (!min || !max || *min < 1 || *max < *min || *max > INT64_MAX)
        badRange = where + ": a launch with the range of T [" +
                   launch.value("min_tokens", json(1)).dump() + ", " +
                   launch.value("max_tokens", json("none")).dump() +
                   "] was accepted";
      return badRange.empty() && *min <= t && t <= *max;
    };
    auto perChunk = [&](size_t l) {
      return launches.at(l).value("per_chunk", json(false)) == json(true);
    };
    for (size_t l = 0; l < launches.size();) {
      if (launches[l].contains("per_chunk") &&
          !launches[l].at("per_chunk").is_boolean())
        return where + ": per_chunk " + launches[l].at("per_chunk").dump() +
               " was accepted";
      if (!perChunk(l)) {
        if (serves(launches[l], tokens))
          plan.push_back({launches[l], tokens, 0});
        ++l;
        continue;
      }
      if (*chunk == 0)
        return where + ": a per_chunk launch without chunk_tokens was "
                       "accepted";
      size_t end = l;
      while (end < launches.size() && perChunk(end))
        ++end;
      for (Wide first = 0; first < tokens; first += *chunk)
        for (size_t k = l; k < end; ++k) {
          Wide chunkTokens = std::min(*chunk, Wide(tokens) - first);
          if (serves(launches[k], chunkTokens))
            plan.push_back({launches[k], chunkTokens, first});
        }
      l = end;
    }
    if (!badRange.empty())
      return badRange;
    if (calls.launches.size() != plan.size())
      return where + ": " + std::to_string(calls.launches.size()) +
             " kernels launched, the manifest lists " +
             std::to_string(plan.size()) + " at T = " +
             std::to_string(tokens);
    for (size_t l = 0; l < plan.size(); ++l) {
      const json &p = plan[l].launch;
      // T and the first token of this launch (of its chunk).
      Wide launchTokens = plan[l].tokens, first = plan[l].first;
      const fake_cuda_launch &r = calls.launches[l];
      std::string at = where + ".launches[" + std::to_string(l) + "]";
      // The stand-in keeps 127 characters of a name.
      if (p.at("kernel").get<std::string>().substr(0, 127) != r.kernel)
        return at + ": kernel " + r.kernel + " launched for " +
               p.at("kernel").dump();
      for (int d = 0; d < 3; ++d) {
        std::optional<Wide> block = integerOf(p.at("block").at(d));
        std::optional<Wide> perBlock =
            integerOf(p.at("grid_tokens_per_block").at(d));
        std::optional<Wide> fixed = integerOf(p.at("grid_fixed").at(d));
        if (!block || *block != r.block[d])
          return at + ".block[" + std::to_string(d) + "] = " +
                 p.at("block").at(d).dump() + " reached the driver as " +
                 std::to_string(r.block[d]);
        if (!perBlock || !fixed)
          return at + ": a grid that is not integers was accepted";
        Wide grid =
            *perBlock > 0 ? (launchTokens + *perBlock - 1) / *perBlock : *fixed;
        if (grid != r.grid[d])
          return at + ".grid[" + std::to_string(d) + "] should be " +
                 str(grid) + " at T = " + str(launchTokens) +
                 ", reached the driver as " + std::to_string(r.grid[d]);
      }
      std::optional<Wide> shared = integerOf(p.at("dynamic_shared_bytes"));
      if (!shared || *shared != r.shared)
        return at + ".dynamic_shared_bytes = " +
               p.at("dynamic_shared_bytes").dump() +
               " reached the driver as " + std::to_string(r.shared);
      const json &params = p.at("params");
      if (params.size() != size_t(r.paramCount))
        return at + ": " + std::to_string(r.paramCount) +
               " parameters passed, the manifest lists " +
               std::to_string(params.size());
      for (size_t i = 0; i < params.size(); ++i) {
        const json &q = params[i];
        uint64_t word = r.paramWords[i];
        std::string pat = at + ".params[" + std::to_string(i) + "]";
        if (q.contains("tokens")) {
          if (Wide(word) != launchTokens)
            return pat + ": T passed as " + std::to_string(word) +
                   ", should be " + str(launchTokens);
          continue;
        }
        bool isMap = q.contains("tensor_map");
        const json &view = isMap ? q.at("tensor_map") : q;
        std::optional<Wide> argument = integerOf(view.at("argument"));
        std::optional<Wide> offset = integerOf(view.at("offset"));
        // Elements the view moves per token of the chunk's start.
        std::optional<Wide> tokenStride =
            view.contains("token_stride") ? integerOf(view.at("token_stride"))
                                          : std::optional<Wide>(0);
        if (!argument || *argument < 0 || *argument >= Wide(buffers.size()) ||
            !offset || !tokenStride)
          return pat + ": an argument, offset or token_stride that is no "
                       "index was accepted";
        size_t a = size_t(*argument);
        Wide elem = elementBytes(a);
        Wide start =
            Wide(buffers[a].address) + (*offset + first * *tokenStride) * elem;
        if (!isMap) {
          if (Wide(word) != start || !inside(a, start, elem))
            return pat + ": pointer " + std::to_string(word) +
                   " for element " + str(*offset) + " of argument " +
                   std::to_string(a) + " (buffer at " +
                   std::to_string(buffers[a].address) + ", " +
                   str(buffers[a].bytes) + " bytes)";
          continue;
        }
        if ((word & 0xFFFF000000000000ull) != kMapTag ||
            (word & 0xFFFFFFFFull) == 0 ||
            (word & 0xFFFFFFFFull) > maps.size())
          return pat + ": not a tensor map the driver encoded";
        const fake_cuda_tensor_map &m = maps[(word & 0xFFFFFFFFull) - 1];
        std::optional<Wide> rows = integerOf(view.at("rows"));
        std::optional<Wide> cols = integerOf(view.at("cols"));
        std::optional<Wide> stride = integerOf(view.at("row_stride"));
        std::optional<Wide> boxRows = integerOf(view.at("box_rows"));
        std::optional<Wide> boxCols = integerOf(view.at("box_cols"));
        if (!rows || !cols || !stride || !boxRows || !boxCols)
          return pat + ": a view that is not integers was accepted";
        Wide viewRows = *rows == -1 ? launchTokens : *rows;
        if (Wide(m.address) != start || m.dims[0] != *cols ||
            m.dims[1] != viewRows || Wide(m.stride) != *stride * elem ||
            m.box[0] != *boxCols || m.box[1] != *boxRows)
          return pat + ": tensor map at " + std::to_string(m.address) +
                 " of [" + std::to_string(m.dims[1]) + ", " +
                 std::to_string(m.dims[0]) + "] rows " +
                 std::to_string(m.stride) + " bytes apart, box [" +
                 std::to_string(m.box[1]) + ", " + std::to_string(m.box[0]) +
                 "], for " + view.dump();
        // The view's bytes: rows - 1 strides, then one row of cols.
        Wide extent = (viewRows - 1) * Wide(m.stride) + *cols * elem;
        if (!inside(a, start, extent))
          return pat + ": a view of " + str(extent) + " bytes from " +
                 str(start) + " is outside argument " + std::to_string(a) +
                 " (buffer at " + std::to_string(buffers[a].address) + ", " +
                 str(buffers[a].bytes) + " bytes)";
      }
    }
    return "";
  } catch (const json::exception &exception) {
    return std::string("accepted a manifest the test cannot read: ") +
           exception.what();
  }
}

/// Each cuFuncSetAttribute of a load: the dynamic shared bytes of a launch
/// of that kernel, as the manifest writes them.
std::string misreadAttributes(const json &manifest) {
  for (int i = 0; i < fake_cuda_attribute_count(); ++i) {
    const fake_cuda_attribute *a = fake_cuda_attribute_at(i);
    bool found = false;
    for (const json &entry : manifest.at("entry_points"))
      for (const json &launch : entry.at("launches"))
        found |= launch.at("kernel").get<std::string>().substr(0, 127) ==
                     a->kernel &&
                 integerOf(launch.at("dynamic_shared_bytes")) ==
                     std::optional<Wide>(a->value);
    if (!found)
      return std::string("cuFuncSetAttribute(") + a->kernel + ", " +
             std::to_string(a->value) +
             ") matches no launch of the manifest";
  }
  return "";
}

/// A mutation of the manifest, at random.
class Mutator {
public:
  /// `chunked`: the manifest is token-chunked; its chunk fields are
  /// tampered too, and T stays ordinary (a launch runs T / chunk_tokens
  /// times its per-chunk kernels, which the oracle replays).
  explicit Mutator(uint64_t seed, bool chunked = false)
      : rng(seed), chunked(chunked) {}

  uint64_t below(uint64_t n) { return rng() % n; }

  /// 1 to 3 mutations of the manifest's tree; sometimes of its text.
  std::string mutate(const json &original) {
    json root = original;
    int count = 1 + int(below(3));
    for (int i = 0; i < count; ++i)
      mutateOnce(root);
    std::string text = root.dump(2);
    if (below(10) == 0)
      garble(text);
    return text;
  }

  /// T for a case: mostly ordinary, sometimes 0 or huge.
  int64_t tokens() {
    static const int64_t ordinary[] = {1, 7, 37, 128, 300, 2048};
    static const int64_t extreme[] = {0,
                                      INT32_MAX,
                                      int64_t(1) << 32,
                                      int64_t(1) << 40,
                                      int64_t(1) << 61,
                                      INT64_MAX / 2,
                                      INT64_MAX};
    static const int64_t chunkedOrdinary[] = {1, 37, 1024, 1025, 2049};
    if (chunked)
      return chunkedOrdinary[below(std::size(chunkedOrdinary))];
    if (below(8) == 0)
      return extreme[below(std::size(extreme))];
    return ordinary[below(std::size(ordinary))];
  }

private:
  std::mt19937_64 rng;
  bool chunked;

  static void collect(const json &node, const json::json_pointer &at,
                      std::vector<json::json_pointer> &paths) {
    paths.push_back(at);
    if (node.is_object())
      for (auto it = node.begin(); it != node.end(); ++it)
        collect(it.value(), at / it.key(), paths);
    else if (node.is_array())
      for (size_t i = 0; i < node.size(); ++i)
        collect(node[i], at / i, paths);
  }

  json number(const json &old) {
    Wide value = integerOf(old).value_or(3);
    const Wide two32 = Wide(1) << 32, two62 = Wide(1) << 62;
    switch (below(22)) {
    case 0: return 0;
    case 1: return -1;
    case 2: return toJson(-value);
    case 3: return toJson(value + 1);
    case 4: return toJson(value - 1);
    case 5: return toJson(value * 2);
    case 6: return toJson(value * 1000000);
    case 7: return toJson(two32 + 1024);
    case 8: return toJson(two32 + value);
    case 9: return toJson(two62 + 1);
    case 10: return toJson(two62 + value);
    case 11: return INT64_MAX;
    case 12: return INT64_MIN;
    case 13: return UINT64_MAX;
    case 14: return INT32_MAX;
    case 15: return toJson(Wide(INT32_MAX) + 1);
    case 16: return UINT32_MAX;
    case 17: return 1.5;
    case 18: return static_cast<double>(value) + 0.5;
    case 19: return 1e300;
    case 20: return toJson(Wide(INT64_MAX) - 4095);
    default: return toJson(value + (Wide(1) << 40));
    }
  }

  json string(const json &old) {
    static const char *const words[] = {
        "", "x", "f32", "bf16", "f16", "f64", "input", "output", "saved",
        "workspace", "sm_80", "sm_90a", "sm_100a", "sm_9", "sm_999999999999",
        "../kernels.ptx", "/etc/hostname", "kernels.cubin", "forward",
        "backward"};
    switch (below(4)) {
    case 0: return std::string(1000 + below(5000), 'k');
    case 1: return old.get<std::string>() + std::string(1, '\0') + "tail";
    default: return words[below(std::size(words))];
    }
  }

  json otherType() {
    switch (below(6)) {
    case 0: return "12";
    case 1: return nullptr;
    case 2: return true;
    case 3: return json::array();
    case 4: return json::object();
    default: return json::array({1, 2, 3});
    }
  }

  /// A view or pointer moved outside its argument (the cases the runtime
  /// misread before: 1e6 rows, a 2 TB stride, an offset that overflows).
  bool moveView(json &root) {
    std::vector<json::json_pointer> views, paths;
    collect(root, json::json_pointer(), paths);
    for (const json::json_pointer &p : paths)
      if (root[p].is_object() && root[p].contains("offset"))
        views.push_back(p);
    if (views.empty())
      return false;
    json &view = root[views[below(views.size())]];
    switch (below(7)) {
    case 0: view["rows"] = 1000000; break;
    case 1: view["row_stride"] = int64_t(1) << 40; break;
    case 2: view["offset"] = INT64_MAX - 4095; break;
    case 3: view["offset"] = toJson(integerOf(view["offset"]).value_or(0) + 4096); break;
    case 4: view["cols"] = toJson(integerOf(view.value("row_stride", json(8))).value_or(8) + 1); break;
    case 5: view["rows"] = -1; break;
    default: view["offset"] = -8192; break;
    }
    return true;
  }

  /// A range of T (version 2) put on a launch: well-formed (the variants
  /// of a kernel for T <= 16 and T >= 17) or not.
  bool addRange(json &root) {
    std::vector<json::json_pointer> launches, paths;
    collect(root, json::json_pointer(), paths);
    for (const json::json_pointer &p : paths)
      if (root[p].is_object() && root[p].contains("kernel"))
        launches.push_back(p);
    if (launches.empty())
      return false;
    json &launch = root[launches[below(launches.size())]];
    switch (below(6)) {
    case 0: launch["max_tokens"] = 16; break;
    case 1: launch["min_tokens"] = 17; break;
    case 2: launch["min_tokens"] = 17; launch["max_tokens"] = 16; break;
    case 3: launch["min_tokens"] = number(json(17)); break;
    case 4: launch["max_tokens"] = number(json(16)); break;
    default: launch["min_tokens"] = 37; launch["max_tokens"] = 37; break;
    }
    return true;
  }

  /// A chunk field (version 3) changed: an entry point's chunk_tokens (at
  /// least 16: the oracle replays every chunk), a launch's per_chunk, a
  /// view's token_stride.
  bool changeChunk(json &root) {
    std::vector<json::json_pointer> entries, launches, views, paths;
    collect(root, json::json_pointer(), paths);
    for (const json::json_pointer &p : paths) {
      const json &node = root[p];
      if (!node.is_object())
        continue;
      if (node.contains("chunk_tokens"))
        entries.push_back(p);
      if (node.contains("kernel"))
        launches.push_back(p);
      if (node.contains("token_stride"))
        views.push_back(p);
    }
    switch (below(3)) {
    case 0: {
      if (entries.empty())
        return false;
      static const int64_t sizes[] = {16, 17, 1000, 2048, 0, -1};
      json &entry = root[entries[below(entries.size())]];
      entry["chunk_tokens"] =
          below(4) == 0 ? number(entry["chunk_tokens"]) : json(sizes[below(6)]);
      if (integerOf(entry["chunk_tokens"]).value_or(16) < 16 &&
          integerOf(entry["chunk_tokens"]).value_or(16) > 0)
        entry["chunk_tokens"] = 16;
      return true;
    }
    case 1: {
      if (launches.empty())
        return false;
      json &launch = root[launches[below(launches.size())]];
      launch["per_chunk"] = below(3) == 0 ? json(1) : json(below(2) == 0);
      return true;
    }
    default: {
      if (views.empty())
        return false;
      json &view = root[views[below(views.size())]];
      view["token_stride"] = number(view["token_stride"]);
      return true;
    }
    }
  }

  void mutateOnce(json &root) {
    if (chunked && below(3) == 0 && changeChunk(root))
      return;
    if (below(5) == 0 && moveView(root))
      return;
    if (below(6) == 0 && addRange(root))
      return;
    std::vector<json::json_pointer> paths;
    collect(root, json::json_pointer(), paths);
    json::json_pointer at = paths[below(paths.size())];
    json &node = root[at];
    // Structure: remove the node from its parent, or repeat it.
    if (!at.empty() && below(6) == 0) {
      json &parent = root[at.parent_pointer()];
      std::string key = at.back();
      if (parent.is_object()) {
        parent.erase(key);
      } else if (below(2)) {
        parent.erase(std::stoul(key));
      } else {
        json copy = node;
        parent.push_back(copy);
      }
      return;
    }
    if (below(6) == 0) {
      node = otherType();
      return;
    }
    if (node.is_number())
      node = number(node);
    else if (node.is_string())
      node = string(node);
    else if (node.is_boolean())
      node = below(2) ? json(!node.get<bool>()) : json(1);
    else if (node.is_array() && !node.empty())
      node.erase(below(node.size()));
    else if (node.is_object())
      node["unknown_key"] = 1;
    else
      node = otherType();
  }

  void garble(std::string &text) {
    if (text.empty())
      return;
    size_t at = below(text.size());
    switch (below(4)) {
    case 0: text.resize(at); break;
    case 1: text[at] = static_cast<char>(below(256)); break;
    case 2: text.insert(at, 1, "{}[]\",:0-e."[below(11)]); break;
    default: text.erase(at, below(64)); break;
    }
  }
};

enum class Outcome { CleanError, Success, Misread };

struct CaseResult {
  Outcome outcome = Outcome::CleanError;
  std::string detail; // the misread, or the first error
};

/// The tensors of a launch of entry point `e` at T = `tokens`, dense, as
/// the bundle declares its arguments, over fake buffers: one per argument
/// name (so that a backward sees the forward's saved activations at the
/// same address), 2^44 bytes apart from 2^40 on.
struct Call {
  std::vector<fmlp_tensor> tensors;
  std::vector<Buffer> buffers;
  bool tokenRows = false; // some argument has T rows
};

/// The fewest T at which a launch of `entry` (the manifest's, as the test
/// reads it) refers to argument `a`: its launches' least min_tokens (1 when
/// absent); none: beyond every T.
Wide firstUse(const json &entry, size_t a) {
  Wide first = Wide(INT64_MAX) + 1;
  for (const json &launch : entry.at("launches"))
    for (const json &param : launch.at("params")) {
      const json &view =
          param.contains("tensor_map") ? param.at("tensor_map") : param;
      if (view.contains("argument") &&
          integerOf(view.at("argument")) == Wide(a))
        first =
            std::min(first, launch.contains("min_tokens")
                                ? integerOf(launch.at("min_tokens")).value_or(1)
                                : Wide(1));
    }
  return first;
}

/// Bytes of the saved and workspace arguments at T = `tokens`: all of them
/// (fmlp_workspace_bytes), or (`used`) the saved and the workspaces some
/// launch refers to at T (fmlp_workspace_bytes_used; the others may be null
/// there).
Wide workspaceBytesAt(const json &entry, const Call &call, int64_t tokens,
                      bool used) {
  Wide bytes = 0;
  for (size_t a = 0; a < call.buffers.size(); ++a) {
    std::string role = entry.at("arguments").at(a).at("role");
    if (role == "saved" ||
        (role == "workspace" && (!used || tokens >= firstUse(entry, a))))
      bytes += call.buffers[a].bytes;
  }
  return bytes;
}

bool layOut(const fmlp_bundle *bundle, int e, int64_t tokens,
            std::map<std::string, uint64_t> &slots, Call &call) {
  int count = fmlp_argument_count(bundle, e);
  call.tensors.assign(count, fmlp_tensor{});
  call.buffers.assign(count, Buffer{});
  for (int a = 0; a < count; ++a) {
    fmlp_argument_info info{};
    if (fmlp_argument_info_get(bundle, e, a, &info) != FMLP_OK)
      return false;
    fmlp_tensor &t = call.tensors[a];
    t.dtype = info.dtype;
    t.rank = info.rank;
    bool tokenRows = info.shape[0] == -1;
    call.tokenRows |= tokenRows;
    t.sizes[0] = tokenRows ? tokens : info.shape[0];
    t.strides[0] = 1;
    if (info.rank == 2) {
      t.sizes[1] = info.shape[1];
      t.strides[0] = info.shape[1];
      t.strides[1] = 1;
    }
    Wide bytes = info.dtype == FMLP_F32 ? 4 : 2;
    for (int d = 0; d < t.rank; ++d)
      bytes *= t.sizes[d];
    uint64_t slot = slots.emplace(info.name, slots.size()).first->second;
    call.buffers[a] = {(uint64_t(1) << 40) + (slot % 4096) * (uint64_t(1) << 44),
                       bytes};
    t.data = reinterpret_cast<void *>(call.buffers[a].address);
  }
  return true;
}

/// A clean error: a failing status, and a message that says what.
CaseResult cleanError(fmlp_status status) {
  CaseResult result;
  std::string message = fmlp_last_error();
  if (status == FMLP_OK || message.empty()) {
    result.outcome = Outcome::Misread;
    result.detail = std::string("a failure without a message: ") +
                    fmlp_status_name(status);
    return result;
  }
  result.detail = fmlp_status_name(status) + (": " + message);
  return result;
}

/// One tampered manifest: open, load, and launch every entry point at T =
/// `tokens`.
CaseResult runCase(const std::string &text, int64_t tokens) {
  fmlp::test::BundleDir dir(text);
  fmlp_bundle *bundle = nullptr;
  fmlp_status status = fmlp_bundle_open(dir.path().c_str(), &bundle);
  if (status != FMLP_OK) {
    CaseResult result = cleanError(status);
    if (bundle)
      return {Outcome::Misread, "a failed open returned a bundle"};
    if (status != FMLP_ERROR_BUNDLE && status != FMLP_ERROR_VERSION)
      return {Outcome::Misread, "open failed with " + result.detail};
    return result;
  }
  // Opened: then the test's parser must read it too (the same text).
  json manifest = json::parse(text);
  std::unique_ptr<fmlp_bundle, void (*)(fmlp_bundle *)> owner(
      bundle, fmlp_bundle_close);
  fake_cuda_reset(9, 0, nullptr, 0);
  if ((status = fmlp_bundle_load(bundle)) != FMLP_OK)
    return cleanError(status);
  if (std::string problem = misreadAttributes(manifest); !problem.empty())
    return {Outcome::Misread, problem};

  std::map<std::string, uint64_t> slots;
  CaseResult result{Outcome::CleanError, ""};
  for (int e = 0; e < fmlp_entry_count(bundle); ++e) {
    Call call;
    if (!layOut(bundle, e, tokens, slots, call))
      return {Outcome::Misread, "argument info failed for an argument the "
                                "bundle counts"};
    std::vector<fmlp_tensor> &tensors = call.tensors;
    std::vector<Buffer> &buffers = call.buffers;
    int count = static_cast<int>(tensors.size());
    // Without token arguments, T is the entry point's static_tokens.
    int64_t effectiveTokens = tokens;
    if (!call.tokenRows) {
      std::optional<Wide> fixed = integerOf(
          manifest.at("entry_points").at(e).at("static_tokens"));
      if (!fixed || *fixed < 0 || *fixed > INT64_MAX)
        return {Outcome::Misread, "static_tokens " +
                                      manifest["entry_points"][e]
                                          .at("static_tokens")
                                          .dump() +
                                      " accepted"};
      effectiveTokens = int64_t(*fixed);
    }
    for (bool used : {false, true}) {
      const char *name =
          used ? "fmlp_workspace_bytes_used" : "fmlp_workspace_bytes";
      Wide workspace = workspaceBytesAt(manifest.at("entry_points").at(e), call,
                                        tokens, used);
      int64_t workspaceBytes = -1;
      status =
          used ? fmlp_workspace_bytes_used(bundle, e, tokens, &workspaceBytes)
               : fmlp_workspace_bytes(bundle, e, tokens, &workspaceBytes);
      if (status == FMLP_OK && Wide(workspaceBytes) != workspace)
        return {Outcome::Misread, std::string(name) + "(" +
                                      std::to_string(tokens) +
                                      ") = " + std::to_string(workspaceBytes) +
                                      ", the arguments hold " + str(workspace)};
      if (status != FMLP_OK && workspace <= INT64_MAX)
        return {Outcome::Misread, std::string(name) +
                                      " failed for a size that fits: " +
                                      std::string(fmlp_last_error())};
    }

    int launchesBefore = fake_cuda_launch_count();
    int memsetsBefore = fake_cuda_memset_count();
    status = fmlp_launch(bundle, e, tensors.data(), count, nullptr);
    if (status != FMLP_OK) {
      CaseResult error = cleanError(status);
      if (error.outcome == Outcome::Misread)
        return error;
      if (result.detail.empty())
        result.detail = error.detail;
      continue;
    }
    DriverCalls calls;
    for (int i = launchesBefore; i < fake_cuda_launch_count(); ++i)
      calls.launches.push_back(*fake_cuda_launch_at(i));
    for (int i = memsetsBefore; i < fake_cuda_memset_count(); ++i)
      calls.memsets.push_back(*fake_cuda_memset_at(i));
    std::vector<fake_cuda_tensor_map> maps;
    for (int i = 0; i < fake_cuda_tensor_map_count(); ++i)
      maps.push_back(*fake_cuda_tensor_map_at(i));
    std::string problem = misread(manifest, size_t(e), effectiveTokens,
                                  buffers, calls, maps);
    if (!problem.empty())
      return {Outcome::Misread, problem};
    result.outcome = Outcome::Success;
  }
  return result;
}

std::string readFile(const std::string &path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

int64_t fromEnvironment(const char *name, int64_t fallback) {
  const char *value = std::getenv(name);
  return value && *value ? std::strtoll(value, nullptr, 10) : fallback;
}

class RuntimeTamper : public ::testing::Test {
protected:
  void SetUp() override {
    // As RuntimeLaunchTest: the fake driver, unless ctest named it.
    setenv("FMLP_LIBCUDA", FMLP_FAKE_CUDA, /*overwrite=*/0);
    text = readFile(FMLP_TAMPER_MANIFEST);
    ASSERT_FALSE(text.empty()) << "cannot read " << FMLP_TAMPER_MANIFEST;
    manifest = json::parse(text);
  }
  std::string text;
  json manifest;
};

// The real manifest as written: every entry point launches, and the oracle
// finds the driver's calls exactly as the manifest says.
TEST_F(RuntimeTamper, TheRealManifestLaunchesAsWritten) {
  for (int64_t tokens : {int64_t(1), int64_t(37), int64_t(300), int64_t(0)}) {
    CaseResult result = runCase(text, tokens);
    EXPECT_EQ(result.outcome, Outcome::Success)
        << "T = " << tokens << ": " << result.detail;
  }
}

// The real manifest with each launch split into two variants, the first
// for T <= 16 and the second for T >= 17: at each T exactly one of each
// pair runs, in order, as the oracle reads the ranges.
TEST_F(RuntimeTamper, VariantsByTLaunchAsWritten) {
  json split = manifest;
  for (json &entry : split["entry_points"]) {
    json launches = json::array();
    for (const json &launch : entry["launches"]) {
      json small = launch, large = launch;
      small["max_tokens"] = 16;
      large["min_tokens"] = 17;
      launches.push_back(small);
      launches.push_back(large);
    }
    entry["launches"] = launches;
  }
  for (int64_t tokens : {int64_t(1), int64_t(16), int64_t(17), int64_t(300)}) {
    CaseResult result = runCase(split.dump(2), tokens);
    EXPECT_EQ(result.outcome, Outcome::Success)
        << "T = " << tokens << ": " << result.detail;
  }
}

// The oracle can fail: a driver call that differs from the manifest by a
// narrowing, or that reaches outside a buffer, is reported.
TEST_F(RuntimeTamper, TheOracleCatchesMisreads) {
  fake_cuda_reset(9, 0, nullptr, 0);
  fmlp::test::BundleDir dir(text);
  fmlp_bundle *bundle = nullptr;
  ASSERT_EQ(fmlp_bundle_open(dir.path().c_str(), &bundle), FMLP_OK);
  ASSERT_EQ(fmlp_bundle_load(bundle), FMLP_OK);
  // Entry 0 at T = 37 with buffers as runCase lays them out.
  std::map<std::string, uint64_t> slots;
  Call call;
  ASSERT_TRUE(layOut(bundle, 0, 37, slots, call));
  std::vector<fmlp_tensor> &tensors = call.tensors;
  const std::vector<Buffer> &buffers = call.buffers;
  int count = static_cast<int>(tensors.size());
  ASSERT_EQ(fmlp_launch(bundle, 0, tensors.data(), count, nullptr), FMLP_OK)
      << fmlp_last_error();
  fmlp_bundle_close(bundle);
  DriverCalls calls;
  for (int i = 0; i < fake_cuda_launch_count(); ++i)
    calls.launches.push_back(*fake_cuda_launch_at(i));
  std::vector<fake_cuda_tensor_map> maps;
  for (int i = 0; i < fake_cuda_tensor_map_count(); ++i)
    maps.push_back(*fake_cuda_tensor_map_at(i));
  ASSERT_EQ(misread(manifest, 0, 37, buffers, calls, maps), "");

  // 2^32 + 1024 shared bytes that reached the driver as 1024.
  json narrowed = manifest;
  json &first = narrowed["entry_points"][0]["launches"][0];
  first["dynamic_shared_bytes"] =
      (int64_t(1) << 32) + int64_t(calls.launches[0].shared);
  EXPECT_NE(misread(narrowed, 0, 37, buffers, calls, maps).find(
                "dynamic_shared_bytes = "),
            std::string::npos);
  // A block of [2^62 + 1, ...] that reached it as 1.
  narrowed = manifest;
  narrowed["entry_points"][0]["launches"][0]["block"][0] =
      (int64_t(1) << 62) + calls.launches[0].block[0];
  EXPECT_NE(misread(narrowed, 0, 37, buffers, calls, maps).find(".block[0]"),
            std::string::npos);
  // A buffer smaller than the views: outside.
  std::vector<Buffer> small = buffers;
  for (Buffer &b : small)
    b.bytes /= 2;
  EXPECT_NE(misread(manifest, 0, 37, small, calls, maps).find("outside"),
            std::string::npos);
  // A range that excludes T = 37 on a launch that ran at 37.
  json ranged = manifest;
  ranged["entry_points"][0]["launches"][0]["max_tokens"] = 16;
  EXPECT_NE(misread(ranged, 0, 37, buffers, calls, maps).find(
                "kernels launched, the manifest lists"),
            std::string::npos);
  // An address 8 KB before the buffer.
  DriverCalls early = calls;
  for (fake_cuda_launch &l : early.launches)
    for (int i = 0; i < l.paramCount; ++i)
      if (l.paramWords[i] >= buffers[0].address)
        l.paramWords[i] -= 8192;
  EXPECT_NE(misread(manifest, 0, 37, buffers, early, maps), "");
}

// Tampered manifests: a clean error or an exact launch, never a misread.
TEST_F(RuntimeTamper, TamperedManifestsAreRefusedOrLaunchedExactly) {
  int64_t cases = fromEnvironment("FMLP_TAMPER_CASES", 400);
  uint64_t seed = uint64_t(fromEnvironment("FMLP_TAMPER_SEED", 27));
  bool verbose = fromEnvironment("FMLP_TAMPER_VERBOSE", 0) != 0;
  Mutator mutator(seed);
  int64_t errors = 0, successes = 0, misreads = 0;
  for (int64_t c = 0; c < cases; ++c) {
    std::string tampered = mutator.mutate(manifest);
    int64_t tokens = mutator.tokens();
    CaseResult result = runCase(tampered, tokens);
    if (verbose)
      std::printf("case %lld, T = %lld: %s %s\n", static_cast<long long>(c),
                  static_cast<long long>(tokens),
                  result.outcome == Outcome::CleanError ? "error"
                  : result.outcome == Outcome::Success  ? "success"
                                                        : "MISREAD",
                  result.detail.substr(0, 300).c_str());
    if (result.outcome == Outcome::CleanError)
      ++errors;
    else if (result.outcome == Outcome::Success)
      ++successes;
    else if (++misreads <= 10)
      ADD_FAILURE() << "case " << c << " (seed " << seed << ", T = " << tokens
                    << "): " << result.detail << "\nmanifest:\n"
                    << tampered.substr(0, 4000);
  }
  // The summary scripts/fuzz-runtime.sh reads.
  std::printf("tamper: seed %llu: %lld cases, %lld clean errors, %lld "
              "successes, %lld misreads\n",
              static_cast<unsigned long long>(seed),
              static_cast<long long>(cases), static_cast<long long>(errors),
              static_cast<long long>(successes),
              static_cast<long long>(misreads));
  EXPECT_EQ(misreads, 0);
  // Both outcomes occur, or the mutations test nothing.
  if (cases >= 100) {
    EXPECT_GT(errors, cases / 4);
    EXPECT_GT(successes, 0);
  }
}

class RuntimeTamperChunked : public RuntimeTamper {
protected:
  void SetUp() override {
    RuntimeTamper::SetUp();
    text = readFile(FMLP_TAMPER_CHUNKED_MANIFEST);
    ASSERT_FALSE(text.empty())
        << "cannot read " << FMLP_TAMPER_CHUNKED_MANIFEST;
    manifest = json::parse(text);
  }
};

// The chunked manifest as written (every entry point in chunks of 1024
// tokens, the small-T variants for a last chunk of <= 16): below a chunk,
// one chunk, one more token, 2 chunks + 1; the oracle replays the chunks.
TEST_F(RuntimeTamperChunked, TheRealManifestLaunchesAsWritten) {
  ASSERT_EQ(manifest["entry_points"][1].value("chunk_tokens", json(0)), 1024);
  for (int64_t tokens : {int64_t(1), int64_t(37), int64_t(1024), int64_t(1025),
                         int64_t(2049), int64_t(0)}) {
    CaseResult result = runCase(text, tokens);
    EXPECT_EQ(result.outcome, Outcome::Success)
        << "T = " << tokens << ": " << result.detail;
  }
}

// The oracle can fail on chunks: per-chunk launches judged as if they ran
// once (no chunk_tokens), or as if x did not move (token_stride 0).
TEST_F(RuntimeTamperChunked, TheOracleCatchesMisreadChunks) {
  fake_cuda_reset(9, 0, nullptr, 0);
  fmlp::test::BundleDir dir(text);
  fmlp_bundle *bundle = nullptr;
  ASSERT_EQ(fmlp_bundle_open(dir.path().c_str(), &bundle), FMLP_OK)
      << fmlp_last_error();
  ASSERT_EQ(fmlp_bundle_load(bundle), FMLP_OK);
  std::map<std::string, uint64_t> slots;
  Call call;
  int backward = 1;
  ASSERT_TRUE(layOut(bundle, backward, 2049, slots, call));
  ASSERT_EQ(fmlp_launch(bundle, backward, call.tensors.data(),
                        static_cast<int>(call.tensors.size()), nullptr),
            FMLP_OK)
      << fmlp_last_error();
  fmlp_bundle_close(bundle);
  DriverCalls calls;
  for (int i = 0; i < fake_cuda_launch_count(); ++i)
    calls.launches.push_back(*fake_cuda_launch_at(i));
  std::vector<fake_cuda_tensor_map> maps;
  for (int i = 0; i < fake_cuda_tensor_map_count(); ++i)
    maps.push_back(*fake_cuda_tensor_map_at(i));
  ASSERT_EQ(misread(manifest, backward, 2049, call.buffers, calls, maps), "");
  json once = manifest;
  for (json &launch : once["entry_points"][backward]["launches"])
    launch.erase("per_chunk");
  EXPECT_NE(misread(once, backward, 2049, call.buffers, calls, maps), "");
  json still = manifest;
  for (json &launch : still["entry_points"][backward]["launches"])
    for (json &param : launch["params"]) {
      json &view = param.contains("tensor_map") ? param["tensor_map"] : param;
      if (view.contains("token_stride"))
        view["token_stride"] = 0;
    }
  EXPECT_NE(misread(still, backward, 2049, call.buffers, calls, maps), "");
}

// Tampered chunked manifests, the chunk fields too: a clean error or an
// exact launch, never a misread.
TEST_F(RuntimeTamperChunked, TamperedManifestsAreRefusedOrLaunchedExactly) {
  int64_t cases = fromEnvironment("FMLP_TAMPER_CASES", 200);
  uint64_t seed = uint64_t(fromEnvironment("FMLP_TAMPER_SEED", 27));
  Mutator mutator(seed, /*chunked=*/true);
  int64_t errors = 0, successes = 0, misreads = 0;
  for (int64_t c = 0; c < cases; ++c) {
    std::string tampered = mutator.mutate(manifest);
    int64_t tokens = mutator.tokens();
    CaseResult result = runCase(tampered, tokens);
    if (result.outcome == Outcome::CleanError)
      ++errors;
    else if (result.outcome == Outcome::Success)
      ++successes;
    else if (++misreads <= 10)
      ADD_FAILURE() << "case " << c << " (seed " << seed << ", T = " << tokens
                    << "): " << result.detail << "\nmanifest:\n"
                    << tampered.substr(0, 4000);
  }
  std::printf("tamper (chunked): seed %llu: %lld cases, %lld clean errors, "
              "%lld successes, %lld misreads\n",
              static_cast<unsigned long long>(seed),
              static_cast<long long>(cases), static_cast<long long>(errors),
              static_cast<long long>(successes),
              static_cast<long long>(misreads));
  EXPECT_EQ(misreads, 0);
  if (cases >= 100) {
    EXPECT_GT(errors, cases / 4);
    EXPECT_GT(successes, 0);
  }
}

} // namespace
