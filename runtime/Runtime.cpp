//===- Runtime.cpp - fmlp's runtime: the C API of fmlp/Runtime.h ----------===//

#include "fmlp/Runtime.h"
#include "fmlp/Target.h"

#include "Checked.h"
#include "CudaDriver.h"
#include "Lanes.h"
#include "Manifest.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

using namespace fmlp::runtime;

namespace {

thread_local std::string lastError;

fmlp_status fail(fmlp_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

bool readFile(const std::string &path, std::string &contents) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return false;
  std::ostringstream buffer;
  buffer << file.rdbuf();
  contents = buffer.str();
  return true;
}

std::string shapeString(const fmlp_tensor &t) {
  std::string s = "[";
  for (int d = 0; d < t.rank; ++d)
    s += (d ? ", " : "") + std::to_string(t.sizes[d]);
  return s + "]";
}

std::string declaredShape(const Argument &argument) {
  std::string s = "[";
  for (size_t d = 0; d < argument.shape.size(); ++d)
    s += (d ? ", " : "") + (argument.shape[d] < 0
                                ? std::string("T")
                                : std::to_string(argument.shape[d]));
  return s + "]";
}

/// The state of a saved-activations buffer, by its address.
enum class Saved { Fresh, Consumed };

} // namespace

struct fmlp_bundle {
  std::string directory;
  Manifest manifest;
  std::string ptx, cubin;
  // After fmlp_bundle_load:
  const CudaDriver *driver = nullptr;
  CUcontext context = nullptr; // the one the module was loaded into
  CUmodule module = nullptr;
  std::map<std::string, CUfunction> functions;
  // Saved activations written by a forward, and whether a backward has
  // consumed them since (dG, dU are written over G, U).
  std::mutex savedMutex;
  std::mutex loadMutex; // fmlp_bundle_load from several threads
  std::map<const void *, Saved> saved;
  bool checkSaved = true; // fmlp_bundle_check_saved
  // Every launch on the caller's stream, each after the one before ends:
  // no side stream (Lanes.h), no programmatic launch
  // (fmlp_bundle_serial_launches, FMLP_SERIAL_LAUNCHES at fmlp_bundle_open).
  bool serial = false;
  // Per caller's stream (sideLaneKey): the side stream of lane 1 and each
  // lane's event, made by the first call on that stream that uses lane 1;
  // destroyed with the bundle. Each caller's stream has its own, so that a
  // side stream that joined one stream's CUDA graph capture serves no
  // other stream.
  struct SideLane {
    CUstream stream = nullptr;
    std::array<CUevent, 2> events{};
  };
  std::map<std::pair<CUstream, std::thread::id>, SideLane> sideLanes;
  LanePlan lanePlan; // fmlp_launch's, under savedMutex
};

