//===- RuntimeLaunchTest.cpp - The runtime's launch path, on a fake driver ===//
//
// fmlp's runtime launching through FakeCudaDriver.cpp (ctest points
// FMLP_LIBCUDA at it): what reaches cuLaunchKernel (grid as a function of
// T, block, shared memory, stream, each parameter: a view's address with
// its offset, T, a tensor map) and cuTensorMapEncodeTiled (data type, the
// view's extents and row stride in bytes, box, swizzle), the chip check,
// the rule that a backward consumes its saved activations, the zeroed
// weight gradients of an empty batch, and a token-chunked entry point's
// launch plan (per chunk: its T, its rows).
//
//===----------------------------------------------------------------------===//

#include "BundleDir.h"
#include "FakeCudaDriver.h"

#include "fmlp/Runtime.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <cstdlib>
#include <cstring>

namespace {

// forward: k0(tensor map of x, saved + 16 elements, T); backward: k1(saved,
// T), consuming saved.
const char *kManifest = R"({
  "format": "fmlp-bundle", "version": 3, "chip": "sm_90a",
  "images": {"ptx": "kernels.ptx"},
  "entry_points": [
    {"symbol": "m.forward", "kind": "forward", "static_tokens": 0,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "saved", "role": "saved", "dtype": "bf16", "shape": [-1, 48], "alignment": 16, "consumed": false}],
     "launches": [
       {"kernel": "k0", "grid_tokens_per_block": [128, 0, 0], "grid_fixed": [0, 3, 1],
        "block": [384, 1, 1], "dynamic_shared_bytes": 197632,
        "params": [{"tensor_map": {"argument": 0, "offset": 0, "rows": -1, "cols": 8,
                                   "row_stride": 8, "box_rows": 128, "box_cols": 64}},
                   {"argument": 1, "offset": 16}, {"tokens": true}]}]},
    {"symbol": "m.backward", "kind": "backward", "static_tokens": 0,
     "arguments": [
       {"name": "saved", "role": "saved", "dtype": "bf16", "shape": [-1, 48], "alignment": 16, "consumed": true}],
     "launches": [
       {"kernel": "k1", "grid_tokens_per_block": [0, 64, 0], "grid_fixed": [2, 0, 1],
        "block": [256, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 0, "offset": 0}, {"tokens": true}]}]}
  ]
})";

class RuntimeLaunch : public ::testing::Test {
protected:
  void SetUp() override {
    // ctest points FMLP_LIBCUDA at the fake driver; lit (check-fmlp) and a
    // direct run get it here, before the runtime first loads a driver.
    setenv("FMLP_LIBCUDA", FMLP_FAKE_CUDA, /*overwrite=*/0);
    // Parameters of k0: a tensor map, a pointer, T (k1's prefix fits).
    const size_t sizes[] = {128, 8, 8};
    fake_cuda_reset(9, 0, sizes, 3);
  }

  static void *address(uintptr_t a) { return reinterpret_cast<void *>(a); }
  template <typename T> static T param(const fake_cuda_launch *l, int i) {
    T value;
    std::memcpy(&value, l->params + l->paramOffsets[i], sizeof(T));
    return value;
  }

  fmlp::test::BundleDir dir{kManifest};
};

TEST_F(RuntimeLaunch, ForwardReachesTheDriverAsTheManifestSays) {
  fmlp::Bundle bundle(dir.path());
  bundle.load();
  EXPECT_EQ(fake_cuda_modules_loaded(), 1);
  // x as [2, 150, 8]: T = 300.
  fmlp_tensor x = fmlp::denseTensor(address(0x10000), FMLP_BF16, {2, 150, 8});
  fmlp_tensor saved = fmlp::denseTensor(address(0x40000), FMLP_BF16, {300, 48});
  void *stream = address(0x5700);
  bundle.launch(bundle.entry("forward"), {x, saved}, stream);

  ASSERT_EQ(fake_cuda_launch_count(), 1);
  const fake_cuda_launch *l = fake_cuda_launch_at(0);
  EXPECT_STREQ(l->kernel, "k0");
  EXPECT_EQ(l->grid[0], 3u); // ceil(300 / 128)
  EXPECT_EQ(l->grid[1], 3u);
  EXPECT_EQ(l->grid[2], 1u);
  EXPECT_EQ(l->block[0], 384u);
  EXPECT_EQ(l->shared, 197632u);
  EXPECT_EQ(l->stream, stream);
  // The tensor map is passed by value: the encoding the driver wrote.
  EXPECT_EQ(param<uint64_t>(l, 0), 0xF3A9000000000001ull);
  EXPECT_EQ(param<uint64_t>(l, 1), 0x40000u + 16 * 2); // saved + 16 bf16
  EXPECT_EQ(param<int64_t>(l, 2), 300);

  ASSERT_EQ(fake_cuda_tensor_map_count(), 1);
  const fake_cuda_tensor_map *m = fake_cuda_tensor_map_at(0);
  EXPECT_EQ(m->type, 9); // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  EXPECT_EQ(m->rank, 2u);
  EXPECT_EQ(m->address, 0x10000u);
  EXPECT_EQ(m->dims[0], 8u);   // columns
  EXPECT_EQ(m->dims[1], 300u); // T rows
  EXPECT_EQ(m->stride, 16u);   // bytes between rows
  EXPECT_EQ(m->box[0], 64u);
  EXPECT_EQ(m->box[1], 128u);
  EXPECT_EQ(m->swizzle, 3); // 128-byte swizzle
}

// T = 2^40 needs 2^33 blocks of 128 tokens, over the driver's 2^31 - 1:
// refused before anything reaches the driver.
TEST_F(RuntimeLaunch, AGridOverTheDriversLimitIsRefused) {
  fmlp::Bundle bundle(dir.path());
  bundle.load();
  int64_t tokens = int64_t(1) << 40;
  fmlp_tensor tensors[] = {
      fmlp::denseTensor(address(0x10000), FMLP_BF16, {tokens, 8}),
      fmlp::denseTensor(address(0x40000), FMLP_BF16, {tokens, 48})};
  EXPECT_EQ(fmlp_launch(bundle.get(), bundle.entry("forward"), tensors, 2,
                        nullptr),
            FMLP_ERROR_SHAPE);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("m.forward: kernel k0 at T = 1099511627776 needs a "
                      "grid over the limits"),
            std::string::npos)
      << fmlp_last_error();
  EXPECT_EQ(fake_cuda_launch_count(), 0);
  EXPECT_EQ(fake_cuda_tensor_map_count(), 0);
}

