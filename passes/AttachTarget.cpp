//===- AttachTarget.cpp - The GPU target on the module --------------------===//
//
// Implements fmlp-attach-target (see Passes.td): the one place a chip name
// is looked up in fmlp's chip table (fmlp/Target.h); later passes read the
// row from the module's #fmlp.target.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/FMLP/FMLPAttrs.h"
#include "fmlp/Target.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::fmlp {
#define GEN_PASS_DEF_ATTACHTARGETPASS
#include "passes/Passes.h.inc"
} // namespace mlir::fmlp

using namespace mlir;
using namespace mlir::fmlp;

namespace {

struct AttachTargetPass
    : mlir::fmlp::impl::AttachTargetPassBase<AttachTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!findTarget(chip)) {
      module.emitError(unknownTargetMessage(chip));
      return signalPassFailure();
    }
    module->setAttr(TargetAttr::kName, TargetAttr::get(&getContext(), chip));
  }
};

} // namespace
