//===- DialectTest.cpp - Unit tests of the fmlp dialect's helpers ---------===//
//
// The attribute helpers every pass relies on (weight extents per layout,
// precision classes), the enum attributes' textual forms, and the block
// shape that a verified operation reports.
//
//===----------------------------------------------------------------------===//

#include "dialects/FMLP/FMLPDialect.h"
#include "dialects/FMLP/FMLPOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fmlp;

namespace {

class FMLPDialectTest : public ::testing::Test {
protected:
  FMLPDialectTest() { context.loadDialect<FMLPDialect, func::FuncDialect>(); }

  /// Parses `source`; collects diagnostics in `diagnostics`.
  OwningOpRef<ModuleOp> parse(StringRef source) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
      diagnostics.push_back(diagnostic.str());
      return success();
    });
    return parseSourceString<ModuleOp>(source, &context);
  }

  template <typename OpT> OpT firstOp(ModuleOp module) {
    OpT found;
    module.walk([&](OpT op) {
      if (!found)
        found = op;
    });
    return found;
  }

  MLIRContext context;
  std::vector<std::string> diagnostics;
};

TEST(WeightLayout, ExtentsFollowTheLayout) {
  // Llama-7B's gate_proj.weight is nn.Linear [out, in] = [11008, 4096].
  EXPECT_EQ(getProjectionExtents(WeightLayout::out_in, {11008, 4096}),
            (ProjectionExtents{4096, 11008}));
  EXPECT_EQ(getProjectionExtents(WeightLayout::in_out, {11008, 4096}),
            (ProjectionExtents{11008, 4096}));
}

TEST(WeightLayout, ShapeIsTheInverseOfExtents) {
  for (WeightLayout layout : {WeightLayout::in_out, WeightLayout::out_in}) {
    ProjectionExtents extents{96, 200};
    SmallVector<int64_t, 2> shape = getWeightShape(layout, extents);
    EXPECT_EQ(getProjectionExtents(layout, shape), extents)
        << stringifyWeightLayout(layout).str();
  }
  EXPECT_EQ(getWeightShape(WeightLayout::out_in, {96, 200}),
            (SmallVector<int64_t, 2>{200, 96}));
}

TEST(Precision, Float32FormatsAreTheTf32AndIeeeOnes) {
  EXPECT_FALSE(isFloat32Precision(Precision::bf16));
  EXPECT_FALSE(isFloat32Precision(Precision::f16));
  EXPECT_TRUE(isFloat32Precision(Precision::tf32));
  EXPECT_TRUE(isFloat32Precision(Precision::tf32x3));
  EXPECT_TRUE(isFloat32Precision(Precision::ieee));
  EXPECT_TRUE(isFloat32Precision(Precision::highest));
  // highest multiplies as tf32x3 on tensor cores, as ieee without them.
  EXPECT_EQ(getProductFormat(Precision::highest, true), Precision::tf32x3);
  EXPECT_EQ(getProductFormat(Precision::highest, false), Precision::ieee);
  EXPECT_EQ(getProductFormat(Precision::tf32, true), Precision::tf32);
  EXPECT_FALSE(isTf32Precision(Precision::highest));
}

TEST(BlockShape, CountsWorkAndWeights) {
  // Llama-7B: D = 4096, H = 11008.
  BlockShape llama{4096, 11008};
  EXPECT_EQ(llama.getWeightCount(), 135266304);
  EXPECT_EQ(llama.getForwardFlopsPerToken(), 270532608);
  EXPECT_EQ(llama.getTrainingFlopsPerToken(), 3 * 270532608);
}

TEST(Enums, KeywordsRoundTrip) {
  for (StringRef keyword : {"silu", "gelu_tanh", "relu"})
    EXPECT_EQ(stringifyActivation(*symbolizeActivation(keyword)), keyword);
  for (StringRef keyword : {"bf16", "f16", "tf32", "tf32x3", "ieee"})
    EXPECT_EQ(stringifyPrecision(*symbolizePrecision(keyword)), keyword);
  EXPECT_FALSE(symbolizeActivation("gelu").has_value());
  EXPECT_FALSE(symbolizePrecision("3xtf32").has_value());
}

TEST_F(FMLPDialectTest, AttributesParseAndPrint) {
  Attribute layout = parseAttribute("#fmlp.layout<in_out>", &context);
  ASSERT_TRUE(layout);
  auto layoutAttr = dyn_cast<WeightLayoutAttr>(layout);
  ASSERT_TRUE(layoutAttr);
  EXPECT_EQ(layoutAttr.getValue(), WeightLayout::in_out);

  std::string printed;
  llvm::raw_string_ostream os(printed);
  Attribute(PrecisionAttr::get(&context, Precision::tf32x3)).print(os);
  EXPECT_EQ(printed, "#fmlp.precision<tf32x3>");
}

TEST_F(FMLPDialectTest, BlockShapeReadsDAndH) {
  // Gate in [in, out], up and down in nn.Linear's [out, in].
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<2x?x96xf32>, %wg: tensor<96x200xf32>,
                 %wu: tensor<200x96xf32>, %wd: tensor<96x200xf32>,
                 %dy: tensor<2x?x96xf32>) {
      %y = fmlp.gated_mlp relu %x, gate %wg, up %wu, down %wd
          {gate_layout = #fmlp.layout<in_out>}
          : (tensor<2x?x96xf32>, tensor<96x200xf32>, tensor<200x96xf32>,
             tensor<96x200xf32>) -> tensor<2x?x96xf32>
      %dx, %dwg, %dwu, %dwd = fmlp.gated_mlp_grad relu %x, gate %wg,
          up %wu, down %wd, dy %dy {gate_layout = #fmlp.layout<in_out>}
          : (tensor<2x?x96xf32>, tensor<96x200xf32>, tensor<200x96xf32>,
             tensor<96x200xf32>, tensor<2x?x96xf32>)
          -> (tensor<2x?x96xf32>, tensor<96x200xf32>, tensor<200x96xf32>,
              tensor<96x200xf32>)
      return
    })mlir");
  ASSERT_TRUE(module) << (diagnostics.empty() ? "" : diagnostics.front());

  auto forward = firstOp<GatedMlpOp>(*module);
  ASSERT_TRUE(forward);
  EXPECT_EQ(forward.getBlockShape().modelWidth, 96);
  EXPECT_EQ(forward.getBlockShape().hiddenWidth, 200);
  EXPECT_EQ(forward.getUpLayout(), WeightLayout::out_in);

  auto backward = firstOp<GatedMlpGradOp>(*module);
  ASSERT_TRUE(backward);
  EXPECT_EQ(backward.getBlockShape().hiddenWidth, 200);
  EXPECT_TRUE(backward.getOptionalGrads().empty());
}

TEST_F(FMLPDialectTest, VerifierRejectsAWrongWeight) {
  // The up weight maps 96 -> 100, the gate weight 96 -> 200.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>,
                 %wu: tensor<100x96xf32>, %wd: tensor<96x200xf32>) {
      %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
          : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<100x96xf32>,
             tensor<96x200xf32>) -> tensor<?x96xf32>
      return
    })mlir");
  EXPECT_FALSE(module);
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics.front(),
            "'fmlp.gated_mlp' op up weight of shape [100, 96] in layout "
            "out_in maps 96 -> 100 features, expected 96 -> 200");
}

} // namespace