TEST_F(RuntimeLaunch, BackwardConsumesWhatTheForwardSaved) {
  fmlp::Bundle bundle(dir.path());
  bundle.load();
  int forward = bundle.entry("forward"), backward = bundle.entry("backward");
  fmlp_tensor x = fmlp::denseTensor(address(0x10000), FMLP_BF16, {70, 8});
  fmlp_tensor saved = fmlp::denseTensor(address(0x40000), FMLP_BF16, {70, 48});
  bundle.launch(forward, {x, saved});
  bundle.launch(backward, {saved});
  ASSERT_EQ(fake_cuda_launch_count(), 2);
  const fake_cuda_launch *l = fake_cuda_launch_at(1);
  EXPECT_STREQ(l->kernel, "k1");
  EXPECT_EQ(l->grid[0], 2u);
  EXPECT_EQ(l->grid[1], 2u); // ceil(70 / 64)
  EXPECT_EQ(param<uint64_t>(l, 0), 0x40000u);
  EXPECT_EQ(param<int64_t>(l, 1), 70);

  // A second backward would read dG, dU as G, U: refused, nothing launched.
  EXPECT_EQ(fmlp_launch(bundle.get(), backward, &saved, 1, nullptr),
            FMLP_ERROR_SAVED_CONSUMED);
  EXPECT_NE(
      std::string(fmlp_last_error()).find("consumed by an earlier backward"),
      std::string::npos)
      << fmlp_last_error();
  EXPECT_EQ(fake_cuda_launch_count(), 2);
  // A new forward makes them fresh again.
  bundle.launch(forward, {x, saved});
  bundle.launch(backward, {saved});
  EXPECT_EQ(fake_cuda_launch_count(), 4);
}

TEST_F(RuntimeLaunch, AThreadWithNoContextLaunchesInTheBundles) {
  // PyTorch's autograd worker thread may launch a backward before making
  // any CUDA call: no current context. The launch binds the bundle's.
  fmlp::Bundle bundle(dir.path());
  bundle.load();
  int forward = bundle.entry("forward");
  fmlp_tensor x = fmlp::denseTensor(address(0x10000), FMLP_BF16, {70, 8});
  fmlp_tensor saved = fmlp::denseTensor(address(0x40000), FMLP_BF16, {70, 48});
  fmlp_tensor tensors[] = {x, saved};
  std::thread worker([&] {
    fake_cuda_unbind_context();
    EXPECT_EQ(fmlp_launch(bundle.get(), forward, tensors, 2, nullptr), FMLP_OK)
        << fmlp_last_error();
    void *context = nullptr;
    cuCtxGetCurrent(&context);
    EXPECT_NE(context, nullptr);
  });
  worker.join();
  EXPECT_EQ(fake_cuda_launch_count(), 1);
}

TEST_F(RuntimeLaunch, SavedCheckOffForCallersThatTrackThemselves) {
  fmlp::Bundle bundle(dir.path());
  bundle.load();
  int backward = bundle.entry("backward");
  fmlp_tensor copy = fmlp::denseTensor(address(0x80000), FMLP_BF16, {70, 48});
  // No forward wrote these (a copy of saved activations): refused...
  EXPECT_EQ(fmlp_launch(bundle.get(), backward, &copy, 1, nullptr),
            FMLP_ERROR_SAVED_CONSUMED);
  EXPECT_NE(std::string(fmlp_last_error()).find("not written by a forward"),
            std::string::npos)
      << fmlp_last_error();
  // ...unless the caller tracks them itself; then twice is its business.
  bundle.checkSaved(false);
  bundle.launch(backward, {copy});
  bundle.launch(backward, {copy});
  EXPECT_EQ(fake_cuda_launch_count(), 2);
  bundle.checkSaved(true);
  EXPECT_EQ(fmlp_launch(bundle.get(), backward, &copy, 1, nullptr),
            FMLP_ERROR_SAVED_CONSUMED);
  EXPECT_EQ(fake_cuda_launch_count(), 2);
}

TEST_F(RuntimeLaunch, OneKernelAloneForProfiling) {
  fmlp::Bundle bundle(dir.path());
  bundle.load();
  int backward = bundle.entry("backward");
  ASSERT_EQ(fmlp_kernel_count(bundle.get(), backward), 1);
  EXPECT_STREQ(fmlp_kernel_name(bundle.get(), backward, 0), "k1");
  fmlp_tensor saved = fmlp::denseTensor(address(0x40000), FMLP_BF16, {70, 48});
  // Never written by a forward, yet launchable alone, and repeatedly.
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(fmlp_launch_kernel(bundle.get(), backward, 0, &saved, 1, nullptr),
              FMLP_OK)
        << fmlp_last_error();
  EXPECT_EQ(fake_cuda_launch_count(), 2);
  EXPECT_EQ(fmlp_launch_kernel(bundle.get(), backward, 1, &saved, 1, nullptr),
            FMLP_ERROR_INVALID_ARGUMENT);
  // Its tensors are checked all the same.
  saved.dtype = FMLP_F16;
  EXPECT_EQ(fmlp_launch_kernel(bundle.get(), backward, 0, &saved, 1, nullptr),
            FMLP_ERROR_DTYPE);
}

