//===- NumericalCheck.h - Judge a compiled block against float64 -*- C++
//-*-===//
//
// Runs a compiled block's entry points on random inputs (outputs poisoned
// with NaN first) and judges every output against the float64 reference by
// the error-bound method (lib/Numerics/Reference.h). fmlp-run and the
// numerical tests both check through here.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_LIB_EXECUTION_NUMERICALCHECK_H
#define FMLP_LIB_EXECUTION_NUMERICALCHECK_H

#include <functional>

#include "lib/Execution/BlockRunner.h"
#include "lib/Numerics/Reference.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::fmlp {

struct CheckOptions {
  int64_t tokens = 37;
  uint64_t seed = 1;
  /// Run forward and backward (when the module has them); forward_nograd
  /// always runs.
  bool train = true;
  /// Negative control: run the backward a second time over the saved
  /// buffer the first one consumed, and judge that second result.
  bool secondBackward = false;
  /// Negative control: judge by the bounds of another storage type (e.g.
  /// a bf16 block by f32's bounds).
  std::optional<::fmlp::numerics::Storage> judgeAs;
  /// Negative control: move the forward's first output element by twice
  /// its bound before judging it, as a kernel that got one element wrong.
  bool perturbOneElement = false;
  /// Negative control: judge by the exact values and bounds of another
  /// block, `judgeOther` applied to the spec and inputs the reference
  /// takes (an implementation that computed that block: without its
  /// adapters, with two of them swapped). Outputs the other block lacks
  /// are not judged.
  std::function<void(::fmlp::numerics::BlockSpec &,
                     ::fmlp::numerics::Inputs &)>
      judgeOther;
};

struct OutputCheck {
  std::string name; // y, dx, d_gate, ..., d_lora_a, ..., y_nograd
  ::fmlp::numerics::Comparison comparison;
};

struct CheckReport {
  std::vector<OutputCheck> outputs;
  bool passed() const;
};

/// The reference's description of a compiled block, for `tokens` tokens.
::fmlp::numerics::BlockSpec getBlockSpec(const BlockDescription &block,
                                         int64_t tokens);

/// Inputs as an entry point takes them: weights in their stored layout.
struct PackedInputs {
  HostTensor x, gate, up, down, dy;
  /// Present biases by name (gate_bias, up_bias, down_bias), 1-D.
  std::map<std::string, HostTensor> biases;
  /// Present adapters by name (lora_a, gate_lora_b, up_lora_b, down_lora_a,
  /// down_lora_b), [out, in].
  std::map<std::string, HostTensor> adapters;
};
PackedInputs packInputs(const BlockDescription &block,
                        const ::fmlp::numerics::Inputs &inputs);

/// Returns false with `error` if an entry point could not run.
bool checkBlock(BlockRunner &runner, const CheckOptions &options,
                CheckReport &report, std::string &error);

} // namespace mlir::fmlp

#endif // FMLP_LIB_EXECUTION_NUMERICALCHECK_H
