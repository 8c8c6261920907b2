// RUN: fmlp-opt %s --split-input-file --verify-diagnostics

// One case per verifier message of the kernel operations.

func.func @mixed_tensor_memref(%x: tensor<?x96xf32>, %wg: memref<200x96xf32>, %wu: memref<200x96xf32>, %a: memref<?x200xf32>) {
  // expected-error @+1 {{'fmlp.gate_up' op operands must be all ranked tensors or all memrefs}}
  fmlp.gate_up silu ins(%x, %wg, %wu : tensor<?x96xf32>, memref<200x96xf32>, memref<200x96xf32>) outs(%a : memref<?x200xf32>)
  return
}

// -----

func.func @two_outs(%x: memref<?x96xf32>, %wg: memref<200x96xf32>, %wu: memref<200x96xf32>, %a: memref<?x200xf32>) {
  // expected-error @+1 {{'fmlp.gate_up' op expected 1 outs (a), got 2}}
  fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x96xf32>, memref<200x96xf32>, memref<200x96xf32>) outs(%a, %a : memref<?x200xf32>, memref<?x200xf32>)
  return
}

// -----

func.func @wrong_hidden(%x: memref<?x96xf32>, %wg: memref<200x96xf32>, %wu: memref<200x96xf32>, %a: memref<?x208xf32>) {
  // expected-error @+1 {{'fmlp.gate_up' op out has shape [?, 208], expected [?, 200]}}
  fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x96xf32>, memref<200x96xf32>, memref<200x96xf32>) outs(%a : memref<?x208xf32>)
  return
}

// -----

func.func @weight_rank(%a: memref<?x200xf32>, %wd: memref<96xf32>, %y: memref<?x96xf32>) {
  // expected-error @+1 {{'fmlp.down' op down has shape [96], expected a 2-D weight}}
  fmlp.down ins(%a, %wd : memref<?x200xf32>, memref<96xf32>) outs(%y : memref<?x96xf32>)
  return
}

// -----

func.func @down_grad_four_outs(%dy: memref<8x96xf32>, %wd: memref<96x200xf32>, %g: memref<8x200xf32>) {
  // expected-error @+1 {{'fmlp.down_grad' op expected 2 outs (dg, du), got 4}}
  fmlp.down_grad silu ins(%dy, %wd, %g, %g : memref<8x96xf32>, memref<96x200xf32>, memref<8x200xf32>, memref<8x200xf32>) outs(%g, %g, %g, %g : memref<8x200xf32>, memref<8x200xf32>, memref<8x200xf32>, memref<8x200xf32>)
  return
}

// -----

func.func @down_grad_a_shape(%dy: memref<8x96xf32>, %wd: memref<96x200xf32>, %g: memref<8x200xf32>, %a: memref<8x100xf32>) {
  // expected-error @+1 {{'fmlp.down_grad' op a has shape [8, 100], expected [8, 200]}}
  fmlp.down_grad silu ins(%dy, %wd, %g, %g : memref<8x96xf32>, memref<96x200xf32>, memref<8x200xf32>, memref<8x200xf32>) outs(%g, %g, %a : memref<8x200xf32>, memref<8x200xf32>, memref<8x100xf32>)
  return
}

// -----

func.func @weight_grad_rank(%x: memref<96xf32>, %dg: memref<?x200xf32>, %dwg: memref<200x96xf32>) {
  // expected-error @+1 {{'fmlp.gate_up_weight_grad' op x and dg must be 2-D ([T, D] and [T, H])}}
  fmlp.gate_up_weight_grad ins(%x, %dg, %dg : memref<96xf32>, memref<?x200xf32>, memref<?x200xf32>) outs(%dwg, %dwg : memref<200x96xf32>, memref<200x96xf32>)
  return
}

// -----

func.func @down_weight_grad_rank(%dy: memref<96xf32>, %a: memref<?x200xf32>, %dwd: memref<96x200xf32>) {
  // expected-error @+1 {{'fmlp.down_weight_grad' op dy and a must be 2-D ([T, D] and [T, H])}}
  fmlp.down_weight_grad ins(%dy, %a : memref<96xf32>, memref<?x200xf32>) outs(%dwd : memref<96x200xf32>)
  return
}

// -----

func.func @tokens_disagree(%dy: memref<8x96xf32>, %wd: memref<96x200xf32>, %g: memref<4x200xf32>) {
  // expected-error @+1 {{'fmlp.down_grad' op g has shape [4, 200], expected [8, 200]}}
  fmlp.down_grad silu ins(%dy, %wd, %g, %g : memref<8x96xf32>, memref<96x200xf32>, memref<4x200xf32>, memref<4x200xf32>) outs(%g, %g : memref<4x200xf32>, memref<4x200xf32>)
  return
}

