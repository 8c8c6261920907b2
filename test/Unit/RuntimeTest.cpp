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

#include <climits>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>

namespace {

/// A small bundle: forward(x [T,8], w [4,8], y [T,4], saved [T,12]) and
/// backward(x, dy [T,4], dx [T,8], saved consumed); k0 takes views of x
/// (T rows) and w (4 static rows).
const char *kManifest = R"({
  "format": "fmlp-bundle", "version": 3, "compiler": "fmlp 0.2.0", "chip": "sm_90a",
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
                   {"tensor_map": {"argument": 0, "offset": 0, "rows": -1, "cols": 8, "row_stride": 8, "box_rows": 128, "box_cols": 64}},
                   {"tensor_map": {"argument": 1, "offset": 0, "rows": 4, "cols": 8, "row_stride": 8, "box_rows": 4, "box_cols": 8}}]}]},
    {"symbol": "mlp.backward", "kind": "backward", "static_tokens": 0,
     "arguments": [
       {"name": "x", "role": "input", "dtype": "bf16", "shape": [-1, 8], "alignment": 2, "consumed": false},
       {"name": "dy", "role": "input", "dtype": "bf16", "shape": [-1, 4], "alignment": 2, "consumed": false},
       {"name": "dx", "role": "output", "dtype": "bf16", "shape": [-1, 8], "alignment": 2, "consumed": false},
       {"name": "saved", "role": "saved", "dtype": "bf16", "shape": [-1, 12], "alignment": 2, "consumed": true}],
     "launches": [
       {"kernel": "k0", "grid_tokens_per_block": [64, 0, 0], "grid_fixed": [0, 1, 1],
        "block": [256, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 2, "offset": 0}, {"argument": 3, "offset": 0}, {"tokens": true}]}]}
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
  EXPECT_EQ(bundle.compiler(), "fmlp 0.2.0");
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
  // T is dynamic (fmlp-bundle-info-variants.mlir reads a static one); no
  // such entry or bundle: 0 too.
  EXPECT_EQ(fmlp_entry_static_tokens(bundle.get(), forward), 0);
  EXPECT_EQ(fmlp_entry_static_tokens(bundle.get(), 2), 0);
  EXPECT_EQ(fmlp_entry_static_tokens(nullptr, 0), 0);
  BundleDir fixed(replaced(kManifest, R"("static_tokens": 0)",
                           R"("static_tokens": 37)"));
  EXPECT_EQ(fmlp_entry_static_tokens(fmlp::Bundle(fixed.path()).get(), 0),
            37);
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

// Version 2 (no token chunks: a version-2 runtime would run each per-chunk
// launch once over all T, past a workspace sized for one chunk), version 1
// (launches without a range of T: a version-1 runtime would run every
// variant of a kernel) and any other version are refused, naming both.
TEST(RuntimeBundle, OtherFormatVersionsAreRefused) {
  // 4294967299 = 2^32 + 3 would read as 3 narrowed to 32 bits.
  for (const char *version :
       {"1", "2", "4", "4294967299", "18446744073709551615"}) {
    BundleDir dir(replaced(kManifest, R"("version": 3)",
                           std::string(R"("version": )") + version));
    fmlp_bundle *bundle = nullptr;
    EXPECT_EQ(fmlp_bundle_open(dir.path().c_str(), &bundle),
              FMLP_ERROR_VERSION)
        << version;
    EXPECT_NE(std::string(fmlp_last_error())
                  .find("version " + std::string(version) +
                        " is not supported: this runtime reads version 3"),
              std::string::npos)
        << fmlp_last_error();
  }
}

