//===- RuntimeTest.cpp - The runtime's parsing and validation -------------===//
//
// Everything the runtime checks before it touches the GPU: the manifest
// (every malformation is refused when the bundle is opened, with a message
// that says where), the entry-point queries, every validation of a launch's
// tensors, the saved-activation rule, and the error of a machine without
// a CUDA driver (ctest runs this with FMLP_LIBCUDA naming a library that
// does not exist, so the test means the same on a GPU machine).
//
//===----------------------------------------------------------------------===//

#include "fmlp/Runtime.h"
#include "fmlp/Runtime.hpp"

#include "BundleDir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>

namespace {

/// A small bundle: forward(x [T,8], w [4,8], y [T,4], saved [T,12]) and
/// backward(x, dy [T,4], dx [T,8], saved consumed).
const char *kManifest = R"({
  "format": "fmlp-bundle", "version": 1, "chip": "sm_90a",
  "images": {"ptx": "kernels.ptx"},
  "entry_points": [
    {"symbol": "mlp.forward", "kind": "forward", "static_tokens": 0,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 2, "consumed": false},
       {"name": "w", "role": "input", "dtype": "bf16", "shape": [4, 8], "alignment": 2, "consumed": false},
       {"name": "y", "role": "output", "dtype": "bf16", "shape": [-1, 4], "alignment": 2, "consumed": false},
       {"name": "saved", "role": "saved", "dtype": "bf16", "shape": [-1, 12], "alignment": 2, "consumed": false}],
     "launches": [
       {"kernel": "k0", "grid_tokens_per_block": [64, 0, 0], "grid_fixed": [0, 1, 1],
        "block": [256, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 0, "offset": 0}, {"argument": 3, "offset": 4}, {"tokens": true},
                   {"tensor_map": {"argument": 0, "offset": 0, "rows": -1, "cols": 8, "row_stride": 8, "box_rows": 128, "box_cols": 64}}]}]},
    {"symbol": "mlp.backward", "kind": "backward", "static_tokens": 0,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 2, "consumed": false},
       {"name": "dy", "role": "input", "dtype": "bf16", "shape": [-1, 4], "alignment": 2, "consumed": false},
       {"name": "dx", "role": "output", "dtype": "bf16", "shape": [-1, 8], "alignment": 2, "consumed": false},
       {"name": "saved", "role": "saved", "dtype": "bf16", "shape": [-1, 12], "alignment": 2, "consumed": true}],
     "launches": []}
  ]
})";

using fmlp::test::BundleDir;

