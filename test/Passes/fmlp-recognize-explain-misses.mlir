// RUN: fmlp-opt %s --split-input-file --fmlp-recognize=explain-misses --verify-diagnostics -o /dev/null

// With explain-misses, every contraction left unfused says why; the down
// projection's remark names what kept the block from fusing.

func.func @gate_used_elsewhere(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                               %wd: tensor<200x96xf32>) -> (tensor<8x96xf32>, tensor<8x200xf32>) {
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the projected tensor is not computed by elementwise operations, so this is no down projection}}
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<8x200xf32>
  %a = arith.mulf %r, %u : tensor<8x200xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: an intermediate value (linalg.matmul) is also used outside the block}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y, %g : tensor<8x96xf32>, tensor<8x200xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @exp_without_negation(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                                %wd: tensor<200x96xf32>) -> tensor<8x96xf32> {
  %one = arith.constant 1.0 : f32
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x200xf32>, tensor<8x200xf32>) outs(%z_th : tensor<8x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %e = math.exp %gi : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %gi, %d : f32
    %m = arith.mulf %s, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x200xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the activation product is none of silu(g)*u, gelu_tanh(g)*u, relu(g)*u (with a gate multiplier), for either operand as g}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}

// -----

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @gelu_erf(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                    %wd: tensor<200x96xf32>) -> tensor<8x96xf32> {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.707106769 : f32
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g, %u : tensor<8x200xf32>, tensor<8x200xf32>) outs(%z_th : tensor<8x200xf32>) {
  ^bb0(%gi: f32, %ui: f32, %o: f32):
    %s = arith.mulf %gi, %rsqrt2 : f32
    %e = math.erf %s : f32
    %p = arith.addf %e, %one : f32
    %h = arith.mulf %gi, %half : f32
    %gelu = arith.mulf %h, %p : f32
    %m = arith.mulf %gelu, %ui : f32
    linalg.yield %m : f32
  } -> tensor<8x200xf32>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the projected tensor is not an activation product: math.erf: erf (exact GELU) is not a supported activation; only its tanh approximation is}}
  %y = linalg.matmul ins(%a, %wd : tensor<8x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}

// -----

func.func @mixed_element_types(%x: tensor<8x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>,
                               %wd: tensor<200x96xbf16>) -> tensor<8x96xf32> {
  %z_th = arith.constant dense<0.0> : tensor<8x200xf32>
  %z_td = arith.constant dense<0.0> : tensor<8x96xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %g = linalg.matmul ins(%x, %wg : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  // expected-remark @+1 {{the projected tensor is not computed by elementwise operations}}
  %u = linalg.matmul ins(%x, %wu : tensor<8x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<8x200xf32>) -> tensor<8x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<8x200xf32>
  %a = arith.mulf %r, %u : tensor<8x200xf32>
  %ab = arith.truncf %a : tensor<8x200xf32> to tensor<8x200xbf16>
  // expected-remark @+1 {{not fused into fmlp.gated_mlp: the fused operation would not verify: 'fmlp.gated_mlp' op operands mix element types (x is 'f32', the down weight is 'bf16'); a 'precision' attribute must say how the contractions round them}}
  %y = linalg.matmul ins(%ab, %wd : tensor<8x200xbf16>, tensor<200x96xbf16>) outs(%z_td : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %y : tensor<8x96xf32>
}