// -----

func.func @bias_wrong_length(%x: memref<?x96xf32>, %wg: memref<200x96xf32>, %wu: memref<200x96xf32>,
                             %bg: memref<96xf32>, %a: memref<?x200xf32>) {
  // expected-error @+1 {{'fmlp.gate_up' op gate_bias has shape [96], expected [200]}}
  fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x96xf32>, memref<200x96xf32>, memref<200x96xf32>) gate_bias(%bg : memref<96xf32>) outs(%a : memref<?x200xf32>)
  return
}

// -----

func.func @bias_grad_of_vector(%g: memref<96xf32>, %db: memref<96xf32>) {
  // expected-error @+1 {{'fmlp.bias_grad' op grad must be 2-D ([T, N]), got [96]}}
  fmlp.bias_grad ins(%g : memref<96xf32>) outs(%db : memref<96xf32>)
  return
}

// -----

func.func @bias_grad_wrong_length(%g: memref<?x96xf32>, %db: memref<200xf32>) {
  // expected-error @+1 {{'fmlp.bias_grad' op bias gradient has shape [200], expected [96]}}
  fmlp.bias_grad ins(%g : memref<?x96xf32>) outs(%db : memref<200xf32>)
  return
}

// -----

// The block's precision rule holds on the kernels that carry it.
func.func @precision_tf32_on_bf16(%x: memref<?x96xbf16>, %wg: memref<200x96xbf16>, %wu: memref<200x96xbf16>, %a: memref<?x200xbf16>) {
  // expected-error @+1 {{'fmlp.gate_up' op precision 'tf32' takes f32 operands, but operand #0 is 'bf16'}}
  fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x96xbf16>, memref<200x96xbf16>, memref<200x96xbf16>) outs(%a : memref<?x200xbf16>) {precision = #fmlp.precision<tf32>}
  return
}

// -----

func.func @precision_not_an_enum(%x: memref<?x96xf32>, %wg: memref<200x96xf32>, %wu: memref<200x96xf32>, %a: memref<?x200xf32>) {
  // expected-error @+1 {{'fmlp.gate_up' op attribute 'precision' failed to satisfy constraint: operand format of the contractions of a gated MLP block}}
  fmlp.gate_up silu ins(%x, %wg, %wu : memref<?x96xf32>, memref<200x96xf32>, memref<200x96xf32>) outs(%a : memref<?x200xf32>) {precision = "tf32"}
  return
}

// -----

func.func @gate_wrong_out(%x: memref<?x96xf32>, %wg: memref<200x96xf32>, %g: memref<?x96xf32>) {
  // expected-error @+1 {{'fmlp.gate' op g has shape [?, 96], expected [?, 200]}}
  fmlp.gate ins(%x, %wg : memref<?x96xf32>, memref<200x96xf32>) outs(%g : memref<?x96xf32>)
  return
}

// -----

func.func @gate_wrong_bias(%x: memref<?x96xf32>, %wg: memref<200x96xf32>, %bg: memref<96xf32>, %g: memref<?x200xf32>) {
  // expected-error @+1 {{'fmlp.gate' op gate_bias has shape [96], expected [200]}}
  fmlp.gate ins(%x, %wg : memref<?x96xf32>, memref<200x96xf32>) gate_bias(%bg : memref<96xf32>) outs(%g : memref<?x200xf32>)
  return
}

// -----