extern "C" {

const char *fmlp_status_name(fmlp_status status) {
  switch (status) {
  case FMLP_OK:
    return "FMLP_OK";
  case FMLP_ERROR_INVALID_ARGUMENT:
    return "FMLP_ERROR_INVALID_ARGUMENT";
  case FMLP_ERROR_BUNDLE:
    return "FMLP_ERROR_BUNDLE";
  case FMLP_ERROR_VERSION:
    return "FMLP_ERROR_VERSION";
  case FMLP_ERROR_NO_DRIVER:
    return "FMLP_ERROR_NO_DRIVER";
  case FMLP_ERROR_CUDA:
    return "FMLP_ERROR_CUDA";
  case FMLP_ERROR_CHIP:
    return "FMLP_ERROR_CHIP";
  case FMLP_ERROR_NOT_FOUND:
    return "FMLP_ERROR_NOT_FOUND";
  case FMLP_ERROR_NOT_LOADED:
    return "FMLP_ERROR_NOT_LOADED";
  case FMLP_ERROR_COUNT:
    return "FMLP_ERROR_COUNT";
  case FMLP_ERROR_NULL_POINTER:
    return "FMLP_ERROR_NULL_POINTER";
  case FMLP_ERROR_DTYPE:
    return "FMLP_ERROR_DTYPE";
  case FMLP_ERROR_SHAPE:
    return "FMLP_ERROR_SHAPE";
  case FMLP_ERROR_LAYOUT:
    return "FMLP_ERROR_LAYOUT";
  case FMLP_ERROR_ALIGNMENT:
    return "FMLP_ERROR_ALIGNMENT";
  case FMLP_ERROR_SAVED_CONSUMED:
    return "FMLP_ERROR_SAVED_CONSUMED";
  }
  return "unknown fmlp_status";
}

const char *fmlp_last_error(void) { return lastError.c_str(); }

const char *fmlp_dtype_name(fmlp_dtype dtype) { return dtypeName(dtype); }

const char *fmlp_role_name(fmlp_role role) { return roleName(role); }

fmlp_status fmlp_bundle_open(const char *directory, fmlp_bundle **bundle) {
  if (!directory || !bundle)
    return fail(FMLP_ERROR_INVALID_ARGUMENT,
                "fmlp_bundle_open: directory and bundle must not be null");
  *bundle = nullptr;
  auto opened = std::make_unique<fmlp_bundle>();
  opened->directory = directory;
  std::string manifestPath = opened->directory + "/manifest.json", text;
  if (!readFile(manifestPath, text))
    return fail(FMLP_ERROR_BUNDLE, "cannot read " + manifestPath + " (is " +
                                       opened->directory +
                                       " a bundle written by fmlp-compile?)");
  std::string error;
  if (fmlp_status status = parseManifest(text, opened->manifest, error))
    return fail(status, manifestPath + ": " + error);
  const Manifest &m = opened->manifest;
  if (!readFile(opened->directory + "/" + m.ptxFile, opened->ptx))
    return fail(FMLP_ERROR_BUNDLE,
                "cannot read " + opened->directory + "/" + m.ptxFile);
  if (!m.cubinFile.empty() &&
      !readFile(opened->directory + "/" + m.cubinFile, opened->cubin))
    return fail(FMLP_ERROR_BUNDLE,
                "cannot read " + opened->directory + "/" + m.cubinFile);
  const char *serial = std::getenv("FMLP_SERIAL_LAUNCHES");
  if (serial && *serial && std::strcmp(serial, "0") != 0)
    opened->serial = true;
  *bundle = opened.release();
  return FMLP_OK;
}

void fmlp_bundle_close(fmlp_bundle *bundle) {
  if (!bundle)
    return;
  if (bundle->module && bundle->driver) {
    const CudaDriver &driver = *bundle->driver;
    for (auto &[caller, side] : bundle->sideLanes) {
      for (CUevent event : side.events)
        if (event)
          driver.cuEventDestroy(event);
      if (side.stream)
        driver.cuStreamDestroy(side.stream);
    }
    driver.cuModuleUnload(bundle->module);
  }
  delete bundle;
}

const char *fmlp_chip_for_capability(int major, int minor) {
  // The table's names are string literals: NUL-terminated, static.
  const mlir::fmlp::Target *target =
      mlir::fmlp::targetForCapability(major, minor);
  return target ? target->chip.data() : nullptr;
}

const char *fmlp_bundle_chip(const fmlp_bundle *bundle) {
  return bundle ? bundle->manifest.chip.c_str() : "";
}

const char *fmlp_bundle_compiler(const fmlp_bundle *bundle) {
  return bundle ? bundle->manifest.compiler.c_str() : "";
}

void fmlp_bundle_check_saved(fmlp_bundle *bundle, int enabled) {
  if (!bundle)
    return;
  std::lock_guard<std::mutex> lock(bundle->savedMutex);
  bundle->checkSaved = enabled != 0;
  bundle->saved.clear();
}

void fmlp_bundle_serial_launches(fmlp_bundle *bundle, int enabled) {
  if (!bundle)
    return;
  std::lock_guard<std::mutex> lock(bundle->savedMutex);
  bundle->serial = enabled != 0;
}

fmlp_status fmlp_bundle_load(fmlp_bundle *bundle) {
  if (!bundle)
    return fail(FMLP_ERROR_INVALID_ARGUMENT, "fmlp_bundle_load: null bundle");
  std::lock_guard<std::mutex> lock(bundle->loadMutex);
  if (bundle->module)
    return FMLP_OK;
  std::string error;
  const CudaDriver *driver = CudaDriver::get(error);
  if (!driver)
    return fail(FMLP_ERROR_NO_DRIVER, error);
  CUcontext context = nullptr;
  CUresult result = driver->cuCtxGetCurrent(&context);
  if (result != kCudaSuccess)
    return fail(FMLP_ERROR_CUDA, driver->describe("cuCtxGetCurrent", result));
  if (!context)
    return fail(FMLP_ERROR_CUDA,
                "fmlp_bundle_load: no current CUDA context on this thread "
                "(make one current, e.g. cuDevicePrimaryCtxRetain + "
                "cuCtxSetCurrent, or any CUDA runtime call)");
  CUdevice device = 0;
  int major = 0, minor = 0;
  if ((result = driver->cuCtxGetDevice(&device)) != kCudaSuccess)
    return fail(FMLP_ERROR_CUDA, driver->describe("cuCtxGetDevice", result));
  if ((result = driver->cuDeviceGetAttribute(
           &major, kAttributeComputeCapabilityMajor, device)) != kCudaSuccess ||
      (result = driver->cuDeviceGetAttribute(
           &minor, kAttributeComputeCapabilityMinor, device)) != kCudaSuccess)
    return fail(FMLP_ERROR_CUDA,
                driver->describe("cuDeviceGetAttribute", result));

  // sm_XY[a]: a cubin runs on compute capability X.Y only; PTX also on
  // later chips, except for the architecture-specific 'a' targets.
  const std::string &chip = bundle->manifest.chip;
  int chipVersion = bundle->manifest.chipVersion;
  int deviceVersion = major * 10 + minor;
  bool archSpecific = bundle->manifest.archSpecific;
  std::string deviceName = "sm_" + std::to_string(deviceVersion);
  const std::string *image = nullptr;
  if (deviceVersion == chipVersion && !bundle->cubin.empty())
    image = &bundle->cubin;
  else if (deviceVersion == chipVersion ||
           (deviceVersion > chipVersion && !archSpecific))
    image = &bundle->ptx;
  if (!image) {
    const mlir::fmlp::Target *device =
        mlir::fmlp::targetForCapability(major, minor);
    return fail(FMLP_ERROR_CHIP,
                "the bundle was compiled for " + chip + " but the device is " +
                    deviceName +
                    (device ? ": recompile with fmlp-compile --chip=" +
                                  std::string(device->chip)
                            : ", which fmlp does not know"));
  }
  CUmodule module = nullptr;
  if ((result = driver->cuModuleLoadData(&module, image->c_str())) !=
      kCudaSuccess)
    return fail(FMLP_ERROR_CUDA,
                driver->describe("cuModuleLoadData", result) + " loading " +
                    (image == &bundle->cubin ? bundle->manifest.cubinFile
                                             : bundle->manifest.ptxFile) +
                    " of " + bundle->directory + " on " + deviceName);
  std::map<std::string, CUfunction> functions;
  for (const Entry &entry : bundle->manifest.entries)
    for (const Launch &launch : entry.launches) {
      if (functions.count(launch.kernel))
        continue;
      CUfunction function = nullptr;
      result =
          driver->cuModuleGetFunction(&function, module, launch.kernel.c_str());
      if (result == kCudaSuccess && launch.dynamicSharedBytes > 48 * 1024)
        result = driver->cuFuncSetAttribute(
            function, kFuncAttributeMaxDynamicSharedBytes,
            static_cast<int>(launch.dynamicSharedBytes));
      if (result != kCudaSuccess) {
        driver->cuModuleUnload(module);
        return fail(
            FMLP_ERROR_CUDA,
            driver->describe("cuModuleGetFunction/cuFuncSetAttribute", result) +
                " for kernel " + launch.kernel);
      }
      functions[launch.kernel] = function;
    }
  bundle->driver = driver;
  bundle->context = context;
  bundle->module = module;
  bundle->functions = std::move(functions);
  return FMLP_OK;
}

int fmlp_entry_count(const fmlp_bundle *bundle) {
  return bundle ? static_cast<int>(bundle->manifest.entries.size()) : 0;
}

fmlp_status fmlp_entry_find(const fmlp_bundle *bundle, const char *name,
                            int *entry) {
  if (!bundle || !name || !entry)
    return fail(FMLP_ERROR_INVALID_ARGUMENT,
                "fmlp_entry_find: bundle, name and entry must not be null");
  const std::vector<Entry> &entries = bundle->manifest.entries;
  int found = -1, byKind = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].symbol == name) {
      *entry = static_cast<int>(i);
      return FMLP_OK;
    }
    if (entries[i].kind == name) {
      found = static_cast<int>(i);
      ++byKind;
    }
  }
  if (byKind == 1) {
    *entry = found;
    return FMLP_OK;
  }
  std::string known;
  for (const Entry &e : entries)
    known += (known.empty() ? "" : ", ") + e.symbol;
  return fail(FMLP_ERROR_NOT_FOUND,
              std::string("no entry point ") +
                  (byKind > 1 ? "is the only one of kind '" : "named '") +
                  name + "' in " + bundle->directory + " (it has " + known +
                  ")");
}

