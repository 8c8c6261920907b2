// Llama-7B's MLP block (D = 4096, H = 11008, SwiGLU) as torch-mlir lowers
// LlamaMLP.forward to linalg on tensors, in f32: x is [T, D] with T dynamic
// (batch x sequence, flattened); the weights are nn.Linear's [out, in], each
// transposed by linalg.transpose before its linalg.matmul; silu is spelled
// x * sigmoid(x) with sigmoid = 1 / (1 + exp(-x)).
//
//   fmlp-opt --fmlp-recognize examples/llama-7b-mlp.linalg.f32.mlir
//   fmlp-compile examples/llama-7b-mlp.linalg.f32.mlir
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @llama_mlp(%x: tensor<?x4096xf32>, %gate_proj: tensor<11008x4096xf32>,
                       %up_proj: tensor<11008x4096xf32>, %down_proj: tensor<4096x11008xf32>)
      -> tensor<?x4096xf32> {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %tokens = tensor.dim %x, %c0 : tensor<?x4096xf32>
    // gate_proj(x)
    %gate_t_init = tensor.empty() : tensor<4096x11008xf32>
    %gate_t = linalg.transpose ins(%gate_proj : tensor<11008x4096xf32>)
        outs(%gate_t_init : tensor<4096x11008xf32>) permutation = [1, 0]
    %hidden_init = tensor.empty(%tokens) : tensor<?x11008xf32>
    %hidden_zero = linalg.fill ins(%zero : f32) outs(%hidden_init : tensor<?x11008xf32>) -> tensor<?x11008xf32>
    %gate = linalg.matmul ins(%x, %gate_t : tensor<?x4096xf32>, tensor<4096x11008xf32>)
        outs(%hidden_zero : tensor<?x11008xf32>) -> tensor<?x11008xf32>
    // act_fn = silu: sigmoid(gate), then gate * sigmoid(gate)
    %sigmoid = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%gate : tensor<?x11008xf32>) outs(%hidden_init : tensor<?x11008xf32>) {
    ^bb0(%in: f32, %out: f32):
      %neg = arith.negf %in : f32
      %exp = math.exp %neg : f32
      %den = arith.addf %exp, %one : f32
      %res = arith.divf %one, %den : f32
      linalg.yield %res : f32
    } -> tensor<?x11008xf32>
    %silu = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%gate, %sigmoid : tensor<?x11008xf32>, tensor<?x11008xf32>) outs(%hidden_init : tensor<?x11008xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %res = arith.mulf %in, %in_1 : f32
      linalg.yield %res : f32
    } -> tensor<?x11008xf32>
    // up_proj(x)
    %up_t_init = tensor.empty() : tensor<4096x11008xf32>
    %up_t = linalg.transpose ins(%up_proj : tensor<11008x4096xf32>)
        outs(%up_t_init : tensor<4096x11008xf32>) permutation = [1, 0]
    %up = linalg.matmul ins(%x, %up_t : tensor<?x4096xf32>, tensor<4096x11008xf32>)
        outs(%hidden_zero : tensor<?x11008xf32>) -> tensor<?x11008xf32>
    // act_fn(gate_proj(x)) * up_proj(x)
    %product = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%silu, %up : tensor<?x11008xf32>, tensor<?x11008xf32>) outs(%hidden_init : tensor<?x11008xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %res = arith.mulf %in, %in_1 : f32
      linalg.yield %res : f32
    } -> tensor<?x11008xf32>
    // down_proj(...)
    %down_t_init = tensor.empty() : tensor<11008x4096xf32>
    %down_t = linalg.transpose ins(%down_proj : tensor<4096x11008xf32>)
        outs(%down_t_init : tensor<11008x4096xf32>) permutation = [1, 0]
    %out_init = tensor.empty(%tokens) : tensor<?x4096xf32>
    %out_zero = linalg.fill ins(%zero : f32) outs(%out_init : tensor<?x4096xf32>) -> tensor<?x4096xf32>
    %y = linalg.matmul ins(%product, %down_t : tensor<?x11008xf32>, tensor<11008x4096xf32>)
        outs(%out_zero : tensor<?x4096xf32>) -> tensor<?x4096xf32>
    return %y : tensor<?x4096xf32>
  }
}