std::string replaced(std::string text, const std::string &from,
                     const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "the fixture lacks " << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

TEST(RuntimeBundle, OpensAndDescribesEntryPoints) {
  BundleDir dir(kManifest);
  fmlp::Bundle bundle(dir.path());
  EXPECT_EQ(fmlp_entry_count(bundle.get()), 2);
  EXPECT_STREQ(fmlp_bundle_chip(bundle.get()), "sm_90a");
  int forward = bundle.entry("forward");
  EXPECT_EQ(bundle.entry("mlp.backward"), 1);
  EXPECT_STREQ(fmlp_entry_kind(bundle.get(), forward), "forward");
  std::vector<fmlp_argument_info> args = bundle.arguments(forward);
  ASSERT_EQ(args.size(), 4u);
  EXPECT_STREQ(args[3].name, "saved");
  EXPECT_EQ(args[3].role, FMLP_ROLE_SAVED);
  EXPECT_EQ(args[0].shape[0], -1);
  EXPECT_EQ(args[0].shape[1], 8);
  // Beyond inputs and outputs: the saved [T, 12] bf16.
  EXPECT_EQ(bundle.workspaceBytes(forward, 37), 37 * 12 * 2);
  EXPECT_EQ(bundle.workspaceBytes(forward, 0), 0);
}

TEST(RuntimeBundle, UnknownEntryPointIsNamed) {
  BundleDir dir(kManifest);
  fmlp::Bundle bundle(dir.path());
  int index = -1;
  EXPECT_EQ(fmlp_entry_find(bundle.get(), "forward_nograd", &index),
            FMLP_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(fmlp_last_error()).find("mlp.forward, mlp.backward"),
            std::string::npos)
      << fmlp_last_error();
}

TEST(RuntimeBundle, MissingDirectoryOrImage) {
  fmlp_bundle *bundle = nullptr;
  EXPECT_EQ(fmlp_bundle_open("/nonexistent/x.bundle", &bundle),
            FMLP_ERROR_BUNDLE);
  EXPECT_EQ(bundle, nullptr);
  EXPECT_NE(std::string(fmlp_last_error()).find("cannot read"),
            std::string::npos);
  BundleDir noPtx(kManifest, /*withPtx=*/false);
  EXPECT_EQ(fmlp_bundle_open(noPtx.path().c_str(), &bundle), FMLP_ERROR_BUNDLE);
  EXPECT_NE(std::string(fmlp_last_error()).find("kernels.ptx"),
            std::string::npos);
  EXPECT_EQ(fmlp_bundle_open(nullptr, &bundle), FMLP_ERROR_INVALID_ARGUMENT);
}

TEST(RuntimeBundle, NewerFormatVersionIsRefused) {
  BundleDir dir(replaced(kManifest, R"("version": 1)", R"("version": 2)"));
  fmlp_bundle *bundle = nullptr;
  EXPECT_EQ(fmlp_bundle_open(dir.path().c_str(), &bundle), FMLP_ERROR_VERSION);
  EXPECT_NE(std::string(fmlp_last_error()).find("version 2 is not supported"),
            std::string::npos)
      << fmlp_last_error();
}

/// Each malformation, and a word of the message that must locate it.
struct Malformation {
  const char *from, *to, *expected;
};

TEST(RuntimeBundle, EveryMalformationIsRefusedWithItsLocation) {
  const Malformation cases[] = {
      {R"("format": "fmlp-bundle")", R"("format": "other")", "manifest.format"},
      {R"("chip": "sm_90a")", R"("chip": "gfx942")", "manifest.chip"},
      {R"("images": {"ptx": "kernels.ptx"})", R"("images": {})",
       "manifest.images has no \"ptx\""},
      {R"("dtype": "bf16", "shape": [4, 8])",
       R"("dtype": "f64", "shape": [4, 8])", "arguments[1].dtype"},
      {R"("role": "output", "dtype": "bf16", "shape": [-1, 4])",
       R"("role": "result", "dtype": "bf16", "shape": [-1, 4])",
       "arguments[2].role"},
      {R"("shape": [4, 8])", R"("shape": [4, 0])", "arguments[1].shape"},
      {R"("shape": [4, 8])", R"("shape": [4, 8, 2])", "rank 1 or 2"},
      {R"("shape": [4, 8], "alignment": 2)",
       R"("shape": [4, 8], "alignment": 3)", "alignment is not a power of two"},
      {R"({"argument": 3, "offset": 4})", R"({"argument": 4, "offset": 4})",
       "params[1].argument is out of range"},
      {R"({"argument": 3, "offset": 4})", R"({"argument": 3, "offset": 12})",
       "params[1].offset is outside argument saved"},
      {R"("grid_fixed": [0, 1, 1])", R"("grid_fixed": [0, 0, 1])",
       "empty grid dimension"},
      {R"("block": [256, 1, 1])", R"("block": [2048, 1, 1])",
       "1 to 1024 threads"},
      {R"("kernel": "k0")", R"("kernel": 7)",
       "launches[0].kernel is not a string"},
      {R"("launches": []})", R"("launches": 3})", "launches is not an array"},
      {R"(, "consumed": true})", R"(})", "has no \"consumed\""},
      {R"("version": 1,)", R"("version": 1,,)", "not valid JSON"},
      {R"("rows": -1, "cols": 8)", R"("rows": 6, "cols": 8)",
       "tensor_map does not describe a view of argument x"},
      {R"("row_stride": 8)", R"("row_stride": 4)",
       "tensor_map does not describe a view of argument x"},
      {R"("box_rows": 128)", R"("box_rows": 512)",
       "tensor_map does not describe a view of argument x"},
      {R"("tensor_map": {"argument": 0)", R"("tensor_map": {"argument": 9)",
       "tensor_map.argument is out of range"},
  };
  for (const Malformation &c : cases) {
    BundleDir dir(replaced(kManifest, c.from, c.to));
    fmlp_bundle *bundle = nullptr;
    EXPECT_EQ(fmlp_bundle_open(dir.path().c_str(), &bundle), FMLP_ERROR_BUNDLE)
        << "accepted: " << c.to;
    EXPECT_EQ(bundle, nullptr);
    EXPECT_NE(std::string(fmlp_last_error()).find(c.expected),
              std::string::npos)
        << "for " << c.to << ": " << fmlp_last_error();
    fmlp_bundle_close(bundle);
  }
}

TEST(RuntimeBundle, NoDriverIsAClearError) {
  // ctest sets FMLP_LIBCUDA to a library that does not exist.
  ASSERT_NE(std::getenv("FMLP_LIBCUDA"), nullptr)
      << "run through ctest, which sets FMLP_LIBCUDA";
  BundleDir dir(kManifest);
  fmlp::Bundle bundle(dir.path());
  try {
    bundle.load();
    FAIL() << "loaded without a driver";
  } catch (const fmlp::RuntimeError &error) {
    EXPECT_EQ(error.status(), FMLP_ERROR_NO_DRIVER);
    EXPECT_NE(std::string(error.what()).find("no CUDA driver: cannot load"),
              std::string::npos)
        << error.what();
  }
}

/// Validation of a forward's tensors: well-formed ones, and one change.
class LaunchValidation : public ::testing::Test {
protected:
  LaunchValidation() : dir(kManifest), bundle(dir.path()) {
    // Fake, aligned device addresses: validation never dereferences them.
    tensors = {fmlp::denseTensor(address(0x10000), FMLP_BF16, {2, 3, 8}),
               fmlp::denseTensor(address(0x20000), FMLP_BF16, {4, 8}),
               fmlp::denseTensor(address(0x30000), FMLP_BF16, {6, 4}),
               fmlp::denseTensor(address(0x40000), FMLP_BF16, {6, 12})};
  }
  static void *address(uintptr_t a) { return reinterpret_cast<void *>(a); }

  /// Launches the forward with `change` applied; expects `status` and a
  /// message containing `expected`.
  void
  expectRefused(const std::function<void(std::vector<fmlp_tensor> &)> &change,
                fmlp_status status, const std::string &expected) {
    std::vector<fmlp_tensor> changed = tensors;
    change(changed);
    EXPECT_EQ(fmlp_launch(bundle.get(), 0, changed.data(),
                          static_cast<int>(changed.size()), nullptr),
              status)
        << fmlp_last_error();
    EXPECT_NE(std::string(fmlp_last_error()).find(expected), std::string::npos)
        << fmlp_last_error();
  }

  BundleDir dir;
  fmlp::Bundle bundle;
  std::vector<fmlp_tensor> tensors;
};

TEST_F(LaunchValidation, WellFormedTensorsReachTheLoadCheck) {
  // Leading dims [2, 3] flatten to T = 6; everything is valid, so the only
  // complaint left is that the bundle is not loaded.
  expectRefused([](auto &) {}, FMLP_ERROR_NOT_LOADED,
                "call fmlp_bundle_load first");
}

TEST_F(LaunchValidation, WrongCount) {
  expectRefused([](auto &t) { t.pop_back(); }, FMLP_ERROR_COUNT,
                "takes 4 tensors, got 3");
}

TEST_F(LaunchValidation, WrongDtype) {
  expectRefused([](auto &t) { t[1].dtype = FMLP_F32; }, FMLP_ERROR_DTYPE,
                "argument 1 (w) must be bf16, got f32");
}

TEST_F(LaunchValidation, WrongWeightShape) {
  expectRefused(
      [](auto &t) {
        t[1] = fmlp::denseTensor(t[1].data, FMLP_BF16, {8, 4});
      },
      FMLP_ERROR_SHAPE, "argument 1 (w) must have shape [4, 8], got [8, 4]");
}

TEST_F(LaunchValidation, WrongWidth) {
  expectRefused(
      [](auto &t) {
        t[0] = fmlp::denseTensor(t[0].data, FMLP_BF16, {6, 9});
      },
      FMLP_ERROR_SHAPE, "argument 0 (x) must have shape [T, 8], got [6, 9]");
}

TEST_F(LaunchValidation, TokenCountsDisagree) {
  expectRefused(
      [](auto &t) {
        t[2] = fmlp::denseTensor(t[2].data, FMLP_BF16, {5, 4});
      },
      FMLP_ERROR_SHAPE, "argument 2 (y) has 5 tokens, the earlier arguments 6");
}

TEST_F(LaunchValidation, TokenArgumentOfRankOne) {
  expectRefused(
      [](auto &t) { t[0] = fmlp::denseTensor(t[0].data, FMLP_BF16, {8}); },
      FMLP_ERROR_SHAPE, "must have shape [T, 8], got [8]");
}

TEST_F(LaunchValidation, NegativeSize) {
  expectRefused([](auto &t) { t[0].sizes[0] = -2; }, FMLP_ERROR_SHAPE,
                "negative size");
}

TEST_F(LaunchValidation, NonContiguous) {
  // A transposed view of w: strides (1, 4).
  expectRefused(
      [](auto &t) {
        t[1].strides[0] = 1;
        t[1].strides[1] = 4;
      },
      FMLP_ERROR_LAYOUT, "dimension 1 has stride 4, expected 1");
}

TEST_F(LaunchValidation, NullPointer) {
  expectRefused([](auto &t) { t[2].data = nullptr; }, FMLP_ERROR_NULL_POINTER,
                "argument 2 (y) is a null pointer");
}

TEST_F(LaunchValidation, Misaligned) {
  expectRefused([](auto &t) { t[3].data = address(0x40001); },
                FMLP_ERROR_ALIGNMENT,
                "argument 3 (saved) must be aligned to 2 bytes");
}

TEST_F(LaunchValidation, BackwardNeedsActivationsFromAForward) {
  std::vector<fmlp_tensor> backward = {
      fmlp::denseTensor(address(0x10000), FMLP_BF16, {6, 8}),
      fmlp::denseTensor(address(0x50000), FMLP_BF16, {6, 4}),
      fmlp::denseTensor(address(0x60000), FMLP_BF16, {6, 8}),
      fmlp::denseTensor(address(0x40000), FMLP_BF16, {6, 12})};
  EXPECT_EQ(fmlp_launch(bundle.get(), 1, backward.data(), 4, nullptr),
            FMLP_ERROR_SAVED_CONSUMED);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("were not written by a forward of this bundle"),
            std::string::npos)
      << fmlp_last_error();
}