// A backward over no token (an expert no token was routed to): its weight
// gradient, a sum over the tokens, is zero; nothing is launched, and the
// token arguments may be null.
TEST_F(RuntimeLaunch, AnEmptyBatchZeroesTheWeightGradients) {
  fmlp::test::BundleDir weights{R"({
  "format": "fmlp-bundle", "version": 3, "chip": "sm_90a",
  "images": {"ptx": "kernels.ptx"},
  "entry_points": [
    {"symbol": "w.backward", "kind": "backward", "static_tokens": 0,
     "arguments": [
       {"name": "dy", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "d_down", "role": "output", "dtype": "bf16", "shape": [16, 8], "alignment": 16, "consumed": false}],
     "launches": [
       {"kernel": "k1", "grid_tokens_per_block": [0, 64, 0], "grid_fixed": [2, 0, 1],
        "block": [256, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 1, "offset": 0}, {"tokens": true}]}]}]
})"};
  fmlp::Bundle bundle(weights.path());
  bundle.load();
  int backward = bundle.entry("backward");
  fmlp_tensor dy = fmlp::denseTensor(nullptr, FMLP_BF16, {0, 8});
  fmlp_tensor dw = fmlp::denseTensor(address(0x80000), FMLP_BF16, {16, 8});
  void *stream = address(0x5700);
  bundle.launch(backward, {dy, dw}, stream);
  EXPECT_EQ(fake_cuda_launch_count(), 0);
  ASSERT_EQ(fake_cuda_memset_count(), 1);
  const fake_cuda_memset *m = fake_cuda_memset_at(0);
  EXPECT_EQ(m->address, 0x80000u);
  EXPECT_EQ(m->value, 0);
  EXPECT_EQ(m->bytes, 16u * 8 * 2);
  EXPECT_EQ(m->stream, stream);
  // A null gradient is one not wanted: never zeroed through the null
  // pointer.
  dw.data = nullptr;
  fmlp_tensor both[] = {dy, dw};
  EXPECT_EQ(fmlp_launch(bundle.get(), backward, both, 2, stream), FMLP_OK)
      << fmlp_last_error();
  EXPECT_EQ(fake_cuda_memset_count(), 1);
  // With tokens, the kernels write it: no memset.
  dy = fmlp::denseTensor(address(0x10000), FMLP_BF16, {70, 8});
  dw.data = address(0x80000);
  bundle.launch(backward, {dy, dw}, stream);
  EXPECT_EQ(fake_cuda_launch_count(), 1);
  EXPECT_EQ(fake_cuda_memset_count(), 1);
}

// Two variants of one kernel, k_small for T in [1, 16] and k_large for T
// >= 17, then k_after for every T: a launch runs, in order, exactly the
// kernels whose range holds T. k_small's grid of one block per token would
// be over the driver's limit at T = 2^40, where only k_large (a fixed grid,
// 132 blocks) runs: the grids checked are those of the launches that run.
// k_large waits for the kernels before it itself (programmatic_launch).
const char *kVariants = R"({
  "format": "fmlp-bundle", "version": 3, "chip": "sm_90a",
  "images": {"ptx": "kernels.ptx"},
  "entry_points": [
    {"symbol": "v.forward_nograd", "kind": "forward_nograd", "static_tokens": 0,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "y", "role": "output", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false}],
     "launches": [
       {"kernel": "k_small", "grid_tokens_per_block": [1, 0, 0], "grid_fixed": [0, 1, 1],
        "block": [128, 1, 1], "dynamic_shared_bytes": 0, "min_tokens": 1, "max_tokens": 16,
        "params": [{"argument": 0, "offset": 0}, {"tokens": true}]},
       {"kernel": "k_large", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [132, 1, 1],
        "block": [256, 1, 1], "dynamic_shared_bytes": 0, "min_tokens": 17,
        "programmatic_launch": true,
        "params": [{"argument": 0, "offset": 0}, {"tokens": true}]},
       {"kernel": "k_after", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [4, 1, 1],
        "block": [64, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 1, "offset": 0}, {"tokens": true}]}]}]
})";

class RuntimeVariants : public RuntimeLaunch {
protected:
  void SetUp() override {
    RuntimeLaunch::SetUp();
    const size_t sizes[] = {8, 8};
    fake_cuda_reset(9, 0, sizes, 2);
  }
  std::vector<fmlp_tensor> tensors(int64_t tokens) {
    return {fmlp::denseTensor(address(0x10000), FMLP_BF16, {tokens, 8}),
            fmlp::denseTensor(address(0x90000), FMLP_BF16, {tokens, 8})};
  }
  /// The kernels launched since launch `from`, in order.
  static std::vector<std::string> launchedSince(int from) {
    std::vector<std::string> names;
    for (int i = from; i < fake_cuda_launch_count(); ++i)
      names.push_back(fake_cuda_launch_at(i)->kernel);
    return names;
  }
  fmlp::test::BundleDir variants{kVariants};
};

TEST_F(RuntimeVariants, EachTRunsTheVariantWhoseRangeHoldsIt) {
  fmlp::Bundle bundle(variants.path());
  bundle.load();
  int entry = bundle.entry("forward_nograd");
  using Names = std::vector<std::string>;
  const Names small{"k_small", "k_after"}, large{"k_large", "k_after"};
  // The boundary (16, 17) and either side of it.
  const std::pair<int64_t, Names> expected[] = {
      {1, small}, {2, small}, {16, small}, {17, large}, {18, large},
      {300, large}, {int64_t(1) << 40, large}};
  for (const auto &[tokens, names] : expected) {
    int before = fake_cuda_launch_count();
    std::vector<fmlp_tensor> t = tensors(tokens);
    ASSERT_EQ(fmlp_launch(bundle.get(), entry, t.data(), 2, nullptr), FMLP_OK)
        << "T = " << tokens << ": " << fmlp_last_error();
    EXPECT_EQ(launchedSince(before), names) << "T = " << tokens;
    // T reaches the variant that runs; its grid is its own.
    const fake_cuda_launch *first = fake_cuda_launch_at(before);
    EXPECT_EQ(param<int64_t>(first, 1), tokens);
    EXPECT_EQ(first->grid[0], tokens <= 16 ? unsigned(tokens) : 132u);
  }
  // T = 0 runs nothing (and needs no range).
  int before = fake_cuda_launch_count();
  std::vector<fmlp_tensor> empty = tensors(0);
  EXPECT_EQ(fmlp_launch(bundle.get(), entry, empty.data(), 2, nullptr),
            FMLP_OK);
  EXPECT_EQ(fake_cuda_launch_count(), before);
}

// A launch the manifest marks programmatic goes through cuLaunchKernelEx
// with programmatic stream serialization (the fake refuses any other
// attribute), with its grid, block and parameters; the others through
// cuLaunchKernel.
TEST_F(RuntimeVariants, ProgrammaticLaunchesAsTheManifestSays) {
  fmlp::Bundle bundle(variants.path());
  bundle.load();
  int entry = bundle.entry("forward_nograd");
  for (int64_t tokens : {3, 40}) {
    int before = fake_cuda_launch_count();
    std::vector<fmlp_tensor> t = tensors(tokens);
    ASSERT_EQ(fmlp_launch(bundle.get(), entry, t.data(), 2, nullptr), FMLP_OK)
        << fmlp_last_error();
    ASSERT_EQ(fake_cuda_launch_count(), before + 2);
    const fake_cuda_launch *first = fake_cuda_launch_at(before);
    EXPECT_EQ(first->programmatic, tokens == 40 ? 1 : 0) << first->kernel;
    EXPECT_EQ(fake_cuda_launch_at(before + 1)->programmatic, 0);
    EXPECT_EQ(first->block[0], tokens == 40 ? 256u : 128u);
    EXPECT_EQ(param<int64_t>(first, 1), tokens);
  }
}

