//===- CheckedOption.h - Hidden integer knobs checked when parsed -*- C++ -*-===//
//
// The codegen's hidden A/B knobs (--fmlp-wgmma-tile-n and the like) are
// integers with a small set of meaningful values. Their parser refuses any
// other value when the command line is read, as a usage error naming the
// option ("for the --fmlp-small-tokens-max option: must be 16 or 32, not
// '24'"), instead of a fatal error in the middle of a pass.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_CODEGEN_CHECKEDOPTION_H
#define FMLP_CODEGEN_CHECKEDOPTION_H

#include "llvm/Support/CommandLine.h"

namespace mlir::fmlp {

/// cl::parser<int> that also requires `Rule::accepts(value)`;
/// `Rule::expected` says in words what it accepts. Use as
/// `llvm::cl::opt<int, false, CheckedIntParser<Rule>>` with a rule like
///   struct Pieces {
///     static bool accepts(int n) { return n >= 1 && n <= 8; }
///     static constexpr const char *expected = "1 to 8";
///   };
template <typename Rule>
class CheckedIntParser : public llvm::cl::parser<int> {
public:
  using llvm::cl::parser<int>::parser;

  bool parse(llvm::cl::Option &option, llvm::StringRef name,
             llvm::StringRef arg, int &value) {
    if (llvm::cl::parser<int>::parse(option, name, arg, value))
      return true;
    if (!Rule::accepts(value))
      return option.error(llvm::Twine("must be ") + Rule::expected +
                          ", not '" + arg + "'");
    return false;
  }
};

} // namespace mlir::fmlp

#endif // FMLP_CODEGEN_CHECKEDOPTION_H