// A bundle from before fmlp 0.2.0 names no compiler: within one format
// version the field is optional, so a manifest without it opens, with an
// empty compiler; a compiler that is not a string does not.
TEST(RuntimeBundle, CompilerIsOptionalButAString) {
  BundleDir old(replaced(kManifest, R"("compiler": "fmlp 0.2.0", )", ""));
  fmlp::Bundle bundle(old.path());
  EXPECT_EQ(bundle.compiler(), "");
  BundleDir wrong(replaced(kManifest, R"("compiler": "fmlp 0.2.0")",
                           R"("compiler": 20)"));
  fmlp_bundle *handle = nullptr;
  EXPECT_EQ(fmlp_bundle_open(wrong.path().c_str(), &handle),
            FMLP_ERROR_BUNDLE);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("manifest.compiler is not a string"),
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
       "launches[0].block[0] = 2048 is outside 1 to 1024"},
      {R"("block": [256, 1, 1])", R"("block": [256, 8, 1])",
       "launches[0].block is not 1 to 1024 threads (2048)"},
      {R"("kernel": "k0")", R"("kernel": 7)",
       "launches[0].kernel is not a string"},
      {R"("launches": [)", R"("launches": 3, "unread": [)",
       "launches is not an array"},
      // An entry point that launches nothing would leave its outputs
      // unwritten.
      {R"("launches": [
       {"kernel": "k0", "grid_tokens_per_block": [64, 0, 0], "grid_fixed": [0, 1, 1],
        "block": [256, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 2, "offset": 0}, {"argument": 3, "offset": 0}, {"tokens": true}]}]})",
       R"("launches": []})",
       "manifest.entry_points[1].launches is empty: the entry point would "
       "write none of its outputs"},
      {R"(, "consumed": true})", R"(})", "has no \"consumed\""},
      {R"("version": 3,)", R"("version": 3,,)", "not valid JSON"},
      {R"("rows": -1, "cols": 8)", R"("rows": 6, "cols": 8)",
       "tensor_map does not describe a view of argument x"},
      {R"("row_stride": 8)", R"("row_stride": 4)",
       "tensor_map does not describe a view of argument x"},
      {R"("box_rows": 128)", R"("box_rows": 512)",
       "params[3].tensor_map.box_rows = 512 is outside 1 to 256"},
      {R"("tensor_map": {"argument": 0)", R"("tensor_map": {"argument": 9)",
       "tensor_map.argument is out of range"},
      // What a launch writes: an argument it refers to, never an input.
      {R"("dynamic_shared_bytes": 0,)", R"("dynamic_shared_bytes": 0, "writes": [0],)",
       "launches[0].writes[0] = 0: argument x is an input, which no launch "
       "writes"},
      {R"("dynamic_shared_bytes": 0,)", R"("dynamic_shared_bytes": 0, "writes": [2],)",
       "launches[0].writes[0] = 2: argument y is not among the launch's "
       "params"},
      {R"("dynamic_shared_bytes": 0,)", R"("dynamic_shared_bytes": 0, "writes": [4],)",
       "launches[0].writes[0] = 4 is outside 0 to 3"},
      {R"("dynamic_shared_bytes": 0,)",
       R"("dynamic_shared_bytes": 0, "writes": [3, 3],)",
       "launches[0].writes names an argument twice"},
      {R"("dynamic_shared_bytes": 0,)", R"("dynamic_shared_bytes": 0, "writes": 3,)",
       "launches[0].writes is not an array"},
  };
  for (const Malformation &c : cases) {
    BundleDir dir(replaced(kManifest, c.from, c.to));
    fmlp_bundle *bundle = nullptr;
    SCOPED_TRACE(c.to);
    EXPECT_EQ(fmlp_bundle_open(dir.path().c_str(), &bundle), FMLP_ERROR_BUNDLE)
        << "accepted: " << c.to;
    EXPECT_EQ(bundle, nullptr);
    EXPECT_NE(std::string(fmlp_last_error()).find(c.expected),
              std::string::npos)
        << "for " << c.to << ": " << fmlp_last_error();
    fmlp_bundle_close(bundle);
  }
}

