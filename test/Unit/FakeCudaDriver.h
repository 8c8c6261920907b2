//===- FakeCudaDriver.h - What the fake libcuda records ---------*- C++ -*-===//

#ifndef FMLP_TEST_UNIT_FAKECUDADRIVER_H
#define FMLP_TEST_UNIT_FAKECUDADRIVER_H

#include <cstddef>
#include <cstdint>

extern "C" {

struct fake_cuda_launch {
  char kernel[128];
  unsigned grid[3], block[3], shared;
  void *stream;
  unsigned char params[16 * 128]; // copied at the call
  size_t paramOffsets[16];
  // Every launch: the parameters up to the first null (at most 32), and
  // the first 8 bytes of each (T, a pointer, or a tensor map's tag).
  int paramCount;
  uint64_t paramWords[32];
  // Launched by cuLaunchKernelEx with programmatic stream serialization.
  int programmatic;
};

struct fake_cuda_tensor_map {
  int type;
  unsigned rank;
  uint64_t address, dims[2], stride;
  unsigned box[2];
  int swizzle;
};

struct fake_cuda_attribute {
  char kernel[128];
  int attribute, value;
};

struct fake_cuda_memset {
  unsigned long long address;
  unsigned char value;
  size_t bytes;
  void *stream;
};

/// The order of launches and of the calls that order streams.
enum fake_cuda_op_kind {
  FAKE_CUDA_LAUNCH,  // launch: its index in fake_cuda_launch_at
  FAKE_CUDA_RECORD,  // cuEventRecord(event, stream)
  FAKE_CUDA_WAIT     // cuStreamWaitEvent(stream, event)
};
struct fake_cuda_op {
  int kind;
  void *stream, *event;
  int launch;
};

/// Forgets everything; the device reports compute capability major.minor;
/// launches copy parameters of the given sizes. A tensor map's first 8
/// bytes are 0xF3A9000000000000 | (its index + 1).
void fake_cuda_reset(int major, int minor, const size_t *paramSizes, int count);
int fake_cuda_launch_count();
const fake_cuda_launch *fake_cuda_launch_at(int i);
int fake_cuda_tensor_map_count();
const fake_cuda_tensor_map *fake_cuda_tensor_map_at(int i);
int fake_cuda_modules_loaded();
int fake_cuda_attribute_count();
const fake_cuda_attribute *fake_cuda_attribute_at(int i);
int fake_cuda_memset_count();
const fake_cuda_memset *fake_cuda_memset_at(int i);
int fake_cuda_op_count();
const fake_cuda_op *fake_cuda_op_at(int i);
/// Streams made by cuStreamCreateWithPriority and not destroyed since the
/// reset.
int fake_cuda_live_streams();
/// cuStreamGetPriority's answer for `stream` (0 unless set; a stream the
/// runtime made has the priority it was made with).
void fake_cuda_set_priority(void *stream, int priority);
/// The call of the driver entry point `name` (cuStreamCreate, standing for
/// cuStreamCreateWithPriority, or cuLaunchKernel) after `after` more that succeed fails with
/// CUDA_ERROR_INVALID_VALUE.
void fake_cuda_fail(const char *name, int after);
/* This thread has no current context (as a new thread has none). */
void fake_cuda_unbind_context();
int cuCtxGetCurrent(void **context);
int cuStreamGetPriority(void *stream, int *priority);
}

#endif // FMLP_TEST_UNIT_FAKECUDADRIVER_H