const char *fmlp_entry_kind(const fmlp_bundle *bundle, int entry) {
  if (!bundle || entry < 0 || entry >= fmlp_entry_count(bundle))
    return "";
  return bundle->manifest.entries[entry].kind.c_str();
}

const char *fmlp_entry_symbol(const fmlp_bundle *bundle, int entry) {
  if (!bundle || entry < 0 || entry >= fmlp_entry_count(bundle))
    return "";
  return bundle->manifest.entries[entry].symbol.c_str();
}

int fmlp_argument_count(const fmlp_bundle *bundle, int entry) {
  if (!bundle || entry < 0 || entry >= fmlp_entry_count(bundle))
    return 0;
  return static_cast<int>(bundle->manifest.entries[entry].arguments.size());
}

fmlp_status fmlp_argument_info_get(const fmlp_bundle *bundle, int entry,
                                   int argument, fmlp_argument_info *info) {
  if (!info || argument < 0 || argument >= fmlp_argument_count(bundle, entry))
    return fail(FMLP_ERROR_INVALID_ARGUMENT,
                "fmlp_argument_info_get: no such entry point or argument");
  const Argument &a = bundle->manifest.entries[entry].arguments[argument];
  info->name = a.name.c_str();
  info->role = a.role;
  info->dtype = a.dtype;
  info->rank = static_cast<int32_t>(a.shape.size());
  info->shape[0] = a.shape[0];
  info->shape[1] = a.shape.size() > 1 ? a.shape[1] : 0;
  info->alignment = a.alignment;
  info->consumed = a.consumed;
  return FMLP_OK;
}

fmlp_status fmlp_argument_min_tokens(const fmlp_bundle *bundle, int entry,
                                     int argument, int64_t *minTokens) {
  if (!minTokens || argument < 0 ||
      argument >= fmlp_argument_count(bundle, entry))
    return fail(FMLP_ERROR_INVALID_ARGUMENT,
                "fmlp_argument_min_tokens: null pointer, or no such entry "
                "point or argument");
  *minTokens =
      bundle->manifest.entries[entry].arguments[argument].firstUsedTokens;
  return FMLP_OK;
}

} // extern "C"

namespace {

/// fmlp_workspace_bytes and fmlp_workspace_bytes_used (`name`): the bytes of
/// the saved and workspace arguments at T, all of them or (`used`) those a
/// launch at T uses.
fmlp_status workspaceBytes(const char *name, const fmlp_bundle *bundle,
                           int entry, int64_t tokens, bool used,
                           int64_t *bytes) {
  if (!bytes || entry < 0 || entry >= fmlp_entry_count(bundle))
    return fail(FMLP_ERROR_INVALID_ARGUMENT,
                std::string(name) + ": no such entry point");
  if (tokens < 0)
    return fail(FMLP_ERROR_SHAPE,
                std::string(name) + ": T = " + std::to_string(tokens) + " < 0");
  const Entry &e = bundle->manifest.entries[entry];
  std::optional<int64_t> total = 0;
  for (const Argument &a : e.arguments)
    if ((a.role == FMLP_ROLE_SAVED || a.role == FMLP_ROLE_WORKSPACE) &&
        (!used || a.neededAt(tokens))) {
      std::optional<int64_t> argumentBytes = a.bytes(tokens);
      if (argumentBytes)
        total = checkedAdd(*total, *argumentBytes);
      if (!argumentBytes || !total)
        return fail(FMLP_ERROR_SHAPE,
                    std::string(name) + "(" + e.symbol +
                        "): at T = " + std::to_string(tokens) +
                        " the saved and workspace "
                        "buffers overflow a 64-bit byte count (at argument " +
                        a.name + ", " + declaredShape(a) + " " +
                        dtypeName(a.dtype) + ")");
    }
  *bytes = *total;
  return FMLP_OK;
}

} // namespace

extern "C" {

fmlp_status fmlp_workspace_bytes(const fmlp_bundle *bundle, int entry,
                                 int64_t tokens, int64_t *bytes) {
  return workspaceBytes("fmlp_workspace_bytes", bundle, entry, tokens,
                        /*used=*/false, bytes);
}

fmlp_status fmlp_workspace_bytes_used(const fmlp_bundle *bundle, int entry,
                                      int64_t tokens, int64_t *bytes) {
  return workspaceBytes("fmlp_workspace_bytes_used", bundle, entry, tokens,
                        /*used=*/true, bytes);
}

} // extern "C"