// The tampered manifests the runtime used to misread (issue 27): each
// number that does not fit its field, or a view outside its argument, is
// refused with the manifest location and the value.
TEST(RuntimeBundle, NumbersThatDoNotFitTheirFieldAreRefused) {
  const Malformation cases[] = {
      // 2^32 + 1024 reached cuLaunchKernel's unsigned as 1024.
      {R"("dynamic_shared_bytes": 0)", R"("dynamic_shared_bytes": 4294968320)",
       "manifest.entry_points[0].launches[0].dynamic_shared_bytes = "
       "4294968320 is outside 0 to 2147483647"},
      {R"("dynamic_shared_bytes": 0)", R"("dynamic_shared_bytes": -1)",
       "dynamic_shared_bytes = -1 is outside 0 to 2147483647"},
      // [2^62 + 1, 4, 1]: 4 (2^62 + 1) threads wrapped to 4.
      {R"("block": [256, 1, 1])", R"("block": [4611686018427387905, 4, 1])",
       "manifest.entry_points[0].launches[0].block[0] = 4611686018427387905 "
       "is outside 1 to 1024"},
      {R"("block": [256, 1, 1])", R"("block": [256, 1, 65])",
       "block[2] = 65 is outside 1 to 64"},
      {R"("grid_fixed": [0, 1, 1])", R"("grid_fixed": [0, 65536, 1])",
       "launches[0].grid_fixed[1] = 65536 is outside 0 to 65535"},
      {R"("grid_tokens_per_block": [64, 0, 0])",
       R"("grid_tokens_per_block": [-64, 0, 0])",
       "grid_tokens_per_block[0] = -64 is outside 0 to"},
      {R"("grid_tokens_per_block": [64, 0, 0])",
       R"("grid_tokens_per_block": [64.5, 0, 0])",
       "grid_tokens_per_block[0] = 64.5 is not an integer"},
      // A view of w [4, 8] of 1,000,000 rows.
      {R"("rows": 4, "cols": 8)", R"("rows": 1000000, "cols": 8)",
       "params[4].tensor_map does not describe a view of argument w: 1000000 "
       "rows x 8 columns, rows 8 elements apart, from element 0, end at "
       "element 8000000, outside its 32 elements"},
      // Rows 2 TB apart (2^40 bf16 elements), of w and of x.
      {R"("rows": 4, "cols": 8, "row_stride": 8)",
       R"("rows": 4, "cols": 8, "row_stride": 1099511627776)",
       "params[4].tensor_map does not describe a view of argument w: rows "
       "1099511627776 elements apart, beyond the argument's 32 elements"},
      {R"("rows": -1, "cols": 8, "row_stride": 8)",
       R"("rows": -1, "cols": 8, "row_stride": 1099511627776)",
       "params[3].tensor_map does not describe a view of argument x: rows "
       "1099511627776 elements apart, beyond the argument's 8 elements per "
       "row"},
      // offset + cols overflowed to a negative end, and offset x 2 bytes
      // to an address 8 KB before x.
      {R"("argument": 0, "offset": 0, "rows": -1)",
       R"("argument": 0, "offset": 9223372036854771712, "rows": -1)",
       "params[3].tensor_map does not describe a view of argument x: 1 rows "
       "x 8 columns, rows 8 elements apart, from element "
       "9223372036854771712, end at element 9223372036854771720, outside its "
       "8 elements per row"},
      {R"("argument": 0, "offset": 0, "rows": -1)",
       R"("argument": 0, "offset": 9223372036854775804, "rows": -1)",
       "from element 9223372036854775804, end beyond int64"},
      {R"("argument": 1, "offset": 0, "rows": 4)",
       R"("argument": 1, "offset": 30, "rows": 4)",
       "end at element 62, outside its 32 elements"},
      {R"({"argument": 3, "offset": 4})", R"({"argument": 3, "offset": -4})",
       "params[1].offset = -4 is outside 0 to 9223372036854775807"},
      {R"({"argument": 3, "offset": 4})",
       R"({"argument": 3, "offset": 18446744073709551615})",
       "params[1].offset = 18446744073709551615 is outside 0 to"},
      // 2^32 would narrow to argument 0; 2^32 + 2 to alignment 2.
      {R"({"argument": 3, "offset": 4})",
       R"({"argument": 4294967296, "offset": 4})",
       "params[1].argument is out of range: 4294967296, and the entry point "
       "has 4 arguments"},
      {R"("shape": [4, 8], "alignment": 2)",
       R"("shape": [4, 8], "alignment": 4294967298)",
       "arguments[1].alignment = 4294967298 is outside 1 to 2147483647"},
      {R"("shape": [4, 8])", R"("shape": [4611686018427387904, 8])",
       "arguments[1].shape [4611686018427387904, 8] of bf16 has more bytes "
       "than int64 counts"},
      {R"("shape": [4, 8])", R"("shape": [-1])",
       "arguments[1].shape[0] = -1 is an invalid extent"},
      {R"("shape": [4, 8])", R"("shape": [4, -3])",
       "arguments[1].shape[1] = -3 is outside -1 to"},
      {R"("static_tokens": 0,
     "arguments": [
       {"name": "x")",
       R"("static_tokens": -5,
     "arguments": [
       {"name": "x")",
       "entry_points[0].static_tokens = -5 is outside 0 to"},
      {R"("chip": "sm_90a")", R"("chip": "sm_99999999999")", "manifest.chip"},
      {R"("ptx": "kernels.ptx")", R"("ptx": "../kernels.ptx")",
       "manifest.images.ptx \"../kernels.ptx\" is not a file name inside "
       "the bundle"},
      {R"("kernel": "k0")", R"("kernel": "")", "launches[0].kernel is empty"},
      {R"("kind": "backward")", R"("kind": "sideways")",
       "manifest.entry_points[1].kind \"sideways\" is not forward, backward "
       "or forward_nograd"},
      {R"("symbol": "mlp.backward")", R"("symbol": "mlp.forward")",
       "manifest.entry_points[1].symbol \"mlp.forward\" names an earlier "
       "entry point too"},
  };
  for (const Malformation &c : cases) {
    BundleDir dir(replaced(kManifest, c.from, c.to));
    fmlp_bundle *bundle = nullptr;
    SCOPED_TRACE(c.to);
    EXPECT_EQ(fmlp_bundle_open(dir.path().c_str(), &bundle), FMLP_ERROR_BUNDLE);
    EXPECT_EQ(bundle, nullptr);
    EXPECT_NE(std::string(fmlp_last_error()).find(c.expected),
              std::string::npos)
        << fmlp_last_error();
    fmlp_bundle_close(bundle);
  }
}

// A launch's range of T (min_tokens, max_tokens; version 2): optional,
// each an integer, 1 <= min_tokens <= max_tokens; anything else is refused
// when the bundle is opened, naming the field.
TEST(RuntimeBundle, TokenRangesAreCheckedWhenOpened) {
  const char *at = R"("dynamic_shared_bytes": 0,)";
  auto ranged = [&](const std::string &fields) {
    return replaced(kManifest, at,
                    std::string(R"("dynamic_shared_bytes": 0, )") + fields +
                        ",");
  };
  const Malformation cases[] = {
      {"", R"("min_tokens": 0)",
       "manifest.entry_points[0].launches[0].min_tokens = 0 is outside 1 to "
       "9223372036854775807"},
      {"", R"("min_tokens": -17)", "launches[0].min_tokens = -17 is outside"},
      {"", R"("min_tokens": 1.5)", "launches[0].min_tokens = 1.5 is not an "
                                   "integer"},
      {"", R"("min_tokens": "17")", "launches[0].min_tokens = \"17\" is not an "
                                    "integer"},
      {"", R"("max_tokens": null)", "launches[0].max_tokens = null is not an "
                                    "integer"},
      {"", R"("max_tokens": 0)", "launches[0].max_tokens = 0 is outside 1 to"},
      {"", R"("min_tokens": 17, "max_tokens": 16)",
       "launches[0].max_tokens = 16 is outside 17 to 9223372036854775807"},
      {"", R"("max_tokens": 18446744073709551615)",
       "launches[0].max_tokens = 18446744073709551615 is outside 1 to"},
  };
  for (const Malformation &c : cases) {
    BundleDir dir(ranged(c.to));
    fmlp_bundle *bundle = nullptr;
    SCOPED_TRACE(c.to);
    EXPECT_EQ(fmlp_bundle_open(dir.path().c_str(), &bundle), FMLP_ERROR_BUNDLE)
        << "accepted: " << c.to;
    EXPECT_EQ(bundle, nullptr);
    EXPECT_NE(std::string(fmlp_last_error()).find(c.expected),
              std::string::npos)
        << fmlp_last_error();
    fmlp_bundle_close(bundle);
  }
  // Well-formed ranges open, and fmlp_kernel_tokens reports them.
  struct Range {
    const char *fields;
    int64_t min, max;
  };
  const Range ranges[] = {{R"("min_tokens": 1)", 1, INT64_MAX},
                          {R"("min_tokens": 17)", 17, INT64_MAX},
                          {R"("max_tokens": 16)", 1, 16},
                          {R"("min_tokens": 5, "max_tokens": 5)", 5, 5}};
  for (const Range &r : ranges) {
    BundleDir dir(ranged(r.fields));
    fmlp::Bundle bundle(dir.path());
    int64_t min = 0, max = 0;
    ASSERT_EQ(fmlp_kernel_tokens(bundle.get(), 0, 0, &min, &max), FMLP_OK)
        << fmlp_last_error();
    EXPECT_EQ(min, r.min) << r.fields;
    EXPECT_EQ(max, r.max) << r.fields;
  }
}

// A token-chunked entry point (version 3): c.backward(x [T, 8], dw [16, 8],
// workspace [4, 16]) in chunks of 4 tokens; k_fill runs once, k_chunk per
// chunk on x's rows of the chunk (token_stride 8, one row) and on the
// workspace (token_stride 0), through a pointer and tensor maps whose -1
// rows are the chunk's T.
const char *kChunked = R"({
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
       {"kernel": "k_chunk", "grid_tokens_per_block": [4, 0, 0], "grid_fixed": [0, 1, 1],
        "block": [128, 1, 1], "dynamic_shared_bytes": 0, "per_chunk": true,
        "params": [{"argument": 0, "offset": 0, "token_stride": 8},
                   {"argument": 2, "offset": 8, "token_stride": 0},
                   {"tensor_map": {"argument": 0, "offset": 0, "rows": -1, "cols": 8, "row_stride": 8, "box_rows": 4, "box_cols": 8, "token_stride": 8}},
                   {"tensor_map": {"argument": 2, "offset": 8, "rows": -1, "cols": 8, "row_stride": 16, "box_rows": 4, "box_cols": 8, "token_stride": 0}},
                   {"tokens": true}]},
       {"kernel": "k_end", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [128, 1, 1], "dynamic_shared_bytes": 0,
        "params": [{"argument": 1, "offset": 0}, {"tokens": true}]}]}]
})";