// A forward has no output without token rows: nothing to do, no driver
// needed (the zeroed weight gradients of a backward: RuntimeLaunchTest).
TEST_F(LaunchValidation, NoTokensLaunchesNothing) {
  tensors[0] = fmlp::denseTensor(nullptr, FMLP_BF16, {0, 8});
  tensors[2] = fmlp::denseTensor(nullptr, FMLP_BF16, {0, 4});
  tensors[3] = fmlp::denseTensor(nullptr, FMLP_BF16, {0, 12});
  EXPECT_EQ(fmlp_launch(bundle.get(), 0, tensors.data(), 4, nullptr), FMLP_OK)
      << fmlp_last_error();
}

// The chip for a device, from the compiler's chip table (no CUDA needed):
// what Python's chip_of and a caller choosing --chip ask.
TEST(RuntimeChip, ForCapability) {
  EXPECT_STREQ(fmlp_chip_for_capability(9, 0), "sm_90a");
  EXPECT_STREQ(fmlp_chip_for_capability(8, 0), "sm_80");
  EXPECT_STREQ(fmlp_chip_for_capability(8, 6), "sm_86");
  EXPECT_STREQ(fmlp_chip_for_capability(10, 0), "sm_100a");
  EXPECT_STREQ(fmlp_chip_for_capability(12, 0), "sm_120");
  EXPECT_EQ(fmlp_chip_for_capability(7, 5), nullptr);
  EXPECT_EQ(fmlp_chip_for_capability(-1, 0), nullptr);
}

} // namespace