namespace {

/// "mlp.forward argument 3 (saved)".
std::string describeArgument(const Entry &entry, int index) {
  return entry.symbol + " argument " + std::to_string(index) + " (" +
         entry.arguments[index].name + ")";
}

/// Checks tensor `t` against `argument`; sets `tokens` from the first
/// token-shaped tensor and checks the others against it.
fmlp_status validate(const Entry &entry, int index, const fmlp_tensor &t,
                     int64_t &tokens) {
  const Argument &a = entry.arguments[index];
  // Messages are built only on failure: a valid launch allocates nothing.
  auto where = [&] { return describeArgument(entry, index); };
  if (t.dtype != a.dtype)
    return fail(FMLP_ERROR_DTYPE, where() + " must be " + dtypeName(a.dtype) +
                                      ", got " + dtypeName(t.dtype));
  if (t.rank < 1 || t.rank > FMLP_MAX_RANK)
    return fail(FMLP_ERROR_SHAPE,
                where() + " has rank " + std::to_string(t.rank));
  for (int d = 0; d < t.rank; ++d)
    if (t.sizes[d] < 0)
      return fail(FMLP_ERROR_SHAPE, where() + " has a negative size");
  // The tensor's bytes fit int64: then so does every product below.
  std::optional<int64_t> tensorBytes = static_cast<int64_t>(dtypeBytes(a.dtype));
  for (int d = 0; d < t.rank && tensorBytes; ++d)
    tensorBytes = checkedMul(*tensorBytes, t.sizes[d]);
  if (!tensorBytes)
    return fail(FMLP_ERROR_SHAPE, where() + " of shape " + shapeString(t) +
                                      " has more bytes than int64 counts");
  // Token arguments [T, n] take any leading dimensions, flattened into T.
  int64_t rows = 1, cols = t.sizes[t.rank - 1];
  bool shapeOk;
  if (a.hasTokenRows()) {
    for (int d = 0; d < t.rank - 1; ++d)
      rows *= t.sizes[d];
    shapeOk = t.rank >= 2 && cols == a.shape[1];
  } else {
    shapeOk = t.rank == static_cast<int32_t>(a.shape.size());
    for (int d = 0; shapeOk && d < t.rank; ++d)
      shapeOk = t.sizes[d] == a.shape[d];
  }
  if (!shapeOk)
    return fail(FMLP_ERROR_SHAPE, where() + " must have shape " +
                                      declaredShape(a) + ", got " +
                                      shapeString(t));
  if (a.hasTokenRows()) {
    if (tokens < 0)
      tokens = rows;
    else if (rows != tokens)
      return fail(FMLP_ERROR_SHAPE, where() + " has " + std::to_string(rows) +
                                        " tokens, the earlier arguments " +
                                        std::to_string(tokens) + " (shape " +
                                        shapeString(t) + ")");
  }
  // Dense row-major: the stride of a dimension of size 1 is free. The
  // expected strides are partial products of the sizes: no overflow.
  int64_t expected = 1;
  for (int d = t.rank - 1; d >= 0; --d) {
    if (t.sizes[d] != 1 && t.strides[d] != expected)
      return fail(FMLP_ERROR_LAYOUT,
                  where() +
                      " must be dense row-major (contiguous): dimension " +
                      std::to_string(d) + " has stride " +
                      std::to_string(t.strides[d]) + ", expected " +
                      std::to_string(expected));
    expected *= t.sizes[d];
  }
  return FMLP_OK;
}

/// The tensor map of `param` for a launch at T = `tokens`.
fmlp_status encodeTensorMap(const CudaDriver &driver, const Entry &entry,
                            const Launch &launch, const Param &param,
                            const fmlp_tensor &t, uint64_t address,
                            int64_t tokens, TensorMap &map) {
  const Argument &a = entry.arguments[param.argument];
  size_t bytes = dtypeBytes(t.dtype);
  int type = t.dtype == FMLP_BF16  ? kTensorMapBFloat16
             : t.dtype == FMLP_F16 ? kTensorMapFloat16
                                   : kTensorMapFloat32;
  uint64_t dims[2] = {
      static_cast<uint64_t>(param.cols),
      static_cast<uint64_t>(param.rows < 0 ? tokens : param.rows)};
  uint64_t strides[1] = {static_cast<uint64_t>(param.rowStride) * bytes};
  unsigned box[2] = {static_cast<unsigned>(param.boxCols),
                     static_cast<unsigned>(param.boxRows)};
  unsigned elementStrides[2] = {1, 1};
  CUresult result = driver.cuTensorMapEncodeTiled(
      &map, type, 2, reinterpret_cast<void *>(address), dims, strides, box,
      elementStrides, /*interleave=*/0, kTensorMapSwizzle128B,
      kTensorMapL2Promotion256B, /*oobFill=*/0);
  if (result != kCudaSuccess)
    return fail(FMLP_ERROR_CUDA,
                driver.describe("cuTensorMapEncodeTiled", result) +
                    " for kernel " + launch.kernel + " of " + entry.symbol +
                    ", argument " + a.name + " [" + std::to_string(dims[1]) +
                    ", " + std::to_string(dims[0]) + "] with rows " +
                    std::to_string(strides[0]) + " bytes apart");
  return FMLP_OK;
}

} // namespace

