// A host compiler's use of an installed fmlp: register fmlp's dialects and
// passes, parse a linalg SwiGLU block, run fmlp's plan pipeline through the
// public builder, and check that the block became the kernel plan.
#include "fmlp/InitAll.h"
#include "fmlp/Pipeline.h"
#include "fmlp/Version.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <initializer_list>
#include <string>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: compile-with-fmlp block.mlir\n");
    return 2;
  }
  mlir::DialectRegistry registry;
  mlir::fmlp::registerAllDialects(registry);
  mlir::fmlp::registerAllPasses();
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  mlir::PassManager pm(&context);
  mlir::fmlp::PipelineOptions options;
  options.save = "gu";
  mlir::fmlp::buildPlanPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return 1;

  // The plan's entry points are functions named <block>.forward etc.
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  for (const char *kernel : {"fmlp.gate_up", "fmlp.down", "fmlp.down_grad",
                             "fmlp.input_grad", "fmlp.down_weight_grad"})
    if (text.find(kernel) == std::string::npos) {
      std::fprintf(stderr, "compile-with-fmlp: no %s in the planned module\n",
                   kernel);
      return 1;
    }
  std::printf("compile-with-fmlp: fmlp %s planned %s\n", FMLP_VERSION_STRING,
              argv[1]);
  return 0;
}
