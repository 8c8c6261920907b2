// Llama-7B's MLP block (D = 4096, H = 11008, SwiGLU) as a TOSA exporter
// writes it, in bf16, for T = 2048 tokens: each projection reshapes x to
// [1, T, D], multiplies with the nn.Linear weight transposed and reshaped to
// [1, D, H] (tosa.matmul accumulates in f32; a bf16 result is cast back),
// reshapes the result to
// [T, H]; silu is tosa.sigmoid times its input.
//
//   fmlp-opt --fmlp-recognize examples/llama-7b-mlp.tosa.bf16.mlir
//   fmlp-compile examples/llama-7b-mlp.tosa.bf16.mlir
module {
  func.func @llama_mlp(%x: tensor<2048x4096xbf16>, %gate_proj: tensor<11008x4096xbf16>,
                       %up_proj: tensor<11008x4096xbf16>, %down_proj: tensor<4096x11008xbf16>)
      -> tensor<2048x4096xbf16> {
    %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %x_shape = tosa.const_shape {values = dense<[1, 2048, 4096]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %w_shape = tosa.const_shape {values = dense<[1, 4096, 11008]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %h_shape = tosa.const_shape {values = dense<[2048, 11008]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %a_shape = tosa.const_shape {values = dense<[1, 2048, 11008]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %d_shape = tosa.const_shape {values = dense<[1, 11008, 4096]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %y_shape = tosa.const_shape {values = dense<[2048, 4096]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %x3 = tosa.reshape %x, %x_shape : (tensor<2048x4096xbf16>, !tosa.shape<3>) -> tensor<1x2048x4096xbf16>
    // gate_proj(x)
    %gate_t = tosa.transpose %gate_proj {perms = array<i32: 1, 0>} : (tensor<11008x4096xbf16>) -> tensor<4096x11008xbf16>
    %gate_w = tosa.reshape %gate_t, %w_shape : (tensor<4096x11008xbf16>, !tosa.shape<3>) -> tensor<1x4096x11008xbf16>
    %gate_acc = tosa.matmul %x3, %gate_w, %zp, %zp : (tensor<1x2048x4096xbf16>, tensor<1x4096x11008xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2048x11008xf32>
    %gate3 = tosa.cast %gate_acc : (tensor<1x2048x11008xf32>) -> tensor<1x2048x11008xbf16>
    %gate = tosa.reshape %gate3, %h_shape : (tensor<1x2048x11008xbf16>, !tosa.shape<2>) -> tensor<2048x11008xbf16>
    // act_fn = silu
    %sigmoid = tosa.sigmoid %gate : (tensor<2048x11008xbf16>) -> tensor<2048x11008xbf16>
    %silu = tosa.mul %gate, %sigmoid, %shift : (tensor<2048x11008xbf16>, tensor<2048x11008xbf16>, tensor<1xi8>) -> tensor<2048x11008xbf16>
    // up_proj(x)
    %up_t = tosa.transpose %up_proj {perms = array<i32: 1, 0>} : (tensor<11008x4096xbf16>) -> tensor<4096x11008xbf16>
    %up_w = tosa.reshape %up_t, %w_shape : (tensor<4096x11008xbf16>, !tosa.shape<3>) -> tensor<1x4096x11008xbf16>
    %up_acc = tosa.matmul %x3, %up_w, %zp, %zp : (tensor<1x2048x4096xbf16>, tensor<1x4096x11008xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2048x11008xf32>
    %up3 = tosa.cast %up_acc : (tensor<1x2048x11008xf32>) -> tensor<1x2048x11008xbf16>
    %up = tosa.reshape %up3, %h_shape : (tensor<1x2048x11008xbf16>, !tosa.shape<2>) -> tensor<2048x11008xbf16>
    // act_fn(gate_proj(x)) * up_proj(x)
    %product = tosa.mul %silu, %up, %shift : (tensor<2048x11008xbf16>, tensor<2048x11008xbf16>, tensor<1xi8>) -> tensor<2048x11008xbf16>
    // down_proj(...)
    %product3 = tosa.reshape %product, %a_shape : (tensor<2048x11008xbf16>, !tosa.shape<3>) -> tensor<1x2048x11008xbf16>
    %down_t = tosa.transpose %down_proj {perms = array<i32: 1, 0>} : (tensor<4096x11008xbf16>) -> tensor<11008x4096xbf16>
    %down_w = tosa.reshape %down_t, %d_shape : (tensor<11008x4096xbf16>, !tosa.shape<3>) -> tensor<1x11008x4096xbf16>
    %y_acc = tosa.matmul %product3, %down_w, %zp, %zp : (tensor<1x2048x11008xbf16>, tensor<1x11008x4096xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2048x4096xf32>
    %y3 = tosa.cast %y_acc : (tensor<1x2048x4096xf32>) -> tensor<1x2048x4096xbf16>
    %y = tosa.reshape %y3, %y_shape : (tensor<1x2048x4096xbf16>, !tosa.shape<2>) -> tensor<2048x4096xbf16>
    return %y : tensor<2048x4096xbf16>
  }
}