namespace {

/// Whether argument `i` is an output the caller does not want: passed
/// with data == NULL (its other fields are not read).
bool notWanted(const Entry &entry, const fmlp_tensor *tensors, int i) {
  return entry.arguments[i].role == FMLP_ROLE_OUTPUT && !tensors[i].data;
}

/// Whether `launch` runs for these (validated) tensors, by the rule of
/// fmlp_launch: skipped when it writes at least one argument and every
/// one is a not-wanted output (a launch that says it writes nothing is
/// never skipped); refused when it runs and one of its params refers to a
/// not-wanted output (it would write it beside something needed, or read
/// it), so that nothing is ever written or read through a null pointer.
fmlp_status decideLaunch(const Entry &entry, const Launch &launch,
                         const fmlp_tensor *tensors, bool &runs) {
  runs = launch.writes.empty() ||
         std::any_of(launch.writes.begin(), launch.writes.end(),
                     [&](int a) { return !notWanted(entry, tensors, a); });
  if (!runs)
    return FMLP_OK;
  for (const Param &param : launch.params) {
    if (param.kind == Param::Kind::Tokens ||
        !notWanted(entry, tensors, param.argument))
      continue;
    bool written = std::binary_search(launch.writes.begin(),
                                      launch.writes.end(), param.argument);
    std::string needed;
    for (int a : launch.writes)
      if (!notWanted(entry, tensors, a))
        needed += (needed.empty() ? "" : ", ") + entry.arguments[a].name;
    return fail(FMLP_ERROR_NULL_POINTER,
                describeArgument(entry, param.argument) +
                    " is null (not wanted), but kernel " + launch.kernel +
                    (written ? " writes it together with " + needed
                             : " reads it and writes " + needed) +
                    ": pass a buffer for it (fmlp_outputs_needed says which "
                    "outputs a launch needs)");
  }
  return FMLP_OK;
}

/// Checks the tensors of a launch of `entry`; sets `tokens` (T).
fmlp_status validateTensors(const Entry &entry, const fmlp_tensor *tensors,
                            int count, int64_t &tokens) {
  if (!tensors || count != static_cast<int>(entry.arguments.size()))
    return fail(FMLP_ERROR_COUNT, entry.symbol + " takes " +
                                      std::to_string(entry.arguments.size()) +
                                      " tensors, got " +
                                      std::to_string(tensors ? count : 0));
  // A null workspace is checked once T is known: it may be null where no
  // launch uses it (Argument::neededAt); its other fields are not read.
  auto nullWorkspace = [&](int i) {
    return entry.arguments[i].role == FMLP_ROLE_WORKSPACE && !tensors[i].data;
  };
  tokens = -1;
  for (int i = 0; i < count; ++i)
    if (!notWanted(entry, tensors, i) && !nullWorkspace(i))
      if (fmlp_status status = validate(entry, i, tensors[i], tokens))
        return status;
  if (tokens < 0)
    tokens = entry.staticTokens; // every argument has static rows
  for (int i = 0; i < count; ++i) {
    const Argument &a = entry.arguments[i];
    if ((tokens == 0 && a.hasTokenRows()) || notWanted(entry, tensors, i) ||
        !a.neededAt(tokens))
      continue; // no memory to point to, or none used
    auto address = reinterpret_cast<uintptr_t>(tensors[i].data);
    if (!address && a.role == FMLP_ROLE_WORKSPACE)
      return fail(FMLP_ERROR_NULL_POINTER,
                  describeArgument(entry, i) +
                      " is a null pointer, but the kernels use this "
                      "workspace at T = " +
                      std::to_string(tokens) + " (it may be null only at T < " +
                      std::to_string(a.firstUsedTokens) +
                      ": fmlp_argument_min_tokens)");
    if (!address)
      return fail(FMLP_ERROR_NULL_POINTER,
                  describeArgument(entry, i) +
                      " is a null pointer (only an output may be null, "
                      "meaning not wanted, or a workspace at a T where no "
                      "kernel uses it; this is " +
                      roleName(a.role) + ")");
    if (address % static_cast<uintptr_t>(a.alignment))
      return fail(FMLP_ERROR_ALIGNMENT,
                  describeArgument(entry, i) + " must be aligned to " +
                      std::to_string(a.alignment) + " bytes");
  }
  return FMLP_OK;
}

/// The bundle is loaded, and its context is current on this thread. A
/// thread with no current context (a framework's worker thread that has
/// made no CUDA call yet) gets the bundle's made current, as the CUDA
/// runtime binds its primary context; another current context is refused:
/// the kernels are not loaded there.
fmlp_status checkLoaded(const fmlp_bundle *bundle, const Entry &entry) {
  if (!bundle->module)
    return fail(FMLP_ERROR_NOT_LOADED,
                "fmlp_launch(" + entry.symbol +
                    "): call fmlp_bundle_load first (in the CUDA context "
                    "the launches go to)");
  const CudaDriver &driver = *bundle->driver;
  CUcontext current = nullptr;
  CUresult result = driver.cuCtxGetCurrent(&current);
  if (result == kCudaSuccess && !current)
    result = driver.cuCtxSetCurrent(current = bundle->context);
  if (result != kCudaSuccess)
    return fail(FMLP_ERROR_CUDA,
                driver.describe("cuCtxGetCurrent/cuCtxSetCurrent", result) +
                    " before launching " + entry.symbol);
  if (current != bundle->context)
    return fail(FMLP_ERROR_CUDA,
                "fmlp_launch(" + entry.symbol +
                    "): the current CUDA context is not the one the bundle "
                    "was loaded into (load one bundle per context)");
  return FMLP_OK;
}

/// "T = 300", or for a per-chunk launch "T = 44 (the chunk from token
/// 256)".
std::string describeTokens(const Launch &launch, int64_t tokens,
                           int64_t firstToken) {
  return "T = " + std::to_string(tokens) +
         (launch.perChunk
              ? " (the chunk from token " + std::to_string(firstToken) + ")"
              : std::string());
}

/// The grid of `launch` at T = `tokens` is within the driver's limits.
fmlp_status checkGrid(const Entry &entry, const Launch &launch, int64_t tokens,
                      int64_t firstToken) {
  std::array<uint64_t, 3> grid = launch.grid(tokens);
  for (int d = 0; d < 3; ++d)
    if (grid[d] > static_cast<uint64_t>(kMaxGrid[d]))
      return fail(FMLP_ERROR_SHAPE,
                  entry.symbol + ": kernel " + launch.kernel + " at " +
                      describeTokens(launch, tokens, firstToken) +
                      " needs a grid over the limits: dimension " +
                      std::to_string(d) + " of " + std::to_string(grid[d]) +
                      " blocks, the driver takes " +
                      std::to_string(kMaxGrid[d]));
  return FMLP_OK;
}

/// One kernel launch of `entry` at T = `tokens` on `stream`; a per-chunk
/// launch's views start at token `firstToken` (forEachLaunch).
fmlp_status launchKernel(const fmlp_bundle *bundle, const Entry &entry,
                         const Launch &launch, const fmlp_tensor *tensors,
                         int64_t tokens, int64_t firstToken, void *stream) {
  const CudaDriver &driver = *bundle->driver;
  if (fmlp_status status = checkGrid(entry, launch, tokens, firstToken))
    return status;
  std::array<uint64_t, 3> grid = launch.grid(tokens);
  // Parameter storage on the stack: nothing is allocated per launch. Every
  // pointer and view lies inside its tensor for any T (parseManifest), and
  // the tensors' bytes fit int64 (validate): no address computed here
  // wraps. A per-chunk view starts firstToken * tokenStride elements
  // further: tokenStride is 0, or n for a tensor of T x n elements, and
  // firstToken < T.
  std::array<uint64_t, kMaxParams> pointers{};
  std::array<TensorMap, kMaxParams> maps{};
  std::array<void *, kMaxParams> params{};
  int64_t tokenParam = tokens;
  for (size_t p = 0; p < launch.params.size(); ++p) {
    const Param &param = launch.params[p];
    if (param.kind == Param::Kind::Tokens) {
      params[p] = &tokenParam;
      continue;
    }
    const fmlp_tensor &t = tensors[param.argument];
    uint64_t address = reinterpret_cast<uint64_t>(t.data) +
                       (static_cast<uint64_t>(param.offset) +
                        static_cast<uint64_t>(firstToken) *
                            static_cast<uint64_t>(param.tokenStride)) *
                           dtypeBytes(t.dtype);
    if (param.kind == Param::Kind::Pointer) {
      pointers[p] = address;
      params[p] = &pointers[p];
      continue;
    }
    if (fmlp_status status = encodeTensorMap(driver, entry, launch, param, t,
                                             address, tokens, maps[p]))
      return status;
    params[p] = &maps[p];
  }
  LaunchConfig config{};
  for (int d = 0; d < 3; ++d) {
    config.grid[d] = static_cast<unsigned>(grid[d]);
    config.block[d] = static_cast<unsigned>(launch.block[d]);
  }
  config.sharedMemBytes = static_cast<unsigned>(launch.dynamicSharedBytes);
  config.stream = static_cast<CUstream>(stream);
  // A kernel that waits for the previous ones itself may be launched while
  // they end (a CUDA graph captures the programmatic edge).
  LaunchAttribute programmatic{};
  bool ex = launch.programmatic && !bundle->serial && driver.cuLaunchKernelEx;
  if (ex) {
    programmatic.id = kLaunchAttributeProgrammaticStreamSerialization;
    const int allowed = 1;
    std::memcpy(programmatic.value, &allowed, sizeof allowed);
    config.attributes = &programmatic;
    config.attributeCount = 1;
  }
  CUfunction function = bundle->functions.at(launch.kernel);
  CUresult result =
      ex ? driver.cuLaunchKernelEx(&config, function, params.data(), nullptr)
         : driver.cuLaunchKernel(function, config.grid[0], config.grid[1],
                                 config.grid[2], config.block[0],
                                 config.block[1], config.block[2],
                                 config.sharedMemBytes, config.stream,
                                 params.data(), nullptr);
  if (result != kCudaSuccess)
    return fail(FMLP_ERROR_CUDA,
                driver.describe(ex ? "cuLaunchKernelEx" : "cuLaunchKernel",
                                result) +
                    " for kernel " +
                    launch.kernel + " of " + entry.symbol + " at " +
                    describeTokens(launch, tokens, firstToken) + ", grid (" +
                    std::to_string(grid[0]) + ", " + std::to_string(grid[1]) +
                    ", " + std::to_string(grid[2]) + ")");
  return FMLP_OK;
}

/// The key of `caller`'s side lane: the handle, and the thread for the
/// per-thread default stream (CU_STREAM_PER_THREAD, 0x2: one handle, a
/// stream per thread).
std::pair<CUstream, std::thread::id> sideLaneKey(CUstream caller) {
  const CUstream perThread = reinterpret_cast<CUstream>(uintptr_t(0x2));
  return {caller,
          caller == perThread ? std::this_thread::get_id() : std::thread::id()};
}

/// Whether two of `entry`'s tensors overlap in memory where one of them is
/// written (not an input): then one stream keeps the order of the calls'
/// launches, since conflicts are derived per argument (Lanes.h).
bool writtenTensorsOverlap(const Entry &entry, const fmlp_tensor *tensors,
                           int64_t tokens) {
  auto range = [&](size_t i) {
    auto begin = reinterpret_cast<uintptr_t>(tensors[i].data);
    // validateTensors: dense, its bytes fit int64.
    return std::make_pair(begin,
                          begin + uintptr_t(*entry.arguments[i].bytes(tokens)));
  };
  // A workspace no launch uses at T may be passed anywhere: not a buffer
  // of the call.
  auto passed = [&](size_t i) {
    return tensors[i].data && entry.arguments[i].neededAt(tokens);
  };
  for (size_t i = 0; i < entry.arguments.size(); ++i) {
    if (!passed(i))
      continue;
    auto [a0, a1] = range(i);
    for (size_t j = i + 1; j < entry.arguments.size(); ++j) {
      if (!passed(j) || (entry.arguments[i].role == FMLP_ROLE_INPUT &&
                         entry.arguments[j].role == FMLP_ROLE_INPUT))
        continue;
      auto [b0, b1] = range(j);
      if (a0 < b1 && b0 < a1)
        return true;
    }
  }
  return false;
}

/// The streams of one fmlp_launch call (Lanes.h): lane 0 the caller's,
/// lane 1 the caller's side stream with the lanes' events.
class Lanes {
public:
  Lanes(const CudaDriver &driver, const Entry &entry, CUstream caller)
      : driver(driver), entry(entry), streams{caller, caller} {}

