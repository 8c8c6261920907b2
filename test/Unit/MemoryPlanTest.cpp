//===- MemoryPlanTest.cpp - The memory report against its formulas --------===//
//
// Plans the bundled Llama-7B block (D = 4096, H = 11008, bf16) under each
// save policy, with and without chunking, and checks the memory report at
// T = 65536 against the formulas of the plan (elt = 2 bytes):
//   saved:     agu 3 T H elt, gu 2 T H elt, x none
//   workspace: A (T H elt, or chunk H elt) where A is not saved; save=x's
//              backward recomputes A, G, U (3 T H elt, or 3 chunk H elt)
//
//===----------------------------------------------------------------------===//

#include "fmlp/InitAll.h"
#include "fmlp/Pipeline.h"
#include "lib/Pipeline/PlanSummary.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

constexpr int64_t kTokens = 65536, kHidden = 11008, kElement = 2;
constexpr int64_t kTH = kTokens * kHidden * kElement;

std::vector<EntryPoint> planLlamaEntries(StringRef mode, StringRef save,
                                         int64_t chunkTokens) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  std::string path =
      std::string(FMLP_SOURCE_DIR) + "/examples/llama-7b-mlp.linalg.bf16.mlir";
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(path, &context);
  EXPECT_TRUE(module) << path;
  if (!module)
    return {};
  PipelineOptions options;
  options.mode = mode.str();
  options.save = save.str();
  options.chunkTokens = chunkTokens;
  PassManager pm(&context);
  buildPlanPipeline(pm, options);
  EXPECT_TRUE(succeeded(pm.run(*module)));
  return readEntryPoints(*module);
}

MemoryReport planLlama(StringRef mode, StringRef save, int64_t chunkTokens,
                       int64_t tokens = kTokens) {
  std::string error;
  std::optional<MemoryReport> report = computeMemoryReport(
      planLlamaEntries(mode, save, chunkTokens), tokens, error);
  EXPECT_TRUE(report) << error;
  return report.value_or(MemoryReport{});
}

TEST(MemoryPlan, SaveAguKeepsThreeTHAndNeedsNoWorkspace) {
  MemoryReport report = planLlama("train", "agu", 0);
  EXPECT_EQ(report.savedBytes, 3 * kTH);
  EXPECT_EQ(report.forwardWorkspaceBytes, 0);
  EXPECT_EQ(report.backwardWorkspaceBytes, 0);
  EXPECT_EQ(report.nogradWorkspaceBytes, kTH);
  EXPECT_EQ(report.trainingPeakBytes, 3 * kTH);
}

TEST(MemoryPlan, SaveGuKeepsTwoTH) {
  MemoryReport report = planLlama("train", "gu", 0);
  EXPECT_EQ(report.savedBytes, 2 * kTH);
  EXPECT_EQ(report.forwardWorkspaceBytes, kTH); // A, for K2 only
  // K3 recomputes A for K6 into the backward's workspace, before writing
  // dG, dU over G, U.
  EXPECT_EQ(report.backwardWorkspaceBytes, kTH);
}

TEST(MemoryPlan, SaveXKeepsNothing) {
  MemoryReport report = planLlama("train", "x", 0);
  EXPECT_EQ(report.savedBytes, 0);
  EXPECT_EQ(report.forwardWorkspaceBytes, kTH);
  EXPECT_EQ(report.backwardWorkspaceBytes, 3 * kTH);
}

TEST(MemoryPlan, ChunkingBoundsTheWorkspace) {
  constexpr int64_t chunk = 4096;
  MemoryReport x = planLlama("train", "x", chunk);
  EXPECT_EQ(x.savedBytes, 0);
  EXPECT_EQ(x.forwardWorkspaceBytes, chunk * kHidden * kElement);
  EXPECT_EQ(x.backwardWorkspaceBytes, 3 * chunk * kHidden * kElement);
  EXPECT_EQ(x.trainingPeakBytes, 3 * chunk * kHidden * kElement);
  MemoryReport gu = planLlama("train", "gu", chunk);
  EXPECT_EQ(gu.savedBytes, 2 * kTH);
  EXPECT_EQ(gu.trainingPeakBytes, 2 * kTH + chunk * kHidden * kElement);
}

TEST(MemoryPlan, InferenceKeepsOnlyA) {
  MemoryReport whole = planLlama("infer", "agu", 0);
  EXPECT_EQ(whole.savedBytes, 0);
  EXPECT_EQ(whole.inferencePeakBytes, kTH);
  MemoryReport chunked = planLlama("infer", "agu", 4096);
  EXPECT_EQ(chunked.inferencePeakBytes, 4096 * kHidden * kElement);
}

// A chunk longer than T still has chunk rows: the report says what the plan
// declares (and the runtime allocates), 512 x H x 2 B at T = 37.
TEST(MemoryPlan, ChunkLongerThanTSizesTheWorkspaceByTheChunk) {
  MemoryReport report = planLlama("train", "x", 512, /*tokens=*/37);
  EXPECT_EQ(report.forwardWorkspaceBytes, 512 * kHidden * kElement);
  EXPECT_EQ(report.nogradWorkspaceBytes, 11272192);
}

// Sizes over 2^63 bytes are an error naming the buffer, never a wrapped or
// negative count.
TEST(MemoryPlan, OverflowingSizesAreRefused) {
  std::string error;
  EXPECT_FALSE(computeMemoryReport(planLlamaEntries("train", "agu", 0),
                                   int64_t(1) << 62, error));
  EXPECT_NE(error.find("saved buffer for T = 4611686018427387904 is over 2^63 "
                       "bytes"),
            std::string::npos)
      << error;
  // A T whose buffers fit is reported.
  EXPECT_TRUE(computeMemoryReport(planLlamaEntries("train", "agu", 0),
                                  int64_t(1) << 40, error))
      << error;
}

} // namespace
