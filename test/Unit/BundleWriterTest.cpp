//===- BundleWriterTest.cpp - The bundle writer's ranges of T -------------===//
//
// writeBundle on a host function whose launches sit inside an scf.if on T
// (variants of a kernel for T <= 16 and T >= 17, as the conversion emits
// them) and after it: each launch's fmlp.min_tokens / fmlp.max_tokens
// reach its manifest entry, in program order, the manifest is format
// version 3 and the runtime reads the ranges back; malformed attributes
// are refused naming the launch and the attribute. A token-chunk loop's
// launches become per-chunk ones, each pointer with its token_stride, and
// what the manifest cannot describe is refused. ptxas is kept out of
// reach (the bundle carries the fake PTX only).
//
//===----------------------------------------------------------------------===//

#include "lib/Pipeline/Bundle.h"

#include "fmlp/InitAll.h"
#include "fmlp/Runtime.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace mlir;

namespace {

/// A host function as the conversion writes one with variants by T; SMALL
/// and LARGE are replaced by the attributes of the two variants.
constexpr const char *kModule = R"mlir(
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90a">, "// ptx\0A">]
  func.func @v(%x: memref<?x8xbf16> {fmlp.name = "x"},
               %y: memref<?x8xbf16> {fmlp.name = "y"})
      attributes {fmlp.entry = "forward_nograd"} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %rows = memref.dim %x, %c0 : memref<?x8xbf16>
    %t = arith.index_cast %rows : index to i64
    %small = arith.cmpi ule, %rows, %c16 : index
    scf.if %small {
      gpu.launch_func @kernels::@k_small blocks in (%c1, %c1, %c1)
          threads in (%c32, %c1, %c1) args(%x : memref<?x8xbf16>, %t : i64)
          SMALL
    } else {
      gpu.launch_func @kernels::@k_large blocks in (%c1, %c1, %c1)
          threads in (%c32, %c1, %c1) args(%x : memref<?x8xbf16>, %t : i64)
          LARGE
    }
    gpu.launch_func @kernels::@k_after blocks in (%c1, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%y : memref<?x8xbf16>, %t : i64)
    return
  }
}
)mlir";

std::string withRanges(const std::string &small, const std::string &large) {
  std::string text = kModule;
  text.replace(text.find("SMALL"), 5, small);
  text.replace(text.find("LARGE"), 5, large);
  return text;
}

class BundleWriter : public ::testing::Test {
protected:
  void SetUp() override {
    DialectRegistry registry;
    registerAllDialects(registry);
    mlir::fmlp::registerAllDialects(registry);
    context = std::make_unique<MLIRContext>(registry);
    llvm::SmallString<128> prefix;
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, prefix);
    llvm::sys::path::append(prefix, "fmlp-writer");
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory(prefix, root));
    // No ptxas: neither under cudaPath nor on PATH (restored in TearDown).
    if (const char *path = std::getenv("PATH"))
      savedPath = path;
    setenv("PATH", "/nonexistent-for-fmlp-tests", 1);
    options.cudaPath = "/nonexistent-for-fmlp-tests";
  }
  void TearDown() override {
    setenv("PATH", savedPath.c_str(), 1);
    (void)llvm::sys::fs::remove_directories(root);
  }

  /// Writes the bundle of `source` to <root>/x.bundle.
  LogicalResult write(const std::string &source, std::string &error) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, context.get());
    EXPECT_TRUE(module) << source;
    if (!module)
      return failure();
    std::string log;
    llvm::raw_string_ostream os(log);
    return mlir::fmlp::writeBundle(*module, bundle(), options, os, error);
  }
  std::string bundle() const { return (root + "/x.bundle").str(); }

  std::unique_ptr<MLIRContext> context;
  llvm::SmallString<128> root;
  std::string savedPath;
  mlir::fmlp::BundleOptions options;
};

