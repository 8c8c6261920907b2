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
};

struct fake_cuda_tensor_map {
  int type;
  unsigned rank;
  uint64_t address, dims[2], stride;
  unsigned box[2];
  int swizzle;
};

struct fake_cuda_memset {
  unsigned long long address;
  unsigned char value;
  size_t bytes;
  void *stream;
};

/// Forgets everything; the device reports compute capability major.minor;
/// launches copy parameters of the given sizes.
void fake_cuda_reset(int major, int minor, const size_t *paramSizes, int count);
int fake_cuda_launch_count();
const fake_cuda_launch *fake_cuda_launch_at(int i);
int fake_cuda_tensor_map_count();
const fake_cuda_tensor_map *fake_cuda_tensor_map_at(int i);
int fake_cuda_modules_loaded();
int fake_cuda_memset_count();
const fake_cuda_memset *fake_cuda_memset_at(int i);
/* This thread has no current context (as a new thread has none). */
void fake_cuda_unbind_context();
int cuCtxGetCurrent(void **context);
}

#endif // FMLP_TEST_UNIT_FAKECUDADRIVER_H
