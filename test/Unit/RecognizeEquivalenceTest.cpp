//===- RecognizeEquivalenceTest.cpp - Recognized blocks compute the same --===//
//
// Each case of Inputs/recognize-equivalence.mlir (a gated MLP block as a
// frontend writes it, in linalg or TOSA) runs twice on the same random
// inputs: as written, through upstream MLIR's lowering (TOSA to linalg,
// one-shot bufferization, loops, LLVM), and as the fmlp.gated_mlp that
// fmlp-recognize made of it, through fmlp's plan. Both results must lie
// within the f32 error bound of the float64 reference; a negative control
// judges the original by another activation's reference and must fail.
//
//===----------------------------------------------------------------------===//

#include "fmlp/InitAll.h"
#include "fmlp/Pipeline.h"
#include "lib/Execution/BlockRunner.h"
#include "lib/Execution/NumericalCheck.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <iostream>
#include <optional>

using namespace mlir;
using namespace mlir::fmlp;
using namespace ::fmlp::numerics;

namespace {

std::vector<std::string> readCases() {
  std::string path = std::string(FMLP_SOURCE_DIR) +
                     "/test/Unit/Inputs/recognize-equivalence.mlir";
  auto buffer = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(static_cast<bool>(buffer)) << path;
  std::vector<std::string> cases;
  if (!buffer)
    return cases;
  SmallVector<StringRef> parts;
  (*buffer)->getBuffer().split(parts, "// -----");
  for (StringRef part : parts)
    cases.push_back(part.str());
  return cases;
}

/// Compiles `source` as written (no fmlp pass) for the CPU. A function of
/// three arguments (x, a fused gate_up weight as Phi3 stores it, down)
/// gives the shape of its gate_up weight in `gateUpShape`.
std::unique_ptr<CpuModule> compileAsWritten(MLIRContext &context,
                                            const std::string &source,
                                            std::string &symbol,
                                            std::vector<int64_t> &gateUpShape,
                                            std::string &error) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    return nullptr;
  auto func = *module->getOps<func::FuncOp>().begin();
  symbol = func.getSymName().str();
  if (func.getNumArguments() == 3)
    gateUpShape = cast<ShapedType>(func.getArgumentTypes()[1]).getShape().vec();
  PassManager pm(&context);
  tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions{},
                              TosaToLinalgNamedOptions{});
  pm.addPass(createTosaToTensorPass());
  pm.addPass(createTosaToArithPass());
  pm.addPass(createConvertElementwiseToLinalgPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  if (failed(pm.run(*module))) {
    error = "upstream lowering failed";
    return nullptr;
  }
  func = *module->getOps<func::FuncOp>().begin();
  func->setAttr("llvm.emit_c_interface", UnitAttr::get(&context));
  PassManager lower(&context);
  buildCpuPipeline(lower);
  if (failed(lower.run(*module))) {
    error = "lowering to LLVM failed";
    return nullptr;
  }
  return CpuModule::compile(*module, error);
}

/// The fused gate_up weight whose output features [0, H) are `gate` and
/// [H, 2H) are `up` ([H, K] each, out_in, stacked as rows; or [K, H] each,
/// in_out, side by side), of shape `shape`.
HostTensor fuseGateUp(const HostTensor &gate, const HostTensor &up,
                      const std::vector<int64_t> &shape, HostElement element) {
  HostTensor fused(element, shape);
  int64_t rows = gate.rows(), cols = gate.cols();
  bool stackedRows = shape == std::vector<int64_t>{2 * rows, cols};
  bool sideBySide = shape == std::vector<int64_t>{rows, 2 * cols};
  EXPECT_TRUE(stackedRows || sideBySide);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t g = i * cols + j;
      if (stackedRows) {
        fused.set(g, gate.get(g));
        fused.set(rows * cols + g, up.get(g));
      } else {
        fused.set(i * 2 * cols + j, gate.get(g));
        fused.set(i * 2 * cols + cols + j, up.get(g));
      }
    }
  return fused;
}

/// The number of cases in Inputs/recognize-equivalence.mlir; the test
/// fails, rather than skip one, when the file holds another number.
constexpr size_t kCases = 8;

