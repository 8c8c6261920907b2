// A small SwiGLU block (D = 64, H = 176), the same IR as
// llama-7b-mlp.linalg.f32.mlir (torch-mlir's lowering of LlamaMLP.forward,
// nn.Linear weights [out, in], T dynamic) at a size that fmlp-run checks on
// the CPU in about a second:
//
//   fmlp-run examples/small-mlp.linalg.f32.mlir --tokens=8 --save=gu
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @small_mlp(%x: tensor<?x64xf32>, %gate_proj: tensor<176x64xf32>,
                       %up_proj: tensor<176x64xf32>, %down_proj: tensor<64x176xf32>)
      -> tensor<?x64xf32> {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %tokens = tensor.dim %x, %c0 : tensor<?x64xf32>
    // gate_proj(x)
    %gate_t_init = tensor.empty() : tensor<64x176xf32>
    %gate_t = linalg.transpose ins(%gate_proj : tensor<176x64xf32>)
        outs(%gate_t_init : tensor<64x176xf32>) permutation = [1, 0]
    %hidden_init = tensor.empty(%tokens) : tensor<?x176xf32>
    %hidden_zero = linalg.fill ins(%zero : f32) outs(%hidden_init : tensor<?x176xf32>) -> tensor<?x176xf32>
    %gate = linalg.matmul ins(%x, %gate_t : tensor<?x64xf32>, tensor<64x176xf32>)
        outs(%hidden_zero : tensor<?x176xf32>) -> tensor<?x176xf32>
    // act_fn = silu: sigmoid(gate), then gate * sigmoid(gate)
    %sigmoid = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%gate : tensor<?x176xf32>) outs(%hidden_init : tensor<?x176xf32>) {
    ^bb0(%in: f32, %out: f32):
      %neg = arith.negf %in : f32
      %exp = math.exp %neg : f32
      %den = arith.addf %exp, %one : f32
      %res = arith.divf %one, %den : f32
      linalg.yield %res : f32
    } -> tensor<?x176xf32>
    %silu = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%gate, %sigmoid : tensor<?x176xf32>, tensor<?x176xf32>) outs(%hidden_init : tensor<?x176xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %res = arith.mulf %in, %in_1 : f32
      linalg.yield %res : f32
    } -> tensor<?x176xf32>
    // up_proj(x)
    %up_t_init = tensor.empty() : tensor<64x176xf32>
    %up_t = linalg.transpose ins(%up_proj : tensor<176x64xf32>)
        outs(%up_t_init : tensor<64x176xf32>) permutation = [1, 0]
    %up = linalg.matmul ins(%x, %up_t : tensor<?x64xf32>, tensor<64x176xf32>)
        outs(%hidden_zero : tensor<?x176xf32>) -> tensor<?x176xf32>
    // act_fn(gate_proj(x)) * up_proj(x)
    %product = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%silu, %up : tensor<?x176xf32>, tensor<?x176xf32>) outs(%hidden_init : tensor<?x176xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %res = arith.mulf %in, %in_1 : f32
      linalg.yield %res : f32
    } -> tensor<?x176xf32>
    // down_proj(...)
    %down_t_init = tensor.empty() : tensor<176x64xf32>
    %down_t = linalg.transpose ins(%down_proj : tensor<64x176xf32>)
        outs(%down_t_init : tensor<176x64xf32>) permutation = [1, 0]
    %out_init = tensor.empty(%tokens) : tensor<?x64xf32>
    %out_zero = linalg.fill ins(%zero : f32) outs(%out_init : tensor<?x64xf32>) -> tensor<?x64xf32>
    %y = linalg.matmul ins(%product, %down_t : tensor<?x176xf32>, tensor<176x64xf32>)
        outs(%out_zero : tensor<?x64xf32>) -> tensor<?x64xf32>
    return %y : tensor<?x64xf32>
  }
}
