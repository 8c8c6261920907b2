//===- fmlp-plugin.cpp - fmlp as an mlir-opt plugin -----------------------===//
//
// Entry points for `mlir-opt --load-dialect-plugin` (the fmlp dialect) and
// `mlir-opt --load-pass-plugin` (fmlp's passes and pipelines). One library
// serves both
// flags. Only the fmlp dialect is inserted: mlir-opt already registers every
// upstream dialect.
//
//===----------------------------------------------------------------------===//

#include "dialects/FMLP/FMLPDialect.h"
#include "fmlp/Pipeline.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FMLP", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<mlir::fmlp::FMLPDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FMLPPasses", LLVM_VERSION_STRING,
          []() {
            mlir::fmlp::registerFMLPPasses();
            mlir::fmlp::registerPipelines();
          }};
}