  void *stream(int lane) const { return streams[lane]; }

  /// Lane 1 of the caller's stream, made on first use; lane 0 records its
  /// event first when lane 1 waits for the caller's earlier work.
  fmlp_status fork(fmlp_bundle &bundle, bool recordFirst) {
    auto [at, made] = bundle.sideLanes.try_emplace(sideLaneKey(streams[0]));
    fmlp_bundle::SideLane &side = at->second;
    if (!side.stream) {
      // Of the caller's priority: dX's GEMM is the caller's work.
      int priority = 0;
      CUresult result = driver.cuStreamGetPriority(streams[0], &priority);
      if (result == kCudaSuccess)
        result = driver.cuStreamCreateWithPriority(
            &side.stream, kStreamNonBlocking, priority);
      for (CUevent &event : side.events)
        if (result == kCudaSuccess)
          result = driver.cuEventCreate(&event, kEventDisableTiming);
      if (result != kCudaSuccess) {
        for (CUevent event : side.events)
          if (event)
            driver.cuEventDestroy(event);
        if (side.stream)
          driver.cuStreamDestroy(side.stream);
        bundle.sideLanes.erase(at);
        return fail(FMLP_ERROR_CUDA,
                    driver.describe("cuStreamCreateWithPriority/cuEventCreate",
                                    result) +
                        " making the side stream of " + entry.symbol);
      }
    }
    streams[1] = side.stream;
    events = side.events;
    return recordFirst ? record(0) : FMLP_OK;
  }
  fmlp_status record(int lane) {
    return check(driver.cuEventRecord(events[lane], streams[lane]),
                 "cuEventRecord");
  }
  fmlp_status wait(int lane) {
    fmlp_status status = check(
        driver.cuStreamWaitEvent(streams[lane], events[1 - lane], 0),
        "cuStreamWaitEvent");
    // Lane 1's first operation of a call is a wait (Lanes.h).
    sideStarted = sideStarted || (lane == 1 && status == FMLP_OK);
    return status;
  }
  /// Lane 0 waits for lane 1's event: after the plan's last record, or,
  /// after a failure, recorded again first (the plan's may not have been
  /// reached), and only when lane 1 has work of this call (an idle side
  /// stream is not part of a capture the caller's stream is in).
  fmlp_status join(bool failed) {
    if (failed && !sideStarted)
      return FMLP_OK;
    if (failed)
      if (fmlp_status status = record(1))
        return status;
    return wait(0);
  }

private:
  fmlp_status check(CUresult result, const char *call) {
    if (result == kCudaSuccess)
      return FMLP_OK;
    return fail(FMLP_ERROR_CUDA, driver.describe(call, result) +
                                     " ordering the launches of " +
                                     entry.symbol + " on two streams");
  }