TEST_F(BundleWriter, LaunchesUnderAnIfOnTCarryTheirRanges) {
  std::string error;
  ASSERT_TRUE(succeeded(write(withRanges("{fmlp.max_tokens = 16 : i64}",
                                         "{fmlp.min_tokens = 17 : i64}"),
                              error)))
      << error;
  auto text = llvm::MemoryBuffer::getFile(bundle() + "/manifest.json");
  ASSERT_TRUE(bool(text));
  llvm::Expected<llvm::json::Value> manifest =
      llvm::json::parse((*text)->getBuffer());
  ASSERT_TRUE(bool(manifest)) << llvm::toString(manifest.takeError());
  const llvm::json::Object &root = *manifest->getAsObject();
  EXPECT_EQ(root.getInteger("version"), 3);
  const llvm::json::Array &launches =
      *(*root.getArray("entry_points"))[0].getAsObject()->getArray("launches");
  ASSERT_EQ(launches.size(), 3u);
  // Program order; each field only where the op has the attribute.
  const char *kernels[] = {"k_small", "k_large", "k_after"};
  std::optional<int64_t> mins[] = {std::nullopt, 17, std::nullopt};
  std::optional<int64_t> maxes[] = {16, std::nullopt, std::nullopt};
  for (size_t l = 0; l < 3; ++l) {
    const llvm::json::Object &launch = *launches[l].getAsObject();
    EXPECT_EQ(launch.getString("kernel"), kernels[l]);
    EXPECT_EQ(launch.getInteger("min_tokens"), mins[l]) << kernels[l];
    EXPECT_EQ(launch.getInteger("max_tokens"), maxes[l]) << kernels[l];
  }
  // The runtime reads them back.
  fmlp_bundle *opened = nullptr;
  ASSERT_EQ(fmlp_bundle_open(bundle().c_str(), &opened), FMLP_OK)
      << fmlp_last_error();
  const int64_t expected[3][2] = {{1, 16}, {17, INT64_MAX}, {1, INT64_MAX}};
  for (int k = 0; k < 3; ++k) {
    int64_t min = 0, max = 0;
    EXPECT_EQ(fmlp_kernel_tokens(opened, 0, k, &min, &max), FMLP_OK);
    EXPECT_EQ(min, expected[k][0]) << k;
    EXPECT_EQ(max, expected[k][1]) << k;
  }
  fmlp_bundle_close(opened);
}

TEST_F(BundleWriter, MalformedRangesAreRefused) {
  struct Case {
    const char *small, *expected;
  };
  const Case cases[] = {
      {"{fmlp.min_tokens = 0 : i64}",
       "the launch of k_small in v has fmlp.min_tokens = 0 : i64: not an "
       "integer of at least 1"},
      {"{fmlp.min_tokens = \"1\"}",
       "the launch of k_small in v has fmlp.min_tokens = \"1\": not an "
       "integer of at least 1"},
      {"{fmlp.min_tokens = 17 : i64, fmlp.max_tokens = 16 : i64}",
       "the launch of k_small in v has fmlp.max_tokens = 16 : i64: not an "
       "integer of at least 17"},
      {"{fmlp.max_tokens = 1.5 : f64}",
       "fmlp.max_tokens = 1.500000e+00 : f64: not an integer"},
  };
  for (const Case &c : cases) {
    std::string error;
    EXPECT_TRUE(failed(write(withRanges(c.small, ""), error))) << c.small;
    EXPECT_NE(error.find(c.expected), std::string::npos)
        << c.small << ": " << error;
    EXPECT_FALSE(llvm::sys::fs::exists(bundle())) << c.small;
  }
}

/// A host function as the conversion writes a token-chunked one: a launch
/// before the chunk loop (the fill of a weight gradient), one in it on the
/// chunk's rows of x and on columns [16, 32) of the one-chunk workspace
/// (through a subview of a subview and a cast to a dynamic offset, as
/// canonicalization leaves them). EXTRA is replaced by more operations.
constexpr const char *kChunked = R"mlir(
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90a">, "// ptx\0A">]
  func.func @c(%x: memref<?x8xbf16> {fmlp.name = "x"},
               %dw: memref<16x8xbf16> {fmlp.name = "d_w"},
               %ws: memref<4x32xbf16> {fmlp.name = "workspace"})
      attributes {fmlp.entry = "backward"} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %rows = memref.dim %x, %c0 : memref<?x8xbf16>
    %cols = memref.subview %ws[0, 16] [4, 16] [1, 1] : memref<4x32xbf16> to memref<4x16xbf16, strided<[32, 1], offset: 16>>
    gpu.launch_func @kernels::@k_fill blocks in (%c1, %c1, %c1)
        threads in (%c32, %c1, %c1) args(%dw : memref<16x8xbf16>, %rows : index)
    scf.for %i = %c0 to %rows step %c4 {
      %left = arith.subi %rows, %i : index
      %n = arith.minui %left, %c4 : index
      %xc = memref.subview %x[%i, 0] [%n, 8] [1, 1] : memref<?x8xbf16> to memref<?x8xbf16, strided<[8, 1], offset: ?>>
      %wc = memref.subview %cols[0, 0] [%n, 16] [1, 1] : memref<4x16xbf16, strided<[32, 1], offset: 16>> to memref<?x16xbf16, strided<[32, 1], offset: 16>>
      %cast = memref.cast %wc : memref<?x16xbf16, strided<[32, 1], offset: 16>> to memref<?x16xbf16, strided<[32, 1], offset: ?>>
      %tc = memref.dim %xc, %c0 : memref<?x8xbf16, strided<[8, 1], offset: ?>>
      gpu.launch_func @kernels::@k_chunk blocks in (%c1, %c1, %c1)
          threads in (%c32, %c1, %c1)
          args(%xc : memref<?x8xbf16, strided<[8, 1], offset: ?>>,
               %cast : memref<?x16xbf16, strided<[32, 1], offset: ?>>,
               %dw : memref<16x8xbf16>, %tc : index)
    }
    EXTRA
    return
  }
}
)mlir";

