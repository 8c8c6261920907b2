//===- ToolOptions.h - What every fmlp tool's command line shares -*- C++ -*-===//
//
// The pieces of command-line handling that fmlp-opt, fmlp-compile, fmlp-run
// and fmlp-bundle-info share: `--version` naming fmlp's version and the LLVM
// it was built with, integer options whose bounds are checked as soon as the
// command line is parsed (so `--tokens=-1` is refused before anything reads
// it), and the tool's own option category, with the MLIR debugging flags
// (`--mlir-*`) kept in theirs and every unrelated LLVM option hidden from
// `--help`.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_TOOLS_COMMON_TOOLOPTIONS_H
#define FMLP_TOOLS_COMMON_TOOLOPTIONS_H

#include "fmlp/Version.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <limits>
#include <string>

namespace mlir::fmlp {

/// The category of a tool's own options; `--help` lists these first.
inline llvm::cl::OptionCategory &getToolCategory() {
  static llvm::cl::OptionCategory category("fmlp options");
  return category;
}

/// `--version`: `fmlp-compile (fmlp) 0.2.0` and the LLVM it was built with.
inline void setVersionPrinter(llvm::StringRef tool) {
  llvm::cl::SetVersionPrinter([name = tool.str()](llvm::raw_ostream &os) {
    os << name << " (fmlp) " << FMLP_VERSION_STRING << "\n"
       << "  built with LLVM and MLIR " << LLVM_VERSION_STRING << "\n";
  });
}

/// Hides every option but the tool's own (getToolCategory()) and, when
/// `keepMlirDebugging`, the `--mlir-*` debugging flags, which move to a
/// category of their own. Call after every option is constructed.
inline void hideUnrelatedOptions(bool keepMlirDebugging) {
  static llvm::cl::OptionCategory mlirDebugging(
      "MLIR debugging options (as fmlp-opt takes them)");
  if (keepMlirDebugging)
    for (auto &[name, option] : llvm::cl::getRegisteredOptions())
      if (name.starts_with("mlir-"))
        option->addCategory(mlirDebugging);
  llvm::cl::HideUnrelatedOptions({&getToolCategory(), &mlirDebugging});
}

/// Whether an integer option is at least `minimum`; if not, says so as
/// llvm::cl reports a bad value (`fmlp-run: for the --tokens option: must be
/// at least 1, got -1`). Called right after ParseCommandLineOptions, before
/// anything reads the value. (A cl::parser subclass cannot do it:
/// cl::parser<int64_t> is final.)
inline bool checkMinimum(llvm::cl::opt<int64_t> &option, int64_t minimum) {
  if (option >= minimum)
    return true;
  option.error("must be at least " + std::to_string(minimum) + ", got " +
               std::to_string(option.getValue()));
  return false;
}

/// `tool: error: message` on stderr, as LLVM's tools print it.
inline llvm::raw_ostream &toolError(llvm::StringRef tool) {
  return llvm::WithColor::error(llvm::errs(), tool);
}

} // namespace mlir::fmlp

#endif // FMLP_TOOLS_COMMON_TOOLOPTIONS_H