func.func @lora_in_part(%x: memref<?x96xf32>, %wg: memref<200x96xf32>, %wu: memref<200x96xf32>, %z: memref<?x8xf32>, %a: memref<?x200xf32>) {
  // expected-error @+1 {{'fmlp.gate_up' op takes its 3 adapter operands together, got 1}}
  "fmlp.gate_up"(%x, %wg, %wu, %z, %a) <{activation = #fmlp.activation<silu>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 1, 0, 0, 1>}> : (memref<?x96xf32>, memref<200x96xf32>, memref<200x96xf32>, memref<?x8xf32>, memref<?x200xf32>) -> ()
  return
}

// -----

func.func @lora_dynamic_rank(%a: memref<?x200xf32>, %wd: memref<96x200xf32>, %zd: memref<?x?xf32>, %bd: memref<96x4xf32>, %y: memref<?x96xf32>) {
  // expected-error @+1 {{'fmlp.down' op lora_z must be [T, R] with a static R >= 1, got [?, ?]}}
  fmlp.down ins(%a, %wd : memref<?x200xf32>, memref<96x200xf32>) lora(%zd, %bd : memref<?x?xf32>, memref<96x4xf32>) outs(%y : memref<?x96xf32>)
  return
}

// -----

func.func @lora_wrong_matrix(%dy: memref<?x96xf32>, %wd: memref<96x200xf32>, %g: memref<?x200xf32>, %u: memref<?x200xf32>, %dzd: memref<?x4xf32>, %ad: memref<4x100xf32>) {
  // expected-error @+1 {{'fmlp.down_grad' op lora_a has shape [4, 100], expected [4, 200]}}
  fmlp.down_grad silu ins(%dy, %wd, %g, %u : memref<?x96xf32>, memref<96x200xf32>, memref<?x200xf32>, memref<?x200xf32>) lora(%dzd, %ad : memref<?x4xf32>, memref<4x100xf32>) outs(%g, %u : memref<?x200xf32>, memref<?x200xf32>)
  return
}

// -----

func.func @transpose_of_vector(%w: memref<96xf32>, %wt: memref<96xf32>) {
  // expected-error @+1 {{'fmlp.transpose' op input must be 2-D, got [96]}}
  fmlp.transpose ins(%w : memref<96xf32>) outs(%wt : memref<96xf32>)
  return
}

// -----

func.func @transpose_not_swapped(%w: memref<96x200xf32>, %wt: memref<96x200xf32>) {
  // expected-error @+1 {{'fmlp.transpose' op transpose has shape [96, 200], expected [200, 96]}}
  fmlp.transpose ins(%w : memref<96x200xf32>) outs(%wt : memref<96x200xf32>)
  return
}

// -----

func.func @transpose_other_element(%w: memref<96x200xf32>, %wt: memref<200x96xbf16>) {
  // expected-error @+1 {{'fmlp.transpose' op out must have the input's element type 'f32', got 'bf16'}}
  fmlp.transpose ins(%w : memref<96x200xf32>) outs(%wt : memref<200x96xbf16>)
  return
}

// -----

func.func @transpose_rounds_bf16(%w: memref<96x200xbf16>, %wt: memref<200x96xbf16>) {
  // expected-error @+1 {{'fmlp.transpose' op rounds to tf32, which takes f32 elements, got 'bf16'}}
  fmlp.transpose ins(%w : memref<96x200xbf16>) outs(%wt : memref<200x96xbf16>) {round_to_tf32}
  return
}

// -----

func.func @round_bf16(%w: memref<96x200xbf16>, %wr: memref<96x200xbf16>) {
  // expected-error @+1 {{'fmlp.round_to_tf32' op rounds to tf32, which takes f32 elements, got 'bf16'}}
  fmlp.round_to_tf32 ins(%w : memref<96x200xbf16>) outs(%wr : memref<96x200xbf16>)
  return
}

// -----

func.func @round_transposed(%w: memref<96x200xf32>, %wr: memref<200x96xf32>) {
  // expected-error @+1 {{'fmlp.round_to_tf32' op copy has shape [200, 96], expected [96, 200]}}
  fmlp.round_to_tf32 ins(%w : memref<96x200xf32>) outs(%wr : memref<200x96xf32>)
  return
}

// -----

func.func @round_other_element(%w: memref<96x200xf32>, %wr: memref<96x200xf16>) {
  // expected-error @+1 {{'fmlp.round_to_tf32' op out must have the input's element type 'f32', got 'f16'}}
  fmlp.round_to_tf32 ins(%w : memref<96x200xf32>) outs(%wr : memref<96x200xf16>)
  return
}

// -----

func.func @round_of_vector(%w: memref<96xf32>, %wr: memref<96xf32>) {
  // expected-error @+1 {{'fmlp.round_to_tf32' op input must be 2-D, got [96]}}
  fmlp.round_to_tf32 ins(%w : memref<96xf32>) outs(%wr : memref<96xf32>)
  return
}

// -----

func.func @round_mixed_forms(%w: tensor<96x200xf32>, %wr: memref<96x200xf32>) {
  // expected-error @+1 {{'fmlp.round_to_tf32' op operands must be all ranked tensors or all memrefs}}
  fmlp.round_to_tf32 ins(%w : tensor<96x200xf32>) outs(%wr : memref<96x200xf32>)
  return
}

// -----

func.func @transpose_two_outs(%w: memref<96x200xf32>, %wt: memref<200x96xf32>) {
  // expected-error @+1 {{'fmlp.transpose' op expected 1 outs (transpose), got 2}}
  fmlp.transpose ins(%w : memref<96x200xf32>) outs(%wt, %wt : memref<200x96xf32>, memref<200x96xf32>)
  return
}
