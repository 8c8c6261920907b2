//===- FakeCudaDriver.cpp - A libcuda stand-in for the runtime's tests ----===//
//
// Exports the driver entry points fmlp's runtime resolves, with the
// driver's ABI, and records what they are called with instead of touching
// a GPU: the modules loaded, the kernels looked up, each launch's grid,
// block, shared memory and parameters (copied at the call, by the sizes the
// test announces), each tensor map's encoding and each memset. Loaded by the
// runtime through FMLP_LIBCUDA (RuntimeLaunchTest.cpp), so the whole launch
// path runs on machines without a GPU.
//
//===----------------------------------------------------------------------===//

#include "FakeCudaDriver.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

struct State {
  int major = 9, minor = 0;
  std::vector<size_t> paramSizes;
  std::vector<fake_cuda_launch> launches;
  std::vector<fake_cuda_tensor_map> maps;
  std::vector<std::string> functionNames;
  std::vector<fake_cuda_memset> memsets;
  std::vector<fake_cuda_attribute> attributes;
  std::vector<fake_cuda_op> ops;
  std::map<void *, int> priorities;
  std::string failing; // fake_cuda_fail
  int failAfter = 0;
  int modulesLoaded = 0, streamsMade = 0, liveStreams = 0, eventsMade = 0;
};

State &state() {
  static State s;
  return s;
}

/// Whether the test asked this call to fail (fake_cuda_fail).
bool failsNow(const char *name) {
  State &s = state();
  if (s.failing != name || s.failAfter-- > 0)
    return false;
  s.failing.clear();
  return true;
}

} // namespace

