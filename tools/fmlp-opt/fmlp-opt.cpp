//===- fmlp-opt.cpp - fmlp's opt-style driver -----------------------------===//
//
// MlirOptMain over the fmlp dialect, the upstream dialects fmlp reads, and
// fmlp's passes and pipelines with the upstream passes they run: nothing
// else, so that what it accepts is what fmlp supports. --version names
// fmlp's version.
//
//===----------------------------------------------------------------------===//

#include "fmlp/InitAll.h"
#include "tools/common/ToolOptions.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::fmlp::registerAllDialects(registry);
  mlir::fmlp::registerAllPasses();
  mlir::fmlp::setVersionPrinter("fmlp-opt");
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "fmlp optimizer driver: gated MLP blocks\n", registry));
}