// Serial launches leave no overlap: the launch the manifest marks
// programmatic goes through cuLaunchKernel like every other, and again
// through cuLaunchKernelEx once serial launches are off.
TEST_F(RuntimeVariants, SerialLaunchesAreNeverProgrammatic) {
  fmlp::Bundle bundle(variants.path());
  bundle.load();
  int entry = bundle.entry("forward_nograd");
  std::vector<fmlp_tensor> t = tensors(40);
  for (int serial : {1, 0}) {
    fmlp_bundle_serial_launches(bundle.get(), serial);
    int before = fake_cuda_launch_count();
    ASSERT_EQ(fmlp_launch(bundle.get(), entry, t.data(), 2, nullptr), FMLP_OK)
        << fmlp_last_error();
    ASSERT_EQ(fake_cuda_launch_count(), before + 2);
    EXPECT_EQ(fake_cuda_launch_at(before)->programmatic, serial ? 0 : 1)
        << "serial " << serial;
  }
}

TEST_F(RuntimeVariants, OneKernelAloneOnlyAtATItServes) {
  fmlp::Bundle bundle(variants.path());
  bundle.load();
  int entry = bundle.entry("forward_nograd");
  ASSERT_EQ(fmlp_kernel_count(bundle.get(), entry), 3);
  const int64_t ranges[3][2] = {{1, 16}, {17, INT64_MAX}, {1, INT64_MAX}};
  for (int k = 0; k < 3; ++k) {
    int64_t min = 0, max = 0;
    ASSERT_EQ(fmlp_kernel_tokens(bundle.get(), entry, k, &min, &max), FMLP_OK);
    EXPECT_EQ(min, ranges[k][0]) << k;
    EXPECT_EQ(max, ranges[k][1]) << k;
  }
  std::vector<fmlp_tensor> at16 = tensors(16), at17 = tensors(17);
  // The variant for the T: launched.
  EXPECT_EQ(fmlp_launch_kernel(bundle.get(), entry, 0, at16.data(), 2, nullptr),
            FMLP_OK)
      << fmlp_last_error();
  EXPECT_EQ(fmlp_launch_kernel(bundle.get(), entry, 1, at17.data(), 2, nullptr),
            FMLP_OK)
      << fmlp_last_error();
  EXPECT_EQ(launchedSince(0), (std::vector<std::string>{"k_small", "k_large"}));
  // The other one: refused, naming the kernel, its range and T; nothing
  // reaches the driver.
  EXPECT_EQ(fmlp_launch_kernel(bundle.get(), entry, 0, at17.data(), 2, nullptr),
            FMLP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("kernel 0 (k_small) of v.forward_nograd serves T in "
                      "[1, 16], not T = 17"),
            std::string::npos)
      << fmlp_last_error();
  EXPECT_EQ(fmlp_launch_kernel(bundle.get(), entry, 1, at16.data(), 2, nullptr),
            FMLP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("kernel 1 (k_large) of v.forward_nograd serves T in "
                      "[17, inf], not T = 16"),
            std::string::npos)
      << fmlp_last_error();
  EXPECT_EQ(fake_cuda_launch_count(), 2);
  // A kernel for every T runs at either.
  EXPECT_EQ(fmlp_launch_kernel(bundle.get(), entry, 2, at16.data(), 2, nullptr),
            FMLP_OK);
  EXPECT_EQ(fmlp_launch_kernel(bundle.get(), entry, 2, at17.data(), 2, nullptr),
            FMLP_OK);
  EXPECT_EQ(fake_cuda_launch_count(), 4);
}

// tf32's rounded weight copies as the compiler plans them: k_round writes
// w_tf32 (w rounded) from T = 17, where k_large reads it; k_small, for T <=
// 16, reads w itself. `spare` is a workspace no launch refers to.
// Arguments: 0 x, 1 w, 2 y, 3 w_tf32, 4 spare.
const char *kCopies = R"({
  "format": "fmlp-bundle", "version": 3, "chip": "sm_90a",
  "images": {"ptx": "kernels.ptx"},
  "entry_points": [
    {"symbol": "c.forward_nograd", "kind": "forward_nograd", "static_tokens": 0,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "f32", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "w", "role": "input", "dtype": "f32", "shape": [8, 8], "alignment": 16, "consumed": false},
       {"name": "y", "role": "output", "dtype": "f32", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "w_tf32", "role": "workspace", "dtype": "f32", "shape": [8, 8], "alignment": 16, "consumed": false},
       {"name": "spare", "role": "workspace", "dtype": "f32", "shape": [-1, 4], "alignment": 16, "consumed": false}],
     "launches": [
       {"kernel": "k_round", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [32, 1, 1], "dynamic_shared_bytes": 0, "min_tokens": 17, "writes": [3],
        "params": [{"argument": 1, "offset": 0}, {"argument": 3, "offset": 0}]},
       {"kernel": "k_small", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [32, 1, 1], "dynamic_shared_bytes": 0, "max_tokens": 16, "writes": [2],
        "params": [{"argument": 0, "offset": 0}, {"argument": 1, "offset": 0},
                   {"argument": 2, "offset": 0}, {"tokens": true}]},
       {"kernel": "k_large", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [32, 1, 1], "dynamic_shared_bytes": 0, "min_tokens": 17, "writes": [2],
        "params": [{"argument": 0, "offset": 0}, {"argument": 3, "offset": 0},
                   {"argument": 2, "offset": 0}, {"tokens": true}]}]}]
})";

class RuntimeWorkspaces : public RuntimeLaunch {
protected:
  void SetUp() override {
    RuntimeLaunch::SetUp();
    const size_t sizes[] = {8, 8, 8, 8};
    fake_cuda_reset(9, 0, sizes, 4);
  }
  enum { kX, kW, kY, kCopy, kSpare, kCount };
  std::vector<fmlp_tensor> tensors(int64_t tokens) const {
    return {fmlp::denseTensor(address(0x10000), FMLP_F32, {tokens, 8}),
            fmlp::denseTensor(address(0x20000), FMLP_F32, {8, 8}),
            fmlp::denseTensor(address(0x30000), FMLP_F32, {tokens, 8}),
            fmlp::denseTensor(address(0x40000), FMLP_F32, {8, 8}),
            fmlp::denseTensor(address(0x50000), FMLP_F32, {tokens, 4})};
  }
  fmlp::test::BundleDir copies{kCopies};
};

