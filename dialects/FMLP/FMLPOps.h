//===- FMLPOps.h - fmlp operations ------------------------------*- C++ -*-===//
//
// Declares fmlp.gated_mlp and fmlp.gated_mlp_grad.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_DIALECTS_FMLP_FMLPOPS_H
#define FMLP_DIALECTS_FMLP_FMLPOPS_H

#include "dialects/FMLP/FMLPAttrs.h"
#include "dialects/FMLP/FMLPDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fmlp {

/// The static widths of a gated MLP block: x is [..., T, modelWidth] and the
/// hidden activations are [..., T, hiddenWidth].
struct BlockShape {
  int64_t modelWidth;  // D
  int64_t hiddenWidth; // H

  /// Weights of the three projections: 3 D H (biases not counted).
  int64_t getWeightCount() const { return 3 * modelWidth * hiddenWidth; }
  /// Floating-point operations per token of the forward: gate and up
  /// projections 4 D H, down projection 2 D H.
  int64_t getForwardFlopsPerToken() const {
    return 6 * modelWidth * hiddenWidth;
  }
  /// Per token of a training step: the forward's 6 D H plus the backward's
  /// 12 D H (dA, dX over K = 2H, dWg and dWu, dWd: two products each).
  int64_t getTrainingFlopsPerToken() const {
    return 18 * modelWidth * hiddenWidth;
  }
};

/// How x's [..., T, D] flattens into the kernels' [T, D]: all leading
/// dimensions into T, the last kept.
SmallVector<SmallVector<int64_t, 2>, 2> getTokenReassociation(int64_t rank);

} // namespace mlir::fmlp

#define GET_OP_CLASSES
#include "dialects/FMLP/FMLPOps.h.inc"

namespace mlir::fmlp {

/// Whether `op` copies a weight once per call for the GEMM kernels
/// (transpose, round_to_tf32): it does not depend on T.
inline bool isWeightCopyOp(Operation *op) {
  return isa<TransposeOp, RoundToTf32Op>(op);
}

/// Whether `op` is one of the kernel plan's operations (K1..K6, gate,
/// bias_grad, the weight copies).
inline bool isKernelOp(Operation *op) {
  return isa<GateUpOp, DownOp, GateOp, DownGradOp, InputGradOp,
             GateUpWeightGradOp, DownWeightGradOp, BiasGradOp>(op) ||
         isWeightCopyOp(op);
}

/// A kernel op that is one GEMM (KernelGemm.h): every one but bias_grad's
/// column sum and the weight copies.
inline bool isGemmKernelOp(Operation *op) {
  return isKernelOp(op) && !isa<BiasGradOp>(op) && !isWeightCopyOp(op);
}

/// A block op's optional operands (the biases, then the adapters) in operand
/// order, each named as entry points name it; absent ones null. The
/// backward returns one gradient per present one, in this order.
template <typename BlockOp>
SmallVector<std::pair<StringRef, Value>, 8> getOptionalOperands(BlockOp op) {
  return {{"gate_bias", op.getGateBias()},     {"up_bias", op.getUpBias()},
          {"down_bias", op.getDownBias()},     {"lora_a", op.getLoraA()},
          {"gate_lora_b", op.getGateLoraB()}, {"up_lora_b", op.getUpLoraB()},
          {"down_lora_a", op.getDownLoraA()}, {"down_lora_b", op.getDownLoraB()}};
}

/// The token-major operand of a kernel's adapter term (K1's, K2's and
/// gate's lora_z, K3's and K4's lora_dz: docs/LoRA.md), or null when the
/// kernel has none.
inline Value getAdapterInput(Operation *op) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<GateUpOp, DownOp, GateOp>([](auto op) { return op.getLoraZ(); })
      .Case<DownGradOp, InputGradOp>([](auto op) { return op.getLoraDz(); })
      .Default([](Operation *) { return Value(); });
}

} // namespace mlir::fmlp

#endif // FMLP_DIALECTS_FMLP_FMLPOPS_H