TEST(RuntimeBundle, ChunkedEntryPointsOpenAndDescribeTheirChunks) {
  BundleDir dir(kChunked);
  fmlp::Bundle bundle(dir.path());
  int backward = bundle.entry("backward");
  EXPECT_EQ(fmlp_entry_chunk_tokens(bundle.get(), backward), 4);
  EXPECT_EQ(fmlp_kernel_per_chunk(bundle.get(), backward, 0), 0);
  EXPECT_EQ(fmlp_kernel_per_chunk(bundle.get(), backward, 1), 1);
  EXPECT_EQ(fmlp_kernel_per_chunk(bundle.get(), backward, 2), 0);
  // The workspace is one chunk's, whatever T.
  EXPECT_EQ(bundle.workspaceBytes(backward, 1), 4 * 16 * 2);
  EXPECT_EQ(bundle.workspaceBytes(backward, 1 << 20), 4 * 16 * 2);
  // No such entry point or kernel: not chunked.
  EXPECT_EQ(fmlp_entry_chunk_tokens(bundle.get(), 1), 0);
  EXPECT_EQ(fmlp_entry_chunk_tokens(nullptr, 0), 0);
  EXPECT_EQ(fmlp_kernel_per_chunk(bundle.get(), backward, 3), 0);
  EXPECT_EQ(fmlp_kernel_per_chunk(bundle.get(), backward, -1), 0);
  // Without chunk_tokens (the unchunked bundles): 0.
  BundleDir whole(kManifest);
  fmlp::Bundle wholeBundle(whole.path());
  EXPECT_EQ(fmlp_entry_chunk_tokens(wholeBundle.get(), 0), 0);
  EXPECT_EQ(fmlp_kernel_per_chunk(wholeBundle.get(), 0, 0), 0);
}