// Each argument's first use is its launches' least min_tokens; a workspace
// is counted, and must be passed, only from there.
TEST_F(RuntimeWorkspaces, AWorkspaceIsNeededFromItsFirstUse) {
  fmlp::Bundle bundle(copies.path());
  const int64_t expected[kCount] = {1, 1, 1, 17, INT64_MAX};
  for (int a = 0; a < kCount; ++a) {
    int64_t first = 0;
    ASSERT_EQ(fmlp_argument_min_tokens(bundle.get(), 0, a, &first), FMLP_OK);
    EXPECT_EQ(first, expected[a]) << "argument " << a;
  }
  int64_t first = 0;
  EXPECT_EQ(fmlp_argument_min_tokens(bundle.get(), 0, kCount, &first),
            FMLP_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fmlp_argument_min_tokens(bundle.get(), 0, 0, nullptr),
            FMLP_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fmlp_argument_min_tokens(nullptr, 0, 0, &first),
            FMLP_ERROR_INVALID_ARGUMENT);
  // Used: w_tf32's 8 x 8 floats from T = 17, `spare` at no T; taken (what
  // a caller passing every buffer allocates): both, whatever T.
  EXPECT_EQ(bundle.workspaceBytesUsed(0, 16), 0);
  EXPECT_EQ(bundle.workspaceBytesUsed(0, 17), 8 * 8 * 4);
  EXPECT_EQ(bundle.workspaceBytesUsed(0, 1000), 8 * 8 * 4);
  EXPECT_EQ(bundle.workspaceBytes(0, 16), 8 * 8 * 4 + 16 * 4 * 4);
  EXPECT_EQ(bundle.workspaceBytes(0, 1000), 8 * 8 * 4 + 1000 * 4 * 4);
  int64_t bytes = 0;
  EXPECT_EQ(fmlp_workspace_bytes_used(bundle.get(), 0, -1, &bytes),
            FMLP_ERROR_SHAPE);
  EXPECT_EQ(fmlp_workspace_bytes_used(bundle.get(), 1, 1, &bytes),
            FMLP_ERROR_INVALID_ARGUMENT);
}

TEST_F(RuntimeWorkspaces, ANullWorkspaceWhereNothingUsesIt) {
  fmlp::Bundle bundle(copies.path());
  bundle.load();
  auto launched = [&](int64_t tokens, std::vector<int> null) {
    std::vector<fmlp_tensor> t = tensors(tokens);
    for (int a : null)
      t[a].data = nullptr;
    int before = fake_cuda_launch_count();
    fmlp_status status =
        fmlp_launch(bundle.get(), 0, t.data(), kCount, nullptr);
    std::vector<std::string> names;
    for (int i = before; i < fake_cuda_launch_count(); ++i)
      names.push_back(fake_cuda_launch_at(i)->kernel);
    return std::make_pair(status, names);
  };
  using Names = std::vector<std::string>;
  // At T <= 16 no kernel refers to w_tf32: it may be null (and `spare` at
  // any T); the kernels of the T run.
  for (int64_t tokens : {1, 16})
    EXPECT_EQ(launched(tokens, {kCopy, kSpare}),
              std::make_pair(FMLP_OK, Names{"k_small"}))
        << "T = " << tokens << ": " << fmlp_last_error();
  EXPECT_EQ(launched(17, {kSpare}),
            std::make_pair(FMLP_OK, Names{"k_round", "k_large"}))
      << fmlp_last_error();
  // From T = 17 it is written and read: null is refused before any launch,
  // naming it and the T from which it is used.
  EXPECT_EQ(launched(17, {kCopy, kSpare}),
            std::make_pair(FMLP_ERROR_NULL_POINTER, Names{}));
  EXPECT_NE(std::string(fmlp_last_error())
                .find("c.forward_nograd argument 3 (w_tf32) is a null "
                      "pointer, but the kernels use this workspace at T = 17 "
                      "(it may be null only at T < 17"),
            std::string::npos)
      << fmlp_last_error();
  // Only a workspace: a null input stays refused at every T.
  EXPECT_EQ(launched(1, {kW, kCopy}).first, FMLP_ERROR_NULL_POINTER);
  // A null workspace's fields are not read (as a not-wanted output's).
  std::vector<fmlp_tensor> t = tensors(3);
  t[kCopy] = fmlp::denseTensor(nullptr, FMLP_BF16, {-5});
  EXPECT_EQ(fmlp_launch(bundle.get(), 0, t.data(), kCount, nullptr), FMLP_OK)
      << fmlp_last_error();
}

// A backward's kernels as the compiler plans them, each writing what its
// "writes" says: k_da (dA from dy; dG, dU over saved), k_dx (dX from
// saved), k_dgu ([dWg dWu], one GEMM writing both), k_dd (dWd), k_db (the
// down bias's gradient, here read back from d_down so that a reader of an
// output is covered). Arguments: 0 x, 1 dy, 2 saved, 3 dx, 4 d_gate,
// 5 d_up, 6 d_down, 7 d_down_bias.
const char *kGradients = R"({
  "format": "fmlp-bundle", "version": 3, "chip": "sm_90a",
  "images": {"ptx": "kernels.ptx"},
  "entry_points": [
    {"symbol": "g.backward", "kind": "backward", "static_tokens": 0,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "dy", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "saved", "role": "saved", "dtype": "bf16", "shape": [-1, 48], "alignment": 16, "consumed": true},
       {"name": "dx", "role": "output", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "d_gate", "role": "output", "dtype": "bf16", "shape": [16, 8], "alignment": 16, "consumed": false},
       {"name": "d_up", "role": "output", "dtype": "bf16", "shape": [16, 8], "alignment": 16, "consumed": false},
       {"name": "d_down", "role": "output", "dtype": "bf16", "shape": [8, 16], "alignment": 16, "consumed": false},
       {"name": "d_down_bias", "role": "output", "dtype": "bf16", "shape": [8], "alignment": 16, "consumed": false}],
     "launches": [
       {"kernel": "k_da", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [32, 1, 1], "dynamic_shared_bytes": 0, "writes": [2],
        "params": [{"argument": 1, "offset": 0}, {"argument": 2, "offset": 0}, {"tokens": true}]},
       {"kernel": "k_dx", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [32, 1, 1], "dynamic_shared_bytes": 0, "writes": [3],
        "params": [{"argument": 2, "offset": 0}, {"argument": 3, "offset": 0}, {"tokens": true}]},
       {"kernel": "k_dgu", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [32, 1, 1], "dynamic_shared_bytes": 0, "writes": [4, 5],
        "params": [{"argument": 0, "offset": 0}, {"argument": 2, "offset": 0},
                   {"argument": 4, "offset": 0}, {"argument": 5, "offset": 0}, {"tokens": true}]},
       {"kernel": "k_dd", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [32, 1, 1], "dynamic_shared_bytes": 0, "writes": [6],
        "params": [{"argument": 1, "offset": 0}, {"argument": 2, "offset": 0},
                   {"argument": 6, "offset": 0}, {"tokens": true}]},
       {"kernel": "k_db", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [32, 1, 1], "dynamic_shared_bytes": 0, "writes": [7],
        "params": [{"argument": 6, "offset": 0}, {"argument": 7, "offset": 0}, {"tokens": true}]}]}]
})";