class RecognizeEquivalence : public ::testing::TestWithParam<size_t> {};

TEST_P(RecognizeEquivalence, OriginalAndRecognizedAgree) {
  std::vector<std::string> cases = readCases();
  ASSERT_EQ(cases.size(), kCases)
      << "Inputs/recognize-equivalence.mlir holds " << cases.size()
      << " cases; kCases says " << kCases;
  std::string source = cases[GetParam()];
  PipelineOptions options;
  options.mode = "infer";
  std::string error;
  std::unique_ptr<BlockRunner> runner =
      BlockRunner::compile(source, options, error);
  ASSERT_TRUE(runner) << error;
  const EntryPoint *entry = runner->findEntry(EntryKind::forward_nograd);
  ASSERT_TRUE(entry);
  // x is the first argument; T is its static extent, else 29.
  int64_t tokens = 1;
  for (size_t i = 0; i + 1 < entry->arguments[0].shape.size(); ++i)
    tokens *=
        entry->arguments[0].shape[i] < 0 ? 29 : entry->arguments[0].shape[i];

  const BlockDescription &block = runner->getBlock();
  BlockSpec spec = getBlockSpec(block, tokens);
  Inputs inputs = drawInputs(spec, 7 + GetParam());
  Exact exact = computeExact(spec, inputs);
  Bounds bounds = computeBounds(spec, inputs, exact);
  PackedInputs packed = packInputs(block, inputs);

  // fmlp's plan.
  HostTensor fused(block.element, tokens, spec.model);
  fused.poison();
  std::map<std::string, HostTensor *> tensors = {{"x", &packed.x},
                                                 {"gate", &packed.gate},
                                                 {"up", &packed.up},
                                                 {"down", &packed.down},
                                                 {"y", &fused}};
  ASSERT_TRUE(runner->run(EntryKind::forward_nograd, tokens, tensors, error)) << error;
  Comparison fusedCheck = compare(fused.toDoubles(), exact.y, bounds.y);

  // The IR as written, on the same inputs (x in the shape the fmlp entry
  // gave it, which is the function's).
  DialectRegistry registry;
  registerAllDialects(registry);
  registry.insert<bufferization::BufferizationDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string symbol;
  std::vector<int64_t> gateUpShape;
  std::unique_ptr<CpuModule> original =
      compileAsWritten(context, source, symbol, gateUpShape, error);
  ASSERT_TRUE(original) << error;
  HostTensor written(block.element, packed.x.shape());
  written.reshape({tokens, spec.model});
  written.poison();
  written.reshape(packed.x.shape());
  std::vector<HostTensor *> arguments = {&packed.x, &packed.gate, &packed.up,
                                         &packed.down, &written};
  // Phi3: the original reads the gate and up weights (which fmlp's plan
  // takes as two buffers) as the halves of one stored weight.
  std::optional<HostTensor> gateUp;
  if (!gateUpShape.empty()) {
    gateUp = fuseGateUp(packed.gate, packed.up, gateUpShape, block.element);
    arguments = {&packed.x, &*gateUp, &packed.down, &written};
  }
  ASSERT_TRUE(original->call(symbol, arguments, error)) << error;
  Comparison writtenCheck = compare(written.toDoubles(), exact.y, bounds.y);

  std::cout << symbol << ": worst error/bound, as written "
            << writtenCheck.worstRatio << ", recognized "
            << fusedCheck.worstRatio << "\n";
  EXPECT_TRUE(writtenCheck.passed())
      << "as written: " << writtenCheck.worstRatio;
  EXPECT_TRUE(fusedCheck.passed()) << "recognized: " << fusedCheck.worstRatio;

  // Negative control: the same output judged as another activation's.
  BlockSpec other = spec;
  other.activation = spec.activation == ActivationKind::Relu
                         ? ActivationKind::Silu
                         : ActivationKind::Relu;
  Exact otherExact = computeExact(other, inputs);
  EXPECT_FALSE(compare(written.toDoubles(), otherExact.y, bounds.y).passed());
}

INSTANTIATE_TEST_SUITE_P(Inputs, RecognizeEquivalence,
                         ::testing::Range<size_t>(0, kCases));

} // namespace