// Every chunk field is checked when the bundle is opened: chunk_tokens an
// integer >= 0 with a per_chunk launch when positive; per_chunk only in a
// chunked entry point, its launches contiguous; token_stride exactly in
// per-chunk launches, one row of a T-rows argument per token and 0 for any
// other; a per-chunk view of an argument without T rows inside it for a
// whole chunk.
TEST(RuntimeBundle, ChunkFieldsAreCheckedWhenOpened) {
  const Malformation cases[] = {
      {R"("chunk_tokens": 4)", R"("chunk_tokens": -4)",
       "manifest.entry_points[0].chunk_tokens = -4 is outside 0 to "
       "9223372036854775807"},
      {R"("chunk_tokens": 4)", R"("chunk_tokens": 4.5)",
       "chunk_tokens = 4.5 is not an integer"},
      {R"("chunk_tokens": 4)", R"("chunk_tokens": 0)",
       "manifest.entry_points[0].launches[1] is per_chunk, but the entry "
       "point has no chunk_tokens"},
      {R"(, "chunk_tokens": 4)", "",
       "launches[1] is per_chunk, but the entry point has no chunk_tokens"},
      {R"("per_chunk": true)", R"("per_chunk": "yes")",
       "launches[1].per_chunk is not a boolean"},
      {R"("offset": 0}, {"tokens": true}]}]}])",
       R"("offset": 0}, {"tokens": true}]},
       {"kernel": "k_again", "grid_tokens_per_block": [0, 0, 0], "grid_fixed": [1, 1, 1],
        "block": [128, 1, 1], "dynamic_shared_bytes": 0, "per_chunk": true,
        "params": [{"tokens": true}]}]}])",
       "manifest.entry_points[0].launches[3] is per_chunk, but not "
       "contiguous with the per_chunk launches before it"},
      {R"({"argument": 0, "offset": 0, "token_stride": 8})",
       R"({"argument": 0, "offset": 0})",
       "launches[1].params[0] has no \"token_stride\""},
      {R"({"argument": 0, "offset": 0, "token_stride": 8})",
       R"({"argument": 0, "offset": 0, "token_stride": 7})",
       "launches[1].params[0].token_stride = 7 for argument x: a chunk's "
       "view of T rows moves by whole rows, 8 elements per token"},
      {R"({"argument": 0, "offset": 0, "token_stride": 8})",
       R"({"argument": 0, "offset": 0, "token_stride": 0})",
       "params[0].token_stride = 0 for argument x"},
      {R"({"argument": 2, "offset": 8, "token_stride": 0})",
       R"({"argument": 2, "offset": 8, "token_stride": 16})",
       "launches[1].params[1].token_stride = 16 for argument workspace: a "
       "chunk's view of an argument without T rows stays in place (0)"},
      {R"("box_cols": 8, "token_stride": 8})",
       R"("box_cols": 8, "token_stride": -8})",
       "params[2].tensor_map.token_stride = -8 is outside 0 to"},
      {R"("row_stride": 16, "box_rows": 4, "box_cols": 8, "token_stride": 0})",
       R"("row_stride": 16, "box_rows": 4, "box_cols": 8})",
       "params[3].tensor_map has no \"token_stride\""},
      {R"({"argument": 1, "offset": 0}, {"tokens": true}]},)",
       R"({"argument": 1, "offset": 0, "token_stride": 0}, {"tokens": true}]},)",
       "launches[0].params[0].token_stride is given in a launch that is not "
       "per_chunk"},
      // The workspace view from element 8 of a row 16 apart, 8 wide: for a
      // chunk of 4 rows it ends at 8 + 3 x 16 + 8 = 64 of 64 elements;
      // from element 9 it would end past them.
      {R"("argument": 2, "offset": 8, "rows": -1)",
       R"("argument": 2, "offset": 9, "rows": -1)",
       "params[3].tensor_map does not describe a view of argument workspace: "
       "4 rows x 8 columns, rows 16 elements apart, from element 9, end at "
       "element 65, outside its 64 elements"},
  };
  for (const Malformation &c : cases) {
    BundleDir dir(replaced(kChunked, c.from, c.to));
    fmlp_bundle *bundle = nullptr;
    SCOPED_TRACE(c.to);
    EXPECT_EQ(fmlp_bundle_open(dir.path().c_str(), &bundle), FMLP_ERROR_BUNDLE)
        << "accepted: " << c.to;
    EXPECT_EQ(bundle, nullptr);
    EXPECT_NE(std::string(fmlp_last_error()).find(c.expected),
              std::string::npos)
        << fmlp_last_error();
    fmlp_bundle_close(bundle);
  }
  // chunk_tokens without a per-chunk launch.
  {
    BundleDir dir(replaced(
        kManifest, R"("kind": "forward", "static_tokens": 0,)",
        R"("kind": "forward", "static_tokens": 0, "chunk_tokens": 4,)"));
    fmlp_bundle *bundle = nullptr;
    EXPECT_EQ(fmlp_bundle_open(dir.path().c_str(), &bundle), FMLP_ERROR_BUNDLE);
    EXPECT_NE(std::string(fmlp_last_error())
                  .find("manifest.entry_points[0].chunk_tokens = 4, but no "
                        "launch is per_chunk"),
              std::string::npos)
        << fmlp_last_error();
  }
  // A -1-row view of an argument without T rows outside a per-chunk
  // launch is refused as before (there, -1 is T, unbounded).
  BundleDir whole(replaced(kManifest,
                           R"("argument": 1, "offset": 0, "rows": 4)",
                           R"("argument": 1, "offset": 0, "rows": -1)"));
  fmlp_bundle *bundle = nullptr;
  EXPECT_EQ(fmlp_bundle_open(whole.path().c_str(), &bundle), FMLP_ERROR_BUNDLE);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("rows = -1, the argument has no T rows (1 or more, or "
                      "-1 for a chunk's in a per_chunk launch)"),
            std::string::npos)
      << fmlp_last_error();
}

