//===- Passes.td - fmlp pass definitions ------------------*- tablegen -*-===//
//
// Every fmlp pass, its flag, summary, description (with a before/after IR
// example) and options. The C++ declarations and registration are generated.
//
//===----------------------------------------------------------------------===//

#ifndef FMLP_PASSES_TD
#define FMLP_PASSES_TD

include "mlir/Pass/PassBase.td"

def RecognizePass : Pass<"fmlp-recognize"> {
  let summary = "Rewrite gated MLP blocks in linalg or TOSA IR into fmlp.gated_mlp";
  let description = [{
    Finds gated MLP blocks, `y = (act(x Wg) * (x Wu)) Wd`, in the IR that
    frontends emit and replaces each with one `fmlp.gated_mlp`, so that later
    passes can plan its forward and backward together.

    What is recognized:
    - projections (`x W`, with either weight layout, optional 1-D bias):
      any linalg contraction of an `[..., K]` tensor with a 2-D `[K, N]` or
      `[N, K]` weight into `[..., N]` from a zero accumulator
      (`linalg.matmul`, with or without `indexing_maps`, or a
      `linalg.generic`), the weight read directly or through a
      `linalg.transpose` (or an equivalent generic); bias adds as a
      broadcasting `linalg.generic` or `linalg.add` of a `linalg.broadcast`;
      and `tosa.matmul` between `tosa.reshape`s, the weight read directly or
      through `tosa.transpose`, with an optional `tosa.cast` and a
      `tosa.add` of a reshaped bias. Weights are used as stored: the layout
      becomes an attribute, no transpose or copy is inserted.
    - the activation product `act(G) * U`, read as a function of `G` and `U`
      whatever operations spell it: linalg elementwise ops (generic or
      named) and their payloads, arith and math on tensors, TOSA
      elementwise ops. The function is evaluated at fixed sample points and
      compared with `silu(m g) u`, `gelu_tanh(m g) u` and `relu(m g) u`,
      where the gate multiplier `m = f(1, 1) - f(-1, 1)` (each activation
      satisfies `act(z) - act(-z) = z`). Agreement is required to within the
      rounding of the IR's own constants (a quarter of their unit roundoff),
      far below the distance to any other common activation (e.g. the
      sigmoid GELU `x sigmoid(1.702 x)` is 1e-2 away from `gelu_tanh`). The
      exact GELU (`erf`) is not supported and never matched.
    - a down multiplier: elementwise operations after the down projection
      that compute `c * y` (including casts) are folded into
      `down_multiplier` up to the last value whose type is `x`'s.

    What is never fused: a block whose intermediate values (`G`, `U`, the
    activation, the down projection before its multiplier) have users
    outside it; gate and up projections of different tensors; an
    activation that is not one of the three; shapes or element types that
    `fmlp.gated_mlp` rejects. With `explain-misses`, every contraction left
    unfused gets a remark that says why.

    Before (torch-mlir style, nn.Linear weights):

    ```mlir
    %wgT = linalg.transpose ins(%wg : tensor<200x96xf32>) outs(%e0 : tensor<96x200xf32>) permutation = [1, 0]
    %g = linalg.matmul ins(%x, %wgT : ...) outs(%zero : tensor<?x200xf32>) -> tensor<?x200xf32>
    %u = linalg.matmul ins(%x, %wuT : ...) outs(%zero : tensor<?x200xf32>) -> tensor<?x200xf32>
    %a = linalg.generic ... ins(%g, %u) { g / (1 + exp(-g)) * u }
    %y = linalg.matmul ins(%a, %wdT : ...) outs(%zero2 : tensor<?x96xf32>) -> tensor<?x96xf32>
    ```

    After:

    ```mlir
    %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
        : (tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>,
           tensor<96x200xf32>) -> tensor<?x96xf32>
    ```
  }];
  let dependentDialects = ["::mlir::fmlp::FMLPDialect"];
  let options = [
    Option<"explainMisses", "explain-misses", "bool", /*default=*/"false",
           "Emit a remark at every contraction that is not fused, saying why">
  ];
}

#endif // FMLP_PASSES_TD