std::string chunked(const std::string &from, const std::string &to,
                    const std::string &extra = "") {
  std::string text = kChunked;
  if (!from.empty()) {
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  }
  text.replace(text.find("EXTRA"), 5, extra);
  return text;
}

// The chunk loop's step is the entry point's chunk_tokens, its launches are
// per_chunk, and each of their pointers says how far it moves per token of
// the chunk's start: x one row (8 elements), the workspace columns (from
// element 16) and the weight gradient not at all. The launch before the
// loop is neither. The runtime opens the bundle.
TEST_F(BundleWriter, AChunkLoopBecomesPerChunkLaunches) {
  std::string error;
  ASSERT_TRUE(succeeded(write(chunked("", ""), error))) << error;
  auto text = llvm::MemoryBuffer::getFile(bundle() + "/manifest.json");
  ASSERT_TRUE(bool(text));
  llvm::Expected<llvm::json::Value> manifest =
      llvm::json::parse((*text)->getBuffer());
  ASSERT_TRUE(bool(manifest)) << llvm::toString(manifest.takeError());
  const llvm::json::Object &entry =
      *(*manifest->getAsObject()->getArray("entry_points"))[0].getAsObject();
  EXPECT_EQ(entry.getInteger("chunk_tokens"), 4);
  const llvm::json::Array &launches = *entry.getArray("launches");
  ASSERT_EQ(launches.size(), 2u);
  const llvm::json::Object &fill = *launches[0].getAsObject();
  EXPECT_EQ(fill.getString("kernel"), "k_fill");
  EXPECT_FALSE(fill.get("per_chunk"));
  EXPECT_FALSE(
      (*fill.getArray("params"))[0].getAsObject()->get("token_stride"));
  const llvm::json::Object &chunk = *launches[1].getAsObject();
  EXPECT_EQ(chunk.getString("kernel"), "k_chunk");
  EXPECT_EQ(chunk.getBoolean("per_chunk"), true);
  const llvm::json::Array &params = *chunk.getArray("params");
  ASSERT_EQ(params.size(), 4u);
  // (argument, offset, token_stride) of each pointer.
  const int64_t pointers[3][3] = {{0, 0, 8}, {2, 16, 0}, {1, 0, 0}};
  for (int p = 0; p < 3; ++p) {
    const llvm::json::Object &param = *params[p].getAsObject();
    EXPECT_EQ(param.getInteger("argument"), pointers[p][0]) << p;
    EXPECT_EQ(param.getInteger("offset"), pointers[p][1]) << p;
    EXPECT_EQ(param.getInteger("token_stride"), pointers[p][2]) << p;
  }
  EXPECT_EQ(params[3].getAsObject()->getBoolean("tokens"), true);
  fmlp_bundle *opened = nullptr;
  ASSERT_EQ(fmlp_bundle_open(bundle().c_str(), &opened), FMLP_OK)
      << fmlp_last_error();
  EXPECT_EQ(fmlp_entry_chunk_tokens(opened, 0), 4);
  EXPECT_EQ(fmlp_kernel_per_chunk(opened, 0, 0), 0);
  EXPECT_EQ(fmlp_kernel_per_chunk(opened, 0, 1), 1);
  fmlp_bundle_close(opened);
}

// What the manifest cannot say is refused, naming the entry point: a loop
// not from 0, a view whose start is not a constant plus a multiple of the
// chunk's first token, launches in two loops.
TEST_F(BundleWriter, WhatIsNotAChunkLoopIsRefused) {
  struct Case {
    std::string source;
    const char *expected;
  };
  const char *second = R"mlir(
    scf.for %j = %c0 to %rows step %c4 {
      gpu.launch_func @kernels::@k_again blocks in (%c1, %c1, %c1)
          threads in (%c32, %c1, %c1) args(%dw : memref<16x8xbf16>, %rows : index)
    })mlir";
  const Case cases[] = {
      {chunked("scf.for %i = %c0 to", "scf.for %i = %c1 to"),
       "c has launches in a loop that is not a token-chunk loop (from 0 by "
       "a positive constant)"},
      {chunked("%x[%i, 0]", "%x[%left, 0]"),
       "a kernel operand of c has an offset that is neither a constant nor "
       "the first token of a chunk"},
      {chunked("", "", second),
       "c has launches in two loops: the bundle runs one token-chunk loop "
       "per entry point"},
  };
  for (const Case &c : cases) {
    std::string error;
    EXPECT_TRUE(failed(write(c.source, error))) << c.expected;
    EXPECT_NE(error.find(c.expected), std::string::npos)
        << c.expected << ": " << error;
    EXPECT_FALSE(llvm::sys::fs::exists(bundle())) << c.expected;
  }
}

} // namespace