TEST(RuntimeBundle, KernelTokensOfNoKernelIsAnError) {
  BundleDir dir(kManifest);
  fmlp::Bundle bundle(dir.path());
  int64_t min = -7, max = -7;
  // Absent fields: every T >= 1.
  ASSERT_EQ(fmlp_kernel_tokens(bundle.get(), 0, 0, &min, &max), FMLP_OK);
  EXPECT_EQ(min, 1);
  EXPECT_EQ(max, INT64_MAX);
  // Each entry has one launch; entry 2 does not exist.
  const std::pair<int, int> missing[] = {{0, 1}, {0, -1}, {1, 1}, {2, 0},
                                         {-1, 0}};
  for (auto [entry, kernel] : missing)
    EXPECT_EQ(fmlp_kernel_tokens(bundle.get(), entry, kernel, &min, &max),
              FMLP_ERROR_INVALID_ARGUMENT)
        << entry << ", " << kernel;
  EXPECT_EQ(fmlp_kernel_tokens(nullptr, 0, 0, &min, &max),
            FMLP_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fmlp_kernel_tokens(bundle.get(), 0, 0, nullptr, &max),
            FMLP_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fmlp_kernel_tokens(bundle.get(), 0, 0, &min, nullptr),
            FMLP_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(fmlp_last_error()).find("fmlp_kernel_tokens"),
            std::string::npos);
}