class RuntimeGradients : public RuntimeLaunch {
protected:
  enum { kX, kDy, kSaved, kDx, kDGate, kDUp, kDDown, kDDownBias, kCount };
  /// Every argument with a buffer, then the outputs in `unwanted` null.
  std::vector<fmlp_tensor> tensors(std::vector<int> unwanted) const {
    std::vector<fmlp_tensor> t = {
        fmlp::denseTensor(address(0x10000), FMLP_BF16, {70, 8}),
        fmlp::denseTensor(address(0x20000), FMLP_BF16, {70, 8}),
        fmlp::denseTensor(address(0x30000), FMLP_BF16, {70, 48}),
        fmlp::denseTensor(address(0x40000), FMLP_BF16, {70, 8}),
        fmlp::denseTensor(address(0x50000), FMLP_BF16, {16, 8}),
        fmlp::denseTensor(address(0x60000), FMLP_BF16, {16, 8}),
        fmlp::denseTensor(address(0x70000), FMLP_BF16, {8, 16}),
        fmlp::denseTensor(address(0x80000), FMLP_BF16, {8})};
    for (int a : unwanted)
      t[a].data = nullptr;
    return t;
  }
  /// The kernels one launch with `unwanted` outputs null runs.
  std::vector<std::string> launched(fmlp::Bundle &bundle,
                                    std::vector<int> unwanted) {
    int before = fake_cuda_launch_count();
    std::vector<fmlp_tensor> t = tensors(std::move(unwanted));
    EXPECT_EQ(fmlp_launch(bundle.get(), 0, t.data(), kCount, nullptr), FMLP_OK)
        << fmlp_last_error();
    std::vector<std::string> names;
    for (int i = before; i < fake_cuda_launch_count(); ++i)
      names.push_back(fake_cuda_launch_at(i)->kernel);
    return names;
  }
  fmlp::test::BundleDir gradients{kGradients};
};

TEST_F(RuntimeGradients, KernelsOfNotWantedOutputsAreSkipped) {
  fmlp::Bundle bundle(gradients.path());
  bundle.load();
  bundle.checkSaved(false);
  using Names = std::vector<std::string>;
  EXPECT_EQ(launched(bundle, {}),
            (Names{"k_da", "k_dx", "k_dgu", "k_dd", "k_db"}));
  // Frozen weights and biases: dX alone.
  EXPECT_EQ(launched(bundle, {kDGate, kDUp, kDDown, kDDownBias}),
            (Names{"k_da", "k_dx"}));
  // x needs no gradient.
  EXPECT_EQ(launched(bundle, {kDx}), (Names{"k_da", "k_dgu", "k_dd", "k_db"}));
  // Only the down projection's bias is frozen.
  EXPECT_EQ(launched(bundle, {kDDownBias}),
            (Names{"k_da", "k_dx", "k_dgu", "k_dd"}));
  // Nothing wanted: k_da still writes dG, dU over the saved activations.
  EXPECT_EQ(launched(bundle, {kDx, kDGate, kDUp, kDDown, kDDownBias}),
            (Names{"k_da"}));
  // The pointers that reach the driver are the caller's, never null.
  for (int i = 0; i < fake_cuda_launch_count(); ++i) {
    const fake_cuda_launch *l = fake_cuda_launch_at(i);
    for (int p = 0; p < l->paramCount; ++p)
      EXPECT_NE(l->paramWords[p], 0u) << l->kernel << " parameter " << p;
  }
}

// A kernel that runs and writes or reads a not-wanted output is refused
// before anything is launched, naming the argument and the kernel.
TEST_F(RuntimeGradients, ANotWantedOutputBesideANeededOneIsRefused) {
  fmlp::Bundle bundle(gradients.path());
  bundle.load();
  bundle.checkSaved(false);
  std::vector<fmlp_tensor> t = tensors({kDGate});
  EXPECT_EQ(fmlp_launch(bundle.get(), 0, t.data(), kCount, nullptr),
            FMLP_ERROR_NULL_POINTER);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("g.backward argument 4 (d_gate) is null (not wanted), "
                      "but kernel k_dgu writes it together with d_up"),
            std::string::npos)
      << fmlp_last_error();
  t = tensors({kDDown});
  EXPECT_EQ(fmlp_launch(bundle.get(), 0, t.data(), kCount, nullptr),
            FMLP_ERROR_NULL_POINTER);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("argument 6 (d_down) is null (not wanted), but kernel "
                      "k_db reads it and writes d_down_bias"),
            std::string::npos)
      << fmlp_last_error();
  EXPECT_EQ(fake_cuda_launch_count(), 0);
  // An input is never optional.
  t = tensors({});
  t[kDy].data = nullptr;
  EXPECT_EQ(fmlp_launch(bundle.get(), 0, t.data(), kCount, nullptr),
            FMLP_ERROR_NULL_POINTER);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("argument 1 (dy) is a null pointer (only an output may "
                      "be null"),
            std::string::npos)
      << fmlp_last_error();
  EXPECT_EQ(fake_cuda_launch_count(), 0);
}

