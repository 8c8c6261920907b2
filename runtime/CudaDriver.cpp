//===- CudaDriver.cpp - The CUDA driver API, loaded with dlopen -----------===//

#include "CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace fmlp::runtime {
namespace {

struct LoadedDriver {
  CudaDriver driver{};
  std::string error; // empty when loaded
};

template <typename F>
bool resolve(void *library, const char *name, F &slot, std::string &error) {
  slot = reinterpret_cast<F>(dlsym(library, name));
  if (!slot)
    error = std::string("the CUDA driver library lacks ") + name;
  return slot != nullptr;
}

LoadedDriver load() {
  LoadedDriver loaded;
  const char *path = std::getenv("FMLP_LIBCUDA");
  if (!path || !*path)
    path = "libcuda.so.1";
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    loaded.error = std::string("no CUDA driver: cannot load ") + path + " (" +
                   (reason ? reason : "unknown reason") +
                   "); fmlp's kernels need an NVIDIA GPU and its driver";
    return loaded;
  }
  CudaDriver &d = loaded.driver;
  std::string &e = loaded.error;
  bool ok =
      resolve(library, "cuInit", d.cuInit, e) &&
      resolve(library, "cuGetErrorName", d.cuGetErrorName, e) &&
      resolve(library, "cuCtxGetCurrent", d.cuCtxGetCurrent, e) &&
      resolve(library, "cuCtxSetCurrent", d.cuCtxSetCurrent, e) &&
      resolve(library, "cuCtxGetDevice", d.cuCtxGetDevice, e) &&
      resolve(library, "cuDeviceGetAttribute", d.cuDeviceGetAttribute, e) &&
      resolve(library, "cuModuleLoadData", d.cuModuleLoadData, e) &&
      resolve(library, "cuModuleUnload", d.cuModuleUnload, e) &&
      resolve(library, "cuModuleGetFunction", d.cuModuleGetFunction, e) &&
      resolve(library, "cuFuncSetAttribute", d.cuFuncSetAttribute, e) &&
      resolve(library, "cuLaunchKernel", d.cuLaunchKernel, e) &&
      resolve(library, "cuMemsetD8Async", d.cuMemsetD8Async, e) &&
      resolve(library, "cuStreamCreateWithPriority",
              d.cuStreamCreateWithPriority, e) &&
      resolve(library, "cuStreamGetPriority", d.cuStreamGetPriority, e) &&
      resolve(library, "cuStreamDestroy_v2", d.cuStreamDestroy, e) &&
      resolve(library, "cuEventCreate", d.cuEventCreate, e) &&
      resolve(library, "cuEventDestroy_v2", d.cuEventDestroy, e) &&
      resolve(library, "cuEventRecord", d.cuEventRecord, e) &&
      resolve(library, "cuStreamWaitEvent", d.cuStreamWaitEvent, e) &&
      resolve(library, "cuTensorMapEncodeTiled", d.cuTensorMapEncodeTiled, e);
  // Optional: without it, programmatic launches are plain ones.
  d.cuLaunchKernelEx = reinterpret_cast<decltype(d.cuLaunchKernelEx)>(
      dlsym(library, "cuLaunchKernelEx"));
  if (!ok)
    return loaded;
  CUresult result = d.cuInit(0);
  if (result != kCudaSuccess)
    e = d.describe("cuInit", result);
  return loaded;
}

} // namespace

const CudaDriver *CudaDriver::get(std::string &error) {
  static std::once_flag once;
  static LoadedDriver loaded;
  std::call_once(once, [] { loaded = load(); });
  if (!loaded.error.empty()) {
    error = loaded.error;
    return nullptr;
  }
  return &loaded.driver;
}

std::string CudaDriver::describe(const char *call, CUresult result) const {
  const char *name = nullptr;
  if (cuGetErrorName(result, &name) != kCudaSuccess || !name)
    name = "unknown CUDA error";
  return std::string(call) + " failed: " + name + " (" +
         std::to_string(result) + ")";
}

} // namespace fmlp::runtime