// T for which the saved buffers' bytes overflow int64 (12 bf16 per token:
// 24 bytes) is an error, never a wrapped or negative size.
TEST(RuntimeBundle, WorkspaceBytesOfAHugeOrNegativeT) {
  BundleDir dir(kManifest);
  fmlp::Bundle bundle(dir.path());
  int64_t bytes = 7;
  const int64_t largest = INT64_MAX / 24;
  EXPECT_EQ(fmlp_workspace_bytes(bundle.get(), 0, largest, &bytes), FMLP_OK);
  EXPECT_EQ(bytes, largest * 24);
  for (int64_t tokens : {largest + 1, int64_t(1) << 62, INT64_MAX}) {
    bytes = 7;
    EXPECT_EQ(fmlp_workspace_bytes(bundle.get(), 0, tokens, &bytes),
              FMLP_ERROR_SHAPE);
    EXPECT_EQ(bytes, 7) << "written on failure";
    EXPECT_NE(std::string(fmlp_last_error())
                  .find("fmlp_workspace_bytes(mlp.forward): at T = " +
                        std::to_string(tokens) +
                        " the saved and workspace buffers overflow a 64-bit "
                        "byte count (at argument saved, [T, 12] bf16)"),
              std::string::npos)
        << fmlp_last_error();
  }
  for (int64_t tokens : {int64_t(-1), INT64_MIN}) {
    EXPECT_EQ(fmlp_workspace_bytes(bundle.get(), 0, tokens, &bytes),
              FMLP_ERROR_SHAPE);
    EXPECT_NE(std::string(fmlp_last_error()).find("< 0"), std::string::npos)
        << fmlp_last_error();
  }
}

