// Llama-7B's MLP block (D = 4096, H = 11008, SwiGLU) as torch-mlir lowers
// LlamaMLP.forward to linalg on tensors, in bf16: x is [T, D] with T dynamic
// (batch x sequence, flattened); the weights are nn.Linear's [out, in], each
// transposed by linalg.transpose before its linalg.matmul; silu is spelled
// x * sigmoid(x) with sigmoid = 1 / (1 + exp(-x)).
//
//   fmlp-opt --fmlp-recognize examples/llama-7b-mlp.linalg.bf16.mlir
//   fmlp-compile examples/llama-7b-mlp.linalg.bf16.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @llama_mlp(%x: tensor<?x4096xbf16>, %gate_proj: tensor<11008x4096xbf16>,
                       %up_proj: tensor<11008x4096xbf16>, %down_proj: tensor<4096x11008xbf16>)
      -> tensor<?x4096xbf16> {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.000000e+00 : bf16
    %one = arith.constant 1.000000e+00 : bf16
    %tokens = tensor.dim %x, %c0 : tensor<?x4096xbf16>
    // gate_proj(x)
    %gate_t_init = tensor.empty() : tensor<4096x11008xbf16>
    %gate_t = linalg.transpose ins(%gate_proj : tensor<11008x4096xbf16>)
        outs(%gate_t_init : tensor<4096x11008xbf16>) permutation = [1, 0]
    %hidden_init = tensor.empty(%tokens) : tensor<?x11008xbf16>
    %hidden_zero = linalg.fill ins(%zero : bf16) outs(%hidden_init : tensor<?x11008xbf16>) -> tensor<?x11008xbf16>
    %gate = linalg.matmul ins(%x, %gate_t : tensor<?x4096xbf16>, tensor<4096x11008xbf16>)
        outs(%hidden_zero : tensor<?x11008xbf16>) -> tensor<?x11008xbf16>
    // act_fn = silu: sigmoid(gate), then gate * sigmoid(gate)
    %sigmoid = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%gate : tensor<?x11008xbf16>) outs(%hidden_init : tensor<?x11008xbf16>) {
    ^bb0(%in: bf16, %out: bf16):
      %neg = arith.negf %in : bf16
      %exp = math.exp %neg : bf16
      %den = arith.addf %exp, %one : bf16
      %res = arith.divf %one, %den : bf16
      linalg.yield %res : bf16
    } -> tensor<?x11008xbf16>
    %silu = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%gate, %sigmoid : tensor<?x11008xbf16>, tensor<?x11008xbf16>) outs(%hidden_init : tensor<?x11008xbf16>) {
    ^bb0(%in: bf16, %in_1: bf16, %out: bf16):
      %res = arith.mulf %in, %in_1 : bf16
      linalg.yield %res : bf16
    } -> tensor<?x11008xbf16>
    // up_proj(x)
    %up_t_init = tensor.empty() : tensor<4096x11008xbf16>
    %up_t = linalg.transpose ins(%up_proj : tensor<11008x4096xbf16>)
        outs(%up_t_init : tensor<4096x11008xbf16>) permutation = [1, 0]
    %up = linalg.matmul ins(%x, %up_t : tensor<?x4096xbf16>, tensor<4096x11008xbf16>)
        outs(%hidden_zero : tensor<?x11008xbf16>) -> tensor<?x11008xbf16>
    // act_fn(gate_proj(x)) * up_proj(x)
    %product = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%silu, %up : tensor<?x11008xbf16>, tensor<?x11008xbf16>) outs(%hidden_init : tensor<?x11008xbf16>) {
    ^bb0(%in: bf16, %in_1: bf16, %out: bf16):
      %res = arith.mulf %in, %in_1 : bf16
      linalg.yield %res : bf16
    } -> tensor<?x11008xbf16>
    // down_proj(...)
    %down_t_init = tensor.empty() : tensor<11008x4096xbf16>
    %down_t = linalg.transpose ins(%down_proj : tensor<4096x11008xbf16>)
        outs(%down_t_init : tensor<11008x4096xbf16>) permutation = [1, 0]
    %out_init = tensor.empty(%tokens) : tensor<?x4096xbf16>
    %out_zero = linalg.fill ins(%zero : bf16) outs(%out_init : tensor<?x4096xbf16>) -> tensor<?x4096xbf16>
    %y = linalg.matmul ins(%product, %down_t : tensor<?x11008xbf16>, tensor<11008x4096xbf16>)
        outs(%out_zero : tensor<?x4096xbf16>) -> tensor<?x4096xbf16>
    return %y : tensor<?x4096xbf16>
  }
}
