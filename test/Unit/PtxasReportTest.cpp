//===- PtxasReportTest.cpp - What fmlp-compile reads from ptxas -v --------===//
//
// The ptxas check of fmlp-compile (--check-resources) reads each kernel's
// registers, stack, spills, shared memory and WGMMA notes from
// `ptxas -v`'s report. The lines below are ptxas 13.0's own.
//
//===----------------------------------------------------------------------===//

#include "lib/Pipeline/Bundle.h"

#include <gtest/gtest.h>

using namespace mlir::fmlp;

namespace {

constexpr const char *kReport = R"(ptxas info    : 0 bytes gmem
ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized due to non wgmma instructions defining accumulator registers of a wgmma between start and end of the pipeline stage in the function 'mlp_backward_k0_down_weight_grad'
ptxas info    : Compiling entry function 'mlp_backward_k0_down_weight_grad' for 'sm_90a'
ptxas info    : Function properties for mlp_backward_k0_down_weight_grad
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 168 registers, used 16 barriers
ptxas info    : (C7519) warpgroup.arrive is injected in around line 11446 by compiler to allow use of registers in GMMA in function 'mlp_forward_k0_gate_up'
ptxas info    : Compiling entry function 'mlp_forward_k0_gate_up' for 'sm_90a'
ptxas info    : Function properties for mlp_forward_k0_gate_up
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 168 registers, used 16 barriers
ptxas info    : Compiling entry function 'mlp_forward_k1_down' for 'sm_80'
ptxas info    : Function properties for mlp_forward_k1_down
    8 bytes stack frame, 12 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 128 registers, used 1 barriers, 12288 bytes smem
)";

TEST(PtxasReport, ReadsEveryKernelsResources) {
  std::vector<KernelResources> kernels = parsePtxasReport(kReport);
  ASSERT_EQ(kernels.size(), 3u);
  const KernelResources &k6 = kernels[0], &k1 = kernels[1], &k2 = kernels[2];
  EXPECT_EQ(k6.name, "mlp_backward_k0_down_weight_grad");
  EXPECT_EQ(k6.registers, 168);
  EXPECT_EQ(k6.stackBytes + k6.spillStoreBytes + k6.spillLoadBytes, 0);
  EXPECT_EQ(k6.wgmmaNote,
            "C7515: Potential Performance Loss: wgmma.mma_async instructions "
            "are serialized due to non wgmma instructions defining "
            "accumulator registers of a wgmma between start and end of the "
            "pipeline stage");
  EXPECT_EQ(k2.name, "mlp_forward_k1_down");
  EXPECT_EQ(k2.registers, 128);
  EXPECT_EQ(k2.stackBytes, 8);
  EXPECT_EQ(k2.spillStoreBytes, 12);
  EXPECT_EQ(k2.spillLoadBytes, 4);
  EXPECT_EQ(k2.sharedBytes, 12288);
  EXPECT_EQ(k1.wgmmaNote, "C7519: warpgroup.arrive is injected in around "
                          "line 11446 by compiler to allow use of registers "
                          "in GMMA");
  EXPECT_EQ(k2.wgmmaNote, "");
}

} // namespace
