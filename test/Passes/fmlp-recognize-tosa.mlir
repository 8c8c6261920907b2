// RUN: fmlp-opt %s --split-input-file --fmlp-recognize | FileCheck %s

// fmlp-recognize on TOSA input: tosa.matmul between reshapes, weights read
// directly ([in, out]) or through tosa.transpose (nn.Linear's [out, in]),
// bf16 accumulating in f32 and cast back, biases added after reshapes, the
// activation in TOSA's elementwise ops.

// SwiGLU in bf16 as an exporter writes it: every projection reshapes to 3-D,
// multiplies (f32 result), casts back to bf16 and reshapes to 2-D.
// CHECK-LABEL: func.func @swiglu_bf16
// CHECK-SAME: (%[[X:.+]]: tensor<8x16xbf16>, %[[WG:.+]]: tensor<40x16xbf16>, %[[WU:.+]]: tensor<40x16xbf16>, %[[WD:.+]]: tensor<16x40xbf16>)
// CHECK-NEXT: %[[Y:.+]] = fmlp.gated_mlp silu %[[X]], gate %[[WG]], up %[[WU]], down %[[WD]] : (tensor<8x16xbf16>, tensor<40x16xbf16>, tensor<40x16xbf16>, tensor<16x40xbf16>) -> tensor<8x16xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @swiglu_bf16(%x: tensor<8x16xbf16>, %wg: tensor<40x16xbf16>, %wu: tensor<40x16xbf16>,
                       %wd: tensor<16x40xbf16>) -> tensor<8x16xbf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s_x = tosa.const_shape {values = dense<[1, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_w = tosa.const_shape {values = dense<[1, 16, 40]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_h = tosa.const_shape {values = dense<[8, 40]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s_a = tosa.const_shape {values = dense<[1, 8, 40]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_d = tosa.const_shape {values = dense<[1, 40, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_y = tosa.const_shape {values = dense<[8, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %x3 = tosa.reshape %x, %s_x : (tensor<8x16xbf16>, !tosa.shape<3>) -> tensor<1x8x16xbf16>
  %wg_t = tosa.transpose %wg {perms = array<i32: 1, 0>} : (tensor<40x16xbf16>) -> tensor<16x40xbf16>
  %wg3 = tosa.reshape %wg_t, %s_w : (tensor<16x40xbf16>, !tosa.shape<3>) -> tensor<1x16x40xbf16>
  %g_acc = tosa.matmul %x3, %wg3, %zp, %zp : (tensor<1x8x16xbf16>, tensor<1x16x40xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x40xf32>
  %g3 = tosa.cast %g_acc : (tensor<1x8x40xf32>) -> tensor<1x8x40xbf16>
  %g = tosa.reshape %g3, %s_h : (tensor<1x8x40xbf16>, !tosa.shape<2>) -> tensor<8x40xbf16>
  %sig = tosa.sigmoid %g : (tensor<8x40xbf16>) -> tensor<8x40xbf16>
  %silu = tosa.mul %g, %sig, %shift : (tensor<8x40xbf16>, tensor<8x40xbf16>, tensor<1xi8>) -> tensor<8x40xbf16>
  %wu_t = tosa.transpose %wu {perms = array<i32: 1, 0>} : (tensor<40x16xbf16>) -> tensor<16x40xbf16>
  %wu3 = tosa.reshape %wu_t, %s_w : (tensor<16x40xbf16>, !tosa.shape<3>) -> tensor<1x16x40xbf16>
  %u_acc = tosa.matmul %x3, %wu3, %zp, %zp : (tensor<1x8x16xbf16>, tensor<1x16x40xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x40xf32>
  %u3 = tosa.cast %u_acc : (tensor<1x8x40xf32>) -> tensor<1x8x40xbf16>
  %u = tosa.reshape %u3, %s_h : (tensor<1x8x40xbf16>, !tosa.shape<2>) -> tensor<8x40xbf16>
  %a = tosa.mul %silu, %u, %shift : (tensor<8x40xbf16>, tensor<8x40xbf16>, tensor<1xi8>) -> tensor<8x40xbf16>
  %a3 = tosa.reshape %a, %s_a : (tensor<8x40xbf16>, !tosa.shape<3>) -> tensor<1x8x40xbf16>
  %wd_t = tosa.transpose %wd {perms = array<i32: 1, 0>} : (tensor<16x40xbf16>) -> tensor<40x16xbf16>
  %wd3 = tosa.reshape %wd_t, %s_d : (tensor<40x16xbf16>, !tosa.shape<3>) -> tensor<1x40x16xbf16>
  %y_acc = tosa.matmul %a3, %wd3, %zp, %zp : (tensor<1x8x40xbf16>, tensor<1x40x16xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x16xf32>
  %y3 = tosa.cast %y_acc : (tensor<1x8x16xf32>) -> tensor<1x8x16xbf16>
  %y = tosa.reshape %y3, %s_y : (tensor<1x8x16xbf16>, !tosa.shape<2>) -> tensor<8x16xbf16>
  return %y : tensor<8x16xbf16>
}

// -----

// [in, out] weights used without a transpose, biases added to the 3-D
// products, ReGLU as tosa.clamp, all of it on [1, T, D] (no outer reshapes).
// CHECK-LABEL: func.func @reglu_biases_3d
// CHECK-SAME: %[[BG:[^:]+]]: tensor<40xf32>, %[[BU:[^:]+]]: tensor<40xf32>, %[[BD:[^:]+]]: tensor<16xf32>
// CHECK-NEXT: fmlp.gated_mlp relu %{{.+}}, gate %{{.+}}, up %{{.+}}, down %{{.+}} gate_bias %[[BG]] up_bias %[[BU]] down_bias %[[BD]] {down_layout = #fmlp.layout<in_out>, gate_layout = #fmlp.layout<in_out>, up_layout = #fmlp.layout<in_out>} : (tensor<1x8x16xf32>, tensor<16x40xf32>, tensor<16x40xf32>, tensor<40x16xf32>, tensor<40xf32>, tensor<40xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
// CHECK-NEXT: return
func.func @reglu_biases_3d(%x: tensor<1x8x16xf32>, %wg: tensor<16x40xf32>, %wu: tensor<16x40xf32>,
                           %wd: tensor<40x16xf32>, %bg: tensor<40xf32>, %bu: tensor<40xf32>,
                           %bd: tensor<16xf32>) -> tensor<1x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s_w = tosa.const_shape {values = dense<[1, 16, 40]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_d = tosa.const_shape {values = dense<[1, 40, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_bh = tosa.const_shape {values = dense<[1, 1, 40]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_bd = tosa.const_shape {values = dense<[1, 1, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %wg3 = tosa.reshape %wg, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %wu3 = tosa.reshape %wu, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %wd3 = tosa.reshape %wd, %s_d : (tensor<40x16xf32>, !tosa.shape<3>) -> tensor<1x40x16xf32>
  %bg3 = tosa.reshape %bg, %s_bh : (tensor<40xf32>, !tosa.shape<3>) -> tensor<1x1x40xf32>
  %bu3 = tosa.reshape %bu, %s_bh : (tensor<40xf32>, !tosa.shape<3>) -> tensor<1x1x40xf32>
  %bd3 = tosa.reshape %bd, %s_bd : (tensor<16xf32>, !tosa.shape<3>) -> tensor<1x1x16xf32>
  %g0 = tosa.matmul %x, %wg3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %g = tosa.add %g0, %bg3 : (tensor<1x8x40xf32>, tensor<1x1x40xf32>) -> tensor<1x8x40xf32>
  %u0 = tosa.matmul %x, %wu3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %u = tosa.add %bu3, %u0 : (tensor<1x1x40xf32>, tensor<1x8x40xf32>) -> tensor<1x8x40xf32>
  %relu = tosa.clamp %g {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x8x40xf32>) -> tensor<1x8x40xf32>
  %a = tosa.mul %relu, %u, %shift : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %y0 = tosa.matmul %a, %wd3, %zp, %zp : (tensor<1x8x40xf32>, tensor<1x40x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  %y = tosa.add %y0, %bd3 : (tensor<1x8x16xf32>, tensor<1x1x16xf32>) -> tensor<1x8x16xf32>
  return %y : tensor<1x8x16xf32>
}

// -----

// GeGLU in TOSA ops with a gate multiplier of 2 (a [1, 1, 1] constant):
// 0.5 z (1 + tanh(c (z + 0.044715 z^3))) with z = 2 g.
// CHECK-LABEL: func.func @geglu_gate_multiplier
// CHECK-NEXT: fmlp.gated_mlp gelu_tanh %{{.+}} {down_layout = #fmlp.layout<in_out>, gate_layout = #fmlp.layout<in_out>, gate_multiplier = 2.000000e+00 : f64, up_layout = #fmlp.layout<in_out>}
// CHECK-NEXT: return
func.func @geglu_gate_multiplier(%x: tensor<1x8x16xf32>, %wg: tensor<16x40xf32>, %wu: tensor<16x40xf32>,
                                 %wd: tensor<40x16xf32>) -> tensor<1x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %three = "tosa.const"() <{values = dense<3.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %k = "tosa.const"() <{values = dense<0.044715> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %c = "tosa.const"() <{values = dense<0.797884583> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s_w = tosa.const_shape {values = dense<[1, 16, 40]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_d = tosa.const_shape {values = dense<[1, 40, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %wg3 = tosa.reshape %wg, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %wu3 = tosa.reshape %wu, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %wd3 = tosa.reshape %wd, %s_d : (tensor<40x16xf32>, !tosa.shape<3>) -> tensor<1x40x16xf32>
  %g = tosa.matmul %x, %wg3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %u = tosa.matmul %x, %wu3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %z = tosa.mul %g, %two, %shift : (tensor<1x8x40xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %z3 = tosa.pow %z, %three : (tensor<1x8x40xf32>, tensor<1x1x1xf32>) -> tensor<1x8x40xf32>
  %kz3 = tosa.mul %z3, %k, %shift : (tensor<1x8x40xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %inner = tosa.add %z, %kz3 : (tensor<1x8x40xf32>, tensor<1x8x40xf32>) -> tensor<1x8x40xf32>
  %scaled = tosa.mul %inner, %c, %shift : (tensor<1x8x40xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %th = tosa.tanh %scaled : (tensor<1x8x40xf32>) -> tensor<1x8x40xf32>
  %p = tosa.add %th, %one : (tensor<1x8x40xf32>, tensor<1x1x1xf32>) -> tensor<1x8x40xf32>
  %hz = tosa.mul %z, %half, %shift : (tensor<1x8x40xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %gelu = tosa.mul %hz, %p, %shift : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %a = tosa.mul %gelu, %u, %shift : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %y = tosa.matmul %a, %wd3, %zp, %zp : (tensor<1x8x40xf32>, tensor<1x40x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  return %y : tensor<1x8x16xf32>
}

// -----

// GLU (sigmoid(g) * u, no g factor): a gated unit, but not one of the three.
// CHECK-LABEL: func.func @sigmoid_glu
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @sigmoid_glu(%x: tensor<1x8x16xf32>, %wg: tensor<16x40xf32>, %wu: tensor<16x40xf32>,
                       %wd: tensor<40x16xf32>) -> tensor<1x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s_w = tosa.const_shape {values = dense<[1, 16, 40]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_d = tosa.const_shape {values = dense<[1, 40, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %wg3 = tosa.reshape %wg, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %wu3 = tosa.reshape %wu, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %wd3 = tosa.reshape %wd, %s_d : (tensor<40x16xf32>, !tosa.shape<3>) -> tensor<1x40x16xf32>
  %g = tosa.matmul %x, %wg3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %u = tosa.matmul %x, %wu3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %sig = tosa.sigmoid %g : (tensor<1x8x40xf32>) -> tensor<1x8x40xf32>
  %a = tosa.mul %sig, %u, %shift : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %y = tosa.matmul %a, %wd3, %zp, %zp : (tensor<1x8x40xf32>, tensor<1x40x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  return %y : tensor<1x8x16xf32>
}

// -----

// The exact GELU through tosa.erf.
// CHECK-LABEL: func.func @gelu_erf
// CHECK-NOT: fmlp.gated_mlp
// CHECK: return
func.func @gelu_erf(%x: tensor<1x8x16xf32>, %wg: tensor<16x40xf32>, %wu: tensor<16x40xf32>,
                    %wd: tensor<40x16xf32>) -> tensor<1x8x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %rsqrt2 = "tosa.const"() <{values = dense<0.707106769> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %s_w = tosa.const_shape {values = dense<[1, 16, 40]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s_d = tosa.const_shape {values = dense<[1, 40, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %wg3 = tosa.reshape %wg, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %wu3 = tosa.reshape %wu, %s_w : (tensor<16x40xf32>, !tosa.shape<3>) -> tensor<1x16x40xf32>
  %wd3 = tosa.reshape %wd, %s_d : (tensor<40x16xf32>, !tosa.shape<3>) -> tensor<1x40x16xf32>
  %g = tosa.matmul %x, %wg3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %u = tosa.matmul %x, %wu3, %zp, %zp : (tensor<1x8x16xf32>, tensor<1x16x40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x40xf32>
  %s = tosa.mul %g, %rsqrt2, %shift : (tensor<1x8x40xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %e = tosa.erf %s : (tensor<1x8x40xf32>) -> tensor<1x8x40xf32>
  %p = tosa.add %e, %one : (tensor<1x8x40xf32>, tensor<1x1x1xf32>) -> tensor<1x8x40xf32>
  %hg = tosa.mul %g, %half, %shift : (tensor<1x8x40xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %gelu = tosa.mul %hg, %p, %shift : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %a = tosa.mul %gelu, %u, %shift : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<1xi8>) -> tensor<1x8x40xf32>
  %y = tosa.matmul %a, %wd3, %zp, %zp : (tensor<1x8x40xf32>, tensor<1x40x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x16xf32>
  return %y : tensor<1x8x16xf32>
}