// What to pass for a choice of wanted outputs: with exactly those, no
// kernel is refused.
TEST_F(RuntimeGradients, OutputsNeededCloseOverTheKernels) {
  fmlp::Bundle bundle(gradients.path());
  bundle.load();
  bundle.checkSaved(false);
  auto wanting = [](std::vector<int> outputs) {
    std::vector<int32_t> flags(kCount, 0);
    for (int a : outputs)
      flags[a] = 1;
    return flags;
  };
  // d_up alone needs d_gate (one GEMM writes both); the bias needs d_down
  // (read); inputs and saved are never "needed" outputs.
  const std::pair<std::vector<int>, std::vector<int>> cases[] = {
      {{}, {}},
      {{kDx}, {kDx}},
      {{kDUp}, {kDGate, kDUp}},
      {{kDDownBias}, {kDDown, kDDownBias}},
      {{kX, kDy, kSaved}, {}},
      {{kDx, kDGate, kDUp, kDDown, kDDownBias},
       {kDx, kDGate, kDUp, kDDown, kDDownBias}}};
  for (const auto &[wanted, needed] : cases) {
    std::vector<int32_t> got = bundle.outputsNeeded(0, wanting(wanted));
    EXPECT_EQ(got, wanting(needed));
    // Launching with exactly the needed outputs is accepted.
    std::vector<int> unwanted;
    for (int a = kDx; a < kCount; ++a)
      if (!got[a])
        unwanted.push_back(a);
    std::vector<fmlp_tensor> t = tensors(unwanted);
    EXPECT_EQ(fmlp_launch(bundle.get(), 0, t.data(), kCount, nullptr), FMLP_OK)
        << fmlp_last_error();
  }
}

// One kernel alone (profiling) follows the same rule.
TEST_F(RuntimeGradients, OneKernelOfNotWantedOutputsLaunchesNothing) {
  fmlp::Bundle bundle(gradients.path());
  bundle.load();
  std::vector<fmlp_tensor> t = tensors({kDGate, kDUp});
  EXPECT_EQ(fmlp_launch_kernel(bundle.get(), 0, 2, t.data(), kCount, nullptr),
            FMLP_OK)
      << fmlp_last_error();
  EXPECT_EQ(fake_cuda_launch_count(), 0);
  t = tensors({kDUp});
  EXPECT_EQ(fmlp_launch_kernel(bundle.get(), 0, 2, t.data(), kCount, nullptr),
            FMLP_ERROR_NULL_POINTER);
  t = tensors({});
  EXPECT_EQ(fmlp_launch_kernel(bundle.get(), 0, 2, t.data(), kCount, nullptr),
            FMLP_OK)
      << fmlp_last_error();
  EXPECT_EQ(fake_cuda_launch_count(), 1);
}

// A backward in chunks of 4 tokens: k_fill once (zeroing dw), then per
// chunk k_small (chunks of 1 or 2 tokens) or k_large (3 or 4), and k_sum
// (every chunk), then k_end once. x [T, 8] moves by one row of 8 elements
// per token of the chunk's start; dw and the workspace [4, 16] (one
// chunk's) stay.
const char *kChunks = R"({
  "format": "fmlp-bundle", "version": 3, "chip": "sm_90a",
  "images": {"ptx": "kernels.ptx"},
  "entry_points": [
    {"symbol": "c.backward", "kind": "backward", "static_tokens": 0, "chunk_tokens": 4,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 16, "consumed": false},
       {"name": "dw", "role": "output", "dtype": "bf16", "shape": [16, 8], "alignment": 16, "consumed": false},
       {"name": "workspace", "role": "workspace", "dtype": "bf16", "shape": [4, 16], "alignment": 16, "consumed": false}],
     "launches": [
       {"kernel": "k_fill", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [128, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 1, "offset": 0}, {"tokens": true}]},
       {"kernel": "k_small", "grid_tokens_per_block": [1, 0, 0], "grid_fixed": [0, 1, 1],
        "block": [128, 1, 1], "dynamic_shared_bytes": 0, "per_chunk": true, "max_tokens": 2,
        "params": [{"argument": 0, "offset": 0, "token_stride": 8},
                   {"argument": 2, "offset": 8, "token_stride": 0}, {"tokens": true}]},
       {"kernel": "k_large", "grid_tokens_per_block": [2, 0, 0], "grid_fixed": [0, 1, 1],
        "block": [128, 1, 1], "dynamic_shared_bytes": 0, "per_chunk": true, "min_tokens": 3,
        "params": [{"tensor_map": {"argument": 0, "offset": 0, "rows": -1, "cols": 8, "row_stride": 8, "box_rows": 4, "box_cols": 8, "token_stride": 8}},
                   {"tensor_map": {"argument": 2, "offset": 8, "rows": -1, "cols": 8, "row_stride": 16, "box_rows": 4, "box_cols": 8, "token_stride": 0}},
                   {"argument": 1, "offset": 0, "token_stride": 0}, {"tokens": true}]},
       {"kernel": "k_sum", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [3, 1, 1],
        "block": [128, 1, 1], "dynamic_shared_bytes": 0, "per_chunk": true,
        "params": [{"argument": 0, "offset": 0, "token_stride": 8},
                   {"argument": 1, "offset": 0, "token_stride": 0}, {"tokens": true}]},
       {"kernel": "k_end", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [128, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 1, "offset": 0}, {"tokens": true}]}]}]
})";

class RuntimeChunks : public RuntimeLaunch {
protected:
  static constexpr uint64_t kX = 0x10000, kDw = 0x20000, kWork = 0x30000;
  static constexpr uint64_t kMapTag = 0xF3A9000000000000ull;
  std::vector<fmlp_tensor> tensors(int64_t tokens) {
    return {fmlp::denseTensor(address(kX), FMLP_BF16, {tokens, 8}),
            fmlp::denseTensor(address(kDw), FMLP_BF16, {16, 8}),
            fmlp::denseTensor(address(kWork), FMLP_BF16, {4, 16})};
  }
  /// A launch as the driver saw it: kernel, grid[0], the first 8 bytes of
  /// each parameter (a pointer, T, a tensor map's tag).
  struct Seen {
    std::string kernel;
    unsigned grid;
    std::vector<uint64_t> words;
  };
  static std::vector<Seen> launchedSince(int from) {
    std::vector<Seen> seen;
    for (int i = from; i < fake_cuda_launch_count(); ++i) {
      const fake_cuda_launch *l = fake_cuda_launch_at(i);
      seen.push_back({l->kernel,
                      l->grid[0],
                      {l->paramWords, l->paramWords + l->paramCount}});
    }
    return seen;
  }
  fmlp::test::BundleDir chunks{kChunks};
};