  const CudaDriver &driver;
  const Entry &entry;
  std::array<CUstream, 2> streams;
  std::array<CUevent, 2> events{};
  bool sideStarted = false;
};

/// A launch over no token: each output without token rows (the weight and
/// bias gradients, sums over the tokens) is zero; nothing else is written
/// (and the driver is not needed when there is no such output).
fmlp_status zeroTokenFreeOutputs(const fmlp_bundle *bundle, const Entry &entry,
                                 const fmlp_tensor *tensors, void *stream) {
  auto tokenFreeOutput = [](const Argument &a) {
    return a.role == FMLP_ROLE_OUTPUT && !a.hasTokenRows();
  };
  const std::vector<Argument> &arguments = entry.arguments;
  if (std::none_of(arguments.begin(), arguments.end(), tokenFreeOutput))
    return FMLP_OK;
  if (fmlp_status status = checkLoaded(bundle, entry))
    return status;
  const CudaDriver &driver = *bundle->driver;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Argument &a = arguments[i];
    if (!tokenFreeOutput(a) || notWanted(entry, tensors, static_cast<int>(i)))
      continue;
    // A token-free argument's bytes fit int64 (parseManifest).
    size_t bytes = static_cast<size_t>(*a.bytes(0));
    CUresult result =
        driver.cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(tensors[i].data),
                               0, bytes, static_cast<CUstream>(stream));
    if (result != kCudaSuccess)
      return fail(FMLP_ERROR_CUDA,
                  driver.describe("cuMemsetD8Async", result) + " zeroing " +
                      describeArgument(entry, static_cast<int>(i)) +
                      " at T = 0");
  }
  return FMLP_OK;
}

} // namespace

extern "C" fmlp_status fmlp_launch(fmlp_bundle *bundle, int entryIndex,
                                   const fmlp_tensor *tensors, int count,
                                   void *stream) {
  if (!bundle || entryIndex < 0 || entryIndex >= fmlp_entry_count(bundle))
    return fail(FMLP_ERROR_INVALID_ARGUMENT,
                "fmlp_launch: null bundle or no such entry point");
  const Entry &entry = bundle->manifest.entries[entryIndex];
  int64_t tokens = -1;
  if (fmlp_status status = validateTensors(entry, tensors, count, tokens))
    return status;
  if (tokens == 0)
    return zeroTokenFreeOutputs(bundle, entry, tensors, stream);

  // A backward consumes saved activations: only once per forward.
  std::lock_guard<std::mutex> lock(bundle->savedMutex);
  for (int i = 0; i < count; ++i) {
    const Argument &a = entry.arguments[i];
    if (!bundle->checkSaved || a.role != FMLP_ROLE_SAVED || !a.consumed)
      continue;
    auto it = bundle->saved.find(tensors[i].data);
    if (it == bundle->saved.end() || it->second != Saved::Fresh)
      return fail(FMLP_ERROR_SAVED_CONSUMED,
                  describeArgument(entry, i) + ": " +
                      (it == bundle->saved.end()
                           ? "these saved activations were not written by a "
                             "forward of this bundle"
                           : "these saved activations were consumed by an "
                             "earlier backward, which wrote dG and dU over G "
                             "and U; run the forward again (or keep a copy "
                             "to backward twice)"));
  }
  // The launch plan (forEachLaunch: the launches whose range holds T, the
  // per-chunk ones once per chunk), less those that write only outputs not
  // wanted (decideLaunch), each on its lane (Lanes.h); every launch is
  // decided and its grid checked before the first: none or all run.
  // Two lanes only where the entry has a launch on lane 1 (a forward has
  // none: its calls skip the overlap check).
  bool sideLane =
      !bundle->serial &&
      std::any_of(entry.launches.begin(), entry.launches.end(),
                  [](const Launch &launch) { return launch.lane == 1; }) &&
      !writtenTensorsOverlap(entry, tensors, tokens);
  LanePlan &plan = bundle->lanePlan;
  plan.begin(entry, sideLane ? 2 : 1);
  if (fmlp_status status = forEachLaunch(
          entry, tokens,
          [&](const Launch &launch, int64_t launchTokens,
              int64_t first) -> fmlp_status {
            bool runs = false;
            if (fmlp_status status = decideLaunch(entry, launch, tensors, runs))
              return status;
            if (!runs)
              return FMLP_OK;
            plan.add(launch);
            return checkGrid(entry, launch, launchTokens, first);
          }))
    return status;
  plan.finish();
  if (fmlp_status status = checkLoaded(bundle, entry))
    return status;
  Lanes lanes(*bundle->driver, entry, static_cast<CUstream>(stream));
  if (plan.usesSideLane())
    if (fmlp_status status = lanes.fork(*bundle, plan.recordsAtStart()))
      return status;
  size_t step = 0;
  fmlp_status launched = forEachLaunch(
      entry, tokens,
      [&](const Launch &launch, int64_t launchTokens,
          int64_t first) -> fmlp_status {
        bool runs = false;
        decideLaunch(entry, launch, tensors, runs); // as above: accepted
        if (!runs)
          return FMLP_OK;
        const LaneStep &s = plan.steps()[step++];
        if (s.waits)
          if (fmlp_status status = lanes.wait(s.lane))
            return status;
        if (fmlp_status status =
                launchKernel(bundle, entry, launch, tensors, launchTokens,
                             first, lanes.stream(s.lane)))
          return status;
        return s.records ? lanes.record(s.lane) : FMLP_OK;
      });
  // After a failure too: lane 1 joins the caller's stream (a capture with
  // a stream left forked cannot end).
  if (plan.usesSideLane() && (plan.joinsAtEnd() || launched != FMLP_OK))
    if (fmlp_status status = lanes.join(/*failed=*/launched != FMLP_OK))
      if (launched == FMLP_OK)
        launched = status;
  if (launched != FMLP_OK)
    return launched;
  for (int i = 0; i < count && bundle->checkSaved; ++i) {
    const Argument &a = entry.arguments[i];
    if (a.role == FMLP_ROLE_SAVED)
      bundle->saved[tensors[i].data] =
          a.consumed ? Saved::Consumed : Saved::Fresh;
  }
  return FMLP_OK;
}

