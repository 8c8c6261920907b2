//===- CudaDriver.h - The CUDA driver API, loaded with dlopen ---*- C++ -*-===//
//
// The few driver entry points the runtime calls, resolved from
// libcuda.so.1 at first use, so that the runtime builds without the CUDA
// toolkit and reports a clear error on machines without a driver. The
// types are the driver's ABI (cuda.h): handles are pointers, CUresult and
// CUdevice are ints. FMLP_LIBCUDA names another library to load (tests use
// it to exercise the missing-driver path on any machine).
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_RUNTIME_CUDADRIVER_H
#define FMLP_RUNTIME_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace fmlp::runtime {

using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUdeviceptr = unsigned long long;

constexpr CUresult kCudaSuccess = 0;
constexpr int kAttributeComputeCapabilityMajor = 75;
constexpr int kAttributeComputeCapabilityMinor = 76;
constexpr int kFuncAttributeMaxDynamicSharedBytes = 8;
// CUtensorMapDataType, CUtensorMapSwizzle, CUtensorMapL2promotion (cuda.h).
constexpr int kTensorMapFloat16 = 6, kTensorMapFloat32 = 7,
              kTensorMapBFloat16 = 9;
constexpr int kTensorMapSwizzle128B = 3, kTensorMapL2Promotion256B = 3;

/// CUlaunchAttribute (cuda.h): an id and a 64-byte value; the one fmlp sets,
/// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, is an int at the
/// value's start.
constexpr unsigned kStreamNonBlocking = 1, kEventDisableTiming = 2;
constexpr int kLaunchAttributeProgrammaticStreamSerialization = 6;
struct LaunchAttribute {
  int id;
  char pad[4];
  alignas(8) unsigned char value[64];
};
/// CUlaunchConfig (cuda.h).
struct LaunchConfig {
  unsigned grid[3], block[3];
  unsigned sharedMemBytes;
  CUstream stream;
  LaunchAttribute *attributes;
  unsigned attributeCount;
};
static_assert(sizeof(LaunchAttribute) == 72 && sizeof(LaunchConfig) == 56,
              "cuda.h's CUlaunchAttribute and CUlaunchConfig layouts");

/// CUtensorMap: 128 opaque bytes, 64-byte aligned.
struct alignas(64) TensorMap {
  uint64_t opaque[16];
};

struct CudaDriver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetDevice)(CUdevice *);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  /// Optional (CUDA 12.0 onwards; null when the driver lacks it): launches
  /// that may start before the previous kernel on the stream ends.
  CUresult (*cuLaunchKernelEx)(const LaunchConfig *, CUfunction, void **,
                               void **);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  // A side stream for the launches of lane 1, and the events that order
  // the lanes (Lanes.h).
  CUresult (*cuStreamCreateWithPriority)(CUstream *, unsigned, int);
  CUresult (*cuStreamGetPriority)(CUstream, int *);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  // CUtensorMap *, CUtensorMapDataType, rank, address, dims, strides (bytes,
  // rank - 1), box, element strides, interleave, swizzle, L2 promotion,
  // out-of-bounds fill.
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *,
                                     const uint64_t *, const uint64_t *,
                                     const unsigned *, const unsigned *, int,
                                     int, int, int);

  /// The driver, loaded once per process; nullptr with `error` set when
  /// the library or one of its symbols is missing.
  static const CudaDriver *get(std::string &error);

  /// "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (1)".
  std::string describe(const char *call, CUresult result) const;
};

} // namespace fmlp::runtime

#endif // FMLP_RUNTIME_CUDADRIVER_H