TEST(RuntimeBundle, NoDriverIsAClearError) {
  // A library that does not exist (ctest sets the same), so that the test
  // means the same on a machine with a driver; this is the process's first
  // driver load.
  setenv("FMLP_LIBCUDA", "libcuda-absent-for-fmlp-tests.so.1", /*overwrite=*/0);
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

// 2^61 x 8 bf16 elements: T x D x 2 bytes overflows int64.
TEST_F(LaunchValidation, TokensWhoseBytesOverflow) {
  expectRefused(
      [](auto &t) {
        t[0] = fmlp::denseTensor(t[0].data, FMLP_BF16,
                                 {int64_t(1) << 61, 8});
      },
      FMLP_ERROR_SHAPE,
      "argument 0 (x) of shape [2305843009213693952, 8] has more bytes than "
      "int64 counts");
  expectRefused(
      [](auto &t) {
        t[0] = fmlp::denseTensor(t[0].data, FMLP_BF16,
                                 {int64_t(1) << 40, int64_t(1) << 40, 8});
      },
      FMLP_ERROR_SHAPE, "has more bytes than int64 counts");
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

// Only an output may be null (not wanted), or a workspace where no kernel
// uses it (RuntimeLaunchTest's RuntimeWorkspaces): an input or the saved
// activations never.
TEST_F(LaunchValidation, NullPointer) {
  expectRefused([](auto &t) { t[1].data = nullptr; }, FMLP_ERROR_NULL_POINTER,
                "mlp.forward argument 1 (w) is a null pointer (only an output "
                "may be null, meaning not wanted, or a workspace at a T where "
                "no kernel uses it; this is input)");
  expectRefused([](auto &t) { t[3].data = nullptr; }, FMLP_ERROR_NULL_POINTER,
                "argument 3 (saved) is a null pointer (only an output may be "
                "null, meaning not wanted, or a workspace at a T where no "
                "kernel uses it; this is saved)");
}

// A null output is not wanted: its other fields are not read (here a
// wrong shape and dtype), and k0, which does not refer to y, still runs:
// the launch gets as far as the load check.
TEST_F(LaunchValidation, NullOutputIsNotWanted) {
  expectRefused(
      [](auto &t) {
        t[2] = fmlp::denseTensor(nullptr, FMLP_F32, {5, 9});
      },
      FMLP_ERROR_NOT_LOADED, "call fmlp_bundle_load first");
}

// k0 writes y beside saved: y may not be null; refused before the load
// check (no driver needed).
TEST_F(LaunchValidation, NullOutputBesideANeededOneIsRefused) {
  std::string manifest =
      replaced(kManifest, R"({"argument": 0, "offset": 0}, {"argument": 3)",
               R"({"argument": 2, "offset": 0}, {"argument": 3)");
  manifest = replaced(manifest, R"("dynamic_shared_bytes": 0,)",
                      R"("dynamic_shared_bytes": 0, "writes": [2, 3],)");
  BundleDir writes(manifest);
  fmlp::Bundle writer(writes.path());
  std::vector<fmlp_tensor> t = tensors;
  t[2].data = nullptr;
  EXPECT_EQ(fmlp_launch(writer.get(), 0, t.data(), 4, nullptr),
            FMLP_ERROR_NULL_POINTER);
  EXPECT_NE(std::string(fmlp_last_error())
                .find("mlp.forward argument 2 (y) is null (not wanted), but "
                      "kernel k0 writes it together with saved"),
            std::string::npos)
      << fmlp_last_error();
  // As fmlp_outputs_needed says: y is needed whatever is wanted.
  EXPECT_EQ(writer.outputsNeeded(0, {0, 0, 0, 0}),
            (std::vector<int32_t>{0, 0, 1, 0}));
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
  // A minor revision the table lacks runs the plain row below it.
  EXPECT_STREQ(fmlp_chip_for_capability(8, 7), "sm_86");
  EXPECT_STREQ(fmlp_chip_for_capability(12, 1), "sm_120");
  EXPECT_EQ(fmlp_chip_for_capability(7, 5), nullptr);
  EXPECT_EQ(fmlp_chip_for_capability(11, 0), nullptr);
  EXPECT_EQ(fmlp_chip_for_capability(-1, 0), nullptr);
}

} // namespace