// T = 9 in chunks of 4: chunks from tokens 0, 4 and 8 of 4, 4 and 1
// tokens. Each per-chunk launch gets the chunk's T (its grid and the range
// that picks k_small or k_large are the chunk's), x's pointer and tensor
// map 2 bytes x 8 elements further per token of the chunk's start, the
// workspace and dw where they are; k_fill and k_end run once, at T.
TEST_F(RuntimeChunks, EachChunkLaunchesOnItsRows) {
  fmlp::Bundle bundle(chunks.path());
  bundle.load();
  int backward = bundle.entry("backward");
  bundle.launch(backward, tensors(9));
  const uint64_t row = 8 * 2; // bytes per token of x
  const std::vector<Seen> expected = {
      {"k_fill", 1, {kDw, 9}},
      {"k_large", 2, {kMapTag | 1, kMapTag | 2, kDw, 4}},
      {"k_sum", 3, {kX, kDw, 4}},
      {"k_large", 2, {kMapTag | 3, kMapTag | 4, kDw, 4}},
      {"k_sum", 3, {kX + 4 * row, kDw, 4}},
      {"k_small", 1, {kX + 8 * row, kWork + 8 * 2, 1}},
      {"k_sum", 3, {kX + 8 * row, kDw, 1}},
      {"k_end", 1, {kDw, 9}}};
  std::vector<Seen> seen = launchedSince(0);
  ASSERT_EQ(seen.size(), expected.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].kernel, expected[i].kernel) << i;
    EXPECT_EQ(seen[i].grid, expected[i].grid) << i << " " << seen[i].kernel;
    EXPECT_EQ(seen[i].words, expected[i].words) << i << " " << seen[i].kernel;
  }
  // The tensor maps of k_large's two chunks: x's rows of the chunk, the
  // workspace's first rows, each the chunk's 4 rows.
  ASSERT_EQ(fake_cuda_tensor_map_count(), 4);
  const uint64_t addresses[] = {kX, kWork + 8 * 2, kX + 4 * row, kWork + 8 * 2};
  const uint64_t strides[] = {row, 32, row, 32};
  for (int i = 0; i < 4; ++i) {
    const fake_cuda_tensor_map *m = fake_cuda_tensor_map_at(i);
    EXPECT_EQ(m->address, addresses[i]) << i;
    EXPECT_EQ(m->dims[0], 8u) << i;
    EXPECT_EQ(m->dims[1], 4u) << i;
    EXPECT_EQ(m->stride, strides[i]) << i;
  }
}

// T below one chunk, exactly two chunks, and 2 chunks + 1: the launches
// in order, by kernel and the T each gets.
TEST_F(RuntimeChunks, TheChunksCoverTExactly) {
  fmlp::Bundle bundle(chunks.path());
  bundle.load();
  int backward = bundle.entry("backward");
  using Plan = std::vector<std::pair<std::string, uint64_t>>;
  const std::pair<int64_t, Plan> cases[] = {
      {1, {{"k_fill", 1}, {"k_small", 1}, {"k_sum", 1}, {"k_end", 1}}},
      {3, {{"k_fill", 3}, {"k_large", 3}, {"k_sum", 3}, {"k_end", 3}}},
      {8,
       {{"k_fill", 8},
        {"k_large", 4},
        {"k_sum", 4},
        {"k_large", 4},
        {"k_sum", 4},
        {"k_end", 8}}},
      {10,
       {{"k_fill", 10},
        {"k_large", 4},
        {"k_sum", 4},
        {"k_large", 4},
        {"k_sum", 4},
        {"k_small", 2},
        {"k_sum", 2},
        {"k_end", 10}}}};
  for (const auto &[tokens, plan] : cases) {
    int before = fake_cuda_launch_count();
    bundle.launch(backward, tensors(tokens));
    Plan seen;
    for (const Seen &l : launchedSince(before))
      seen.push_back({l.kernel, l.words.back()}); // T is the last parameter
    EXPECT_EQ(seen, plan) << "T = " << tokens;
  }
}

// A per-chunk kernel alone runs at each chunk it serves, and is refused
// when it serves none.
TEST_F(RuntimeChunks, OneKernelAloneRunsAtItsChunks) {
  fmlp::Bundle bundle(chunks.path());
  bundle.load();
  int backward = bundle.entry("backward");
  std::vector<fmlp_tensor> at9 = tensors(9), at8 = tensors(8);
  ASSERT_EQ(
      fmlp_launch_kernel(bundle.get(), backward, 3, at9.data(), 3, nullptr),
      FMLP_OK)
      << fmlp_last_error();
  std::vector<Seen> seen = launchedSince(0);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[2].words, (std::vector<uint64_t>{kX + 8 * 16, kDw, 1}));
  ASSERT_EQ(
      fmlp_launch_kernel(bundle.get(), backward, 1, at9.data(), 3, nullptr),
      FMLP_OK)
      << fmlp_last_error();
  EXPECT_EQ(fake_cuda_launch_count(), 4);
  EXPECT_EQ(
      fmlp_launch_kernel(bundle.get(), backward, 1, at8.data(), 3, nullptr),
      FMLP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("kernel 1 (k_small) of c.backward serves T in [1, 2], "
                      "not T = 8 in chunks of 4"),
            std::string::npos)
      << fmlp_last_error();
  EXPECT_EQ(fake_cuda_launch_count(), 4);
}

TEST_F(RuntimeLaunch, AnotherChipIsRefusedWithTheCommandToRecompile) {
  const size_t sizes[] = {8};
  fake_cuda_reset(8, 0, sizes, 1);
  fmlp::Bundle bundle(dir.path());
  try {
    bundle.load();
    FAIL() << "an sm_90a bundle loaded on sm_80";
  } catch (const fmlp::RuntimeError &error) {
    EXPECT_EQ(error.status(), FMLP_ERROR_CHIP);
    EXPECT_NE(std::string(error.what())
                  .find("compiled for sm_90a but the device is sm_80: "
                        "recompile with fmlp-compile --chip=sm_80"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(fake_cuda_modules_loaded(), 0);
}

} // namespace
