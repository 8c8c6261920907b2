//===- FMLPDialect.td - The fmlp dialect ------------------*- tablegen -*-===//
//
// The fmlp dialect describes gated MLP blocks (SwiGLU, GeGLU, ReGLU) as single
// operations, so that passes can co-optimize their forward and backward
// dataflow before anything is committed to kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_DIALECT_TD
#define FMLP_DIALECT_TD

include "mlir/IR/OpBase.td"

def FMLP_Dialect : Dialect {
  let name = "fmlp";
  let cppNamespace = "::mlir::fmlp";
  let summary = "Gated MLP blocks of transformer models and their fused kernels";
  let description = [{
    A gated MLP block maps tokens `x[..., D]` through a gate and an up
    projection to the hidden width `H`, gates one with the other through an
    activation, and projects back to `D`:

    ```
    G = x Wg,  U = x Wu,  A = act(G) * U,  y = A Wd
    ```

    The dialect holds the block as one value-semantic operation
    (`fmlp.gated_mlp`) and its vector-Jacobian product
    (`fmlp.gated_mlp_grad`). Keeping the block whole is what allows the
    fusion and memory-reuse passes to plan both directions together; see
    docs/Rationale.md for the contract these operations promise.
  }];
  let useDefaultAttributePrinterParser = 1;
}

class FMLP_Op<string mnemonic, list<Trait> traits = []>
    : Op<FMLP_Dialect, mnemonic, traits>;

#endif // FMLP_DIALECT_TD