extern "C" fmlp_status fmlp_outputs_needed(const fmlp_bundle *bundle,
                                           int entryIndex,
                                           const int32_t *wanted,
                                           int32_t *needed) {
  if (!bundle || !wanted || !needed || entryIndex < 0 ||
      entryIndex >= fmlp_entry_count(bundle))
    return fail(FMLP_ERROR_INVALID_ARGUMENT,
                "fmlp_outputs_needed: null bundle or array, or no such entry "
                "point");
  const Entry &entry = bundle->manifest.entries[entryIndex];
  const std::vector<Argument> &arguments = entry.arguments;
  auto isOutput = [&](int a) { return arguments[a].role == FMLP_ROLE_OUTPUT; };
  for (size_t a = 0; a < arguments.size(); ++a)
    needed[a] = isOutput(static_cast<int>(a)) && wanted[a] ? 1 : 0;
  // The least fixed point: a launch that writes a non-output or a needed
  // output runs (at some T), and then every output it refers to is
  // needed. Each round adds an output or ends: at most (outputs + 1)
  // rounds.
  for (bool changed = true; changed;) {
    changed = false;
    for (const Launch &launch : entry.launches) {
      bool runs = launch.writes.empty() ||
                  std::any_of(launch.writes.begin(), launch.writes.end(),
                              [&](int a) { return !isOutput(a) || needed[a]; });
      if (!runs)
        continue;
      for (const Param &param : launch.params)
        if (param.kind != Param::Kind::Tokens && isOutput(param.argument) &&
            !needed[param.argument]) {
          needed[param.argument] = 1;
          changed = true;
        }
    }
  }
  return FMLP_OK;
}

extern "C" int fmlp_kernel_count(const fmlp_bundle *bundle, int entry) {
  if (!bundle || entry < 0 || entry >= fmlp_entry_count(bundle))
    return 0;
  return static_cast<int>(bundle->manifest.entries[entry].launches.size());
}

extern "C" const char *fmlp_kernel_name(const fmlp_bundle *bundle, int entry,
                                        int kernel) {
  if (kernel < 0 || kernel >= fmlp_kernel_count(bundle, entry))
    return "";
  return bundle->manifest.entries[entry].launches[kernel].kernel.c_str();
}

extern "C" fmlp_status fmlp_kernel_tokens(const fmlp_bundle *bundle,
                                          int entry, int kernel,
                                          int64_t *minTokens,
                                          int64_t *maxTokens) {
  if (!minTokens || !maxTokens || kernel < 0 ||
      kernel >= fmlp_kernel_count(bundle, entry))
    return fail(FMLP_ERROR_INVALID_ARGUMENT,
                "fmlp_kernel_tokens: null bundle or pointer, or no such entry "
                "point or kernel");
  const Launch &launch = bundle->manifest.entries[entry].launches[kernel];
  *minTokens = launch.minTokens;
  *maxTokens = launch.maxTokens;
  return FMLP_OK;
}

extern "C" fmlp_status fmlp_launch_kernel(fmlp_bundle *bundle, int entryIndex,
                                          int kernel,
                                          const fmlp_tensor *tensors, int count,
                                          void *stream) {
  if (kernel < 0 || kernel >= fmlp_kernel_count(bundle, entryIndex))
    return fail(FMLP_ERROR_INVALID_ARGUMENT,
                "fmlp_launch_kernel: null bundle, or no such entry point or "
                "kernel");
  const Entry &entry = bundle->manifest.entries[entryIndex];
  int64_t tokens = -1;
  if (fmlp_status status = validateTensors(entry, tensors, count, tokens))
    return status;
  if (tokens == 0)
    return FMLP_OK;
  const Launch &chosen = entry.launches[kernel];
  // Its launches in the entry point's plan: one, or one per chunk it
  // serves.
  auto ofChosen = [&](auto &&then) {
    return forEachLaunch(entry, tokens,
                         [&](const Launch &launch, int64_t launchTokens,
                             int64_t first) -> fmlp_status {
                           return &launch == &chosen ? then(launchTokens, first)
                                                     : FMLP_OK;
                         });
  };
  int64_t runs = 0;
  ofChosen([&](int64_t, int64_t) {
    ++runs;
    return FMLP_OK;
  });
  if (runs == 0)
    return fail(FMLP_ERROR_INVALID_ARGUMENT,
                "fmlp_launch_kernel: kernel " + std::to_string(kernel) + " (" +
                    chosen.kernel + ") of " + entry.symbol + " serves T in [" +
                    std::to_string(chosen.minTokens) + ", " +
                    (chosen.maxTokens == INT64_MAX
                         ? std::string("inf")
                         : std::to_string(chosen.maxTokens)) +
                    "], not T = " + std::to_string(tokens) +
                    (chosen.perChunk
                         ? " in chunks of " + std::to_string(entry.chunkTokens)
                         : std::string()) +
                    " (fmlp_kernel_tokens gives each kernel's range)");
  bool wanted = false;
  if (fmlp_status status = decideLaunch(entry, chosen, tensors, wanted))
    return status;
  if (!wanted)
    return FMLP_OK; // it writes only outputs that are not wanted
  if (fmlp_status status = checkLoaded(bundle, entry))
    return status;
  if (fmlp_status status = ofChosen([&](int64_t launchTokens, int64_t first) {
        return checkGrid(entry, chosen, launchTokens, first);
      }))
    return status;
  return ofChosen([&](int64_t launchTokens, int64_t first) {
    return launchKernel(bundle, entry, chosen, tensors, launchTokens, first,
                        stream);
  });
}

extern "C" int64_t fmlp_entry_chunk_tokens(const fmlp_bundle *bundle,
                                           int entry) {
  if (!bundle || entry < 0 || entry >= fmlp_entry_count(bundle))
    return 0;
  return bundle->manifest.entries[entry].chunkTokens;
}

extern "C" int64_t fmlp_entry_static_tokens(const fmlp_bundle *bundle,
                                            int entry) {
  if (!bundle || entry < 0 || entry >= fmlp_entry_count(bundle))
    return 0;
  return bundle->manifest.entries[entry].staticTokens;
}

extern "C" int fmlp_kernel_per_chunk(const fmlp_bundle *bundle, int entry,
                                     int kernel) {
  if (kernel < 0 || kernel >= fmlp_kernel_count(bundle, entry))
    return 0;
  return bundle->manifest.entries[entry].launches[kernel].perChunk;
}