extern "C" {

// The test's controls.
void fake_cuda_reset(int major, int minor, const size_t *paramSizes,
                     int count) {
  State &s = state();
  s = State();
  s.major = major;
  s.minor = minor;
  s.paramSizes.assign(paramSizes, paramSizes + count);
}
int fake_cuda_launch_count() {
  return static_cast<int>(state().launches.size());
}
const fake_cuda_launch *fake_cuda_launch_at(int i) {
  return &state().launches.at(static_cast<size_t>(i));
}
int fake_cuda_tensor_map_count() {
  return static_cast<int>(state().maps.size());
}
const fake_cuda_tensor_map *fake_cuda_tensor_map_at(int i) {
  return &state().maps.at(static_cast<size_t>(i));
}
int fake_cuda_modules_loaded() { return state().modulesLoaded; }
int fake_cuda_attribute_count() {
  return static_cast<int>(state().attributes.size());
}
const fake_cuda_attribute *fake_cuda_attribute_at(int i) {
  return &state().attributes.at(static_cast<size_t>(i));
}
int fake_cuda_memset_count() {
  return static_cast<int>(state().memsets.size());
}
const fake_cuda_memset *fake_cuda_memset_at(int i) {
  return &state().memsets.at(static_cast<size_t>(i));
}
int fake_cuda_op_count() { return static_cast<int>(state().ops.size()); }
const fake_cuda_op *fake_cuda_op_at(int i) {
  return &state().ops.at(static_cast<size_t>(i));
}
int fake_cuda_live_streams() { return state().liveStreams; }
void fake_cuda_fail(const char *name, int after) {
  state().failing = name;
  state().failAfter = after;
}

// The driver's entry points (ABI of cuda.h: handles are pointers).
int cuInit(unsigned) { return 0; }
int cuGetErrorName(int result, const char **name) {
  *name = result == 1 ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_UNKNOWN";
  return 0;
}
// One context, current on the threads that made it so: a new thread has
// none until cuCtxSetCurrent (fake_cuda_unbind_context clears it).
static int fakeContext;
static thread_local void *currentContext = &fakeContext;
int cuCtxGetCurrent(void **context) {
  *context = currentContext;
  return 0;
}
int cuCtxSetCurrent(void *context) {
  currentContext = context;
  return 0;
}
void fake_cuda_unbind_context() { currentContext = nullptr; }
int cuCtxGetDevice(int *device) {
  *device = 0;
  return 0;
}
int cuDeviceGetAttribute(int *value, int attribute, int) {
  *value = attribute == 75 ? state().major : state().minor;
  return 0;
}
int cuModuleLoadData(void **module, const void *) {
  static int fakeModule;
  ++state().modulesLoaded;
  *module = &fakeModule;
  return 0;
}
int cuModuleUnload(void *) { return 0; }
int cuModuleGetFunction(void **function, void *, const char *name) {
  std::vector<std::string> &names = state().functionNames;
  names.push_back(name);
  // The handle is the name's index + 1.
  *function = reinterpret_cast<void *>(names.size());
  return 0;
}
int cuFuncSetAttribute(void *function, int attribute, int value) {
  State &s = state();
  fake_cuda_attribute record{};
  std::string name = s.functionNames.at(reinterpret_cast<size_t>(function) - 1);
  std::strncpy(record.kernel, name.c_str(), sizeof(record.kernel) - 1);
  record.attribute = attribute;
  record.value = value;
  s.attributes.push_back(record);
  return 0;
}
int cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                   unsigned bx, unsigned by, unsigned bz, unsigned shared,
                   void *stream, void **params, void **) {
  State &s = state();
  if (failsNow("cuLaunchKernel"))
    return 1;
  fake_cuda_launch launch{};
  std::string name = s.functionNames.at(reinterpret_cast<size_t>(function) - 1);
  std::strncpy(launch.kernel, name.c_str(), sizeof(launch.kernel) - 1);
  launch.grid[0] = gx, launch.grid[1] = gy, launch.grid[2] = gz;
  launch.block[0] = bx, launch.block[1] = by, launch.block[2] = bz;
  launch.shared = shared;
  launch.stream = stream;
  // The runtime's parameter array is zeroed past the kernel's count; every
  // parameter (T, a pointer, a tensor map) has at least 8 bytes.
  for (int i = 0; i < 32 && params[i]; ++i) {
    std::memcpy(&launch.paramWords[i], params[i], sizeof(uint64_t));
    launch.paramCount = i + 1;
  }
  size_t at = 0;
  for (size_t i = 0; i < s.paramSizes.size() && i < 16 && params[i]; ++i) {
    std::memcpy(launch.params + at, params[i], s.paramSizes[i]);
    launch.paramOffsets[i] = at;
    at += s.paramSizes[i];
  }
  s.ops.push_back({FAKE_CUDA_LAUNCH, stream, nullptr,
                   static_cast<int>(s.launches.size())});
  s.launches.push_back(launch);
  return 0;
}
// cuda.h's CUlaunchAttribute and CUlaunchConfig (runtime/CudaDriver.h).
struct FakeLaunchAttribute {
  int id;
  char pad[4];
  alignas(8) unsigned char value[64];
};
struct FakeLaunchConfig {
  unsigned grid[3], block[3], shared;
  void *stream;
  FakeLaunchAttribute *attributes;
  unsigned attributeCount;
};
int cuLaunchKernelEx(const FakeLaunchConfig *config, void *function,
                     void **params, void **extra) {
  int result = cuLaunchKernel(function, config->grid[0], config->grid[1],
                              config->grid[2], config->block[0],
                              config->block[1], config->block[2],
                              config->shared, config->stream, params, extra);
  if (result != 0)
    return result;
  for (unsigned i = 0; i < config->attributeCount; ++i) {
    int value;
    std::memcpy(&value, config->attributes[i].value, sizeof value);
    if (config->attributes[i].id == 6 && value == 1) // programmatic
      state().launches.back().programmatic = 1;
    else
      return 1; // CUDA_ERROR_INVALID_VALUE: an attribute fmlp never sets
  }
  return result;
}
int cuMemsetD8Async(unsigned long long address, unsigned char value,
                    size_t bytes, void *stream) {
  state().memsets.push_back({address, value, bytes, stream});
  return 0;
}
// Streams and events are distinct addresses no real handle has; a
// stream's priority is what the test set for it (fake_cuda_set_priority),
// else 0.
int cuStreamCreateWithPriority(void **stream, unsigned, int priority) {
  State &s = state();
  if (failsNow("cuStreamCreate"))
    return 1;
  *stream = reinterpret_cast<void *>(0x5E0000 + 0x10 * ++s.streamsMade);
  s.priorities[*stream] = priority;
  ++s.liveStreams;
  return 0;
}
int cuStreamGetPriority(void *stream, int *priority) {
  auto found = state().priorities.find(stream);
  *priority = found == state().priorities.end() ? 0 : found->second;
  return 0;
}
void fake_cuda_set_priority(void *stream, int priority) {
  state().priorities[stream] = priority;
}
int cuStreamDestroy_v2(void *) {
  --state().liveStreams;
  return 0;
}
int cuEventCreate(void **event, unsigned) {
  *event = reinterpret_cast<void *>(0xE70000 + 0x10 * ++state().eventsMade);
  return 0;
}
int cuEventDestroy_v2(void *) { return 0; }
int cuEventRecord(void *event, void *stream) {
  state().ops.push_back({FAKE_CUDA_RECORD, stream, event, -1});
  return 0;
}
int cuStreamWaitEvent(void *stream, void *event, unsigned) {
  state().ops.push_back({FAKE_CUDA_WAIT, stream, event, -1});
  return 0;
}
int cuTensorMapEncodeTiled(void *map, int type, unsigned rank, void *address,
                           const uint64_t *dims, const uint64_t *strides,
                           const unsigned *box, const unsigned *, int,
                           int swizzle, int, int) {
  fake_cuda_tensor_map m{};
  m.type = type;
  m.rank = rank;
  m.address = reinterpret_cast<uint64_t>(address);
  for (unsigned d = 0; d < rank && d < 2; ++d) {
    m.dims[d] = dims[d];
    m.box[d] = box[d];
  }
  m.stride = strides[0];
  m.swizzle = swizzle;
  state().maps.push_back(m);
  // The map's first word tells the launch's copy which encoding it is.
  uint64_t tag = 0xF3A9000000000000ull | state().maps.size();
  std::memcpy(map, &tag, sizeof(tag));
  return 0;
}

} // extern "C"
