// RUN: fmlp-opt %s --fmlp-recognize | FileCheck %s --check-prefix=RECOGNIZED
// RUN: fmlp-opt %s --fmlp-recognize | grep -c linalg.batch_matmul | FileCheck %s --check-prefix=MATMULS
// RUN: fmlp-opt %s --fmlp-recognize | grep -c "linalg.generic" | FileCheck %s --check-prefix=GENERICS
// RUN: fmlp-opt %s --fmlp-recognize | grep -c "tensor.expand_shape\|tensor.collapse_shape" | FileCheck %s --check-prefix=RESHAPES
// RUN: fmlp-compile %s --emit=mlir -o %t.mlir | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=PLAN < %t.mlir
// RUN: fmlp-opt %s --fmlp-plan-pipeline | diff - %t.mlir

// A whole 2-layer decoder (RMSNorm, attention with softmax, residual adds,
// two SwiGLU MLPs) in torch-mlir's linalg form, hand-made by
// handmade_model.py (no frontend tool needed): fmlp-recognize replaces
// exactly the two MLP blocks and leaves everything else as it was (the 8
// attention projections and 4 attention products stay linalg.batch_matmul;
// of the 18 contractions, the 6 of the MLPs are gone, and with them their
// 6 weight transposes, 6 broadcasts and 6 activation generics: 66 generics
// become 48; the 16 reshapes of the attention stay).
// fmlp-compile plans each block as its own entry point set, says which
// source location it came from, and drops the rest of the model (the plan
// is the blocks' entry points; the caller runs attention and norms).

// RECOGNIZED-LABEL: func.func @decoder
// RECOGNIZED-COUNT-2: fmlp.gated_mlp silu
// RECOGNIZED-NOT: fmlp.gated_mlp
// RECOGNIZED: return
// MATMULS: 12
// GENERICS: 48
// RESHAPES: 16

// REPORT: block 1 at {{.*}}decoder-2layer.handmade.mlir:{{[0-9]+}}:{{[0-9]+}} -> entry points @decoder.mlp0.*
// REPORT-NEXT: activation     silu
// REPORT-NEXT: widths         D = 64, H = 160, x of type tensor<1x8x64xf32>
// REPORT-NEXT: weights        gate [160, 64] out_in, up [160, 64] out_in, down [64, 160] out_in
// REPORT-NEXT: biases         none
// REPORT: block 2 at {{.*}}decoder-2layer.handmade.mlir:{{[0-9]+}}:{{[0-9]+}} -> entry points @decoder.mlp1.*
// REPORT-NEXT: activation     silu
// REPORT-NOT: block 3

// PLAN-NOT: func.func @decoder(
// PLAN-DAG: func.func @decoder.mlp0.forward(
// PLAN-DAG: func.func @decoder.mlp0.backward(
// PLAN-DAG: func.func @decoder.mlp0.forward_nograd(
// PLAN-DAG: func.func @decoder.mlp1.forward(
// PLAN-DAG: func.func @decoder.mlp1.backward(
// PLAN-DAG: func.func @decoder.mlp1.forward_nograd(
// PLAN-NOT: linalg.batch_matmul

// A 2-layer decoder (D=64, H=160, 2 heads, 8 tokens) written by
// test/Frontends/handmade_model.py in the form of torch-mlir's linalg output.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#t2 = affine_map<(d0, d1) -> (d1, d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#drop0 = affine_map<(d0, d1, d2) -> (d1, d2)>
#rowsum = affine_map<(d0, d1, d2) -> (d0, d1)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#feat = affine_map<(d0, d1, d2) -> (d2)>
#swap12 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#perm4 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
func.func @decoder(%x: tensor<1x8x64xf32>, %l0_attn_norm: tensor<64xf32>, %l0_wq: tensor<64x64xf32>, %l0_wk: tensor<64x64xf32>, %l0_wv: tensor<64x64xf32>, %l0_wo: tensor<64x64xf32>, %l0_mlp_norm: tensor<64xf32>, %l0_wg: tensor<160x64xf32>, %l0_wu: tensor<160x64xf32>, %l0_wd: tensor<64x160xf32>, %l1_attn_norm: tensor<64xf32>, %l1_wq: tensor<64x64xf32>, %l1_wk: tensor<64x64xf32>, %l1_wv: tensor<64x64xf32>, %l1_wo: tensor<64x64xf32>, %l1_mlp_norm: tensor<64xf32>, %l1_wg: tensor<160x64xf32>, %l1_wu: tensor<160x64xf32>, %l1_wd: tensor<64x160xf32>, %final_norm: tensor<64xf32>) -> tensor<1x8x64xf32> {
    %cst_zero = arith.constant 0.0 : f32
    %cst_one = arith.constant 1.0 : f32
    %cst_d = arith.constant 64.0 : f32
    %cst_eps = arith.constant 1.0e-06 : f32
    %cst_ninf = arith.constant 0xFF800000 : f32
    %cst_scale = arith.constant 0.17677669529663687 : f32
    %empty1 = tensor.empty() : tensor<1x8xf32>
    %zero2 = linalg.fill ins(%cst_zero : f32) outs(%empty1 : tensor<1x8xf32>) -> tensor<1x8xf32>
    %sq3 = linalg.generic {indexing_maps = [#id3, #rowsum], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x8x64xf32>) outs(%zero2 : tensor<1x8xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %m = arith.mulf %in0, %in0 : f32
      %s = arith.addf %m, %out : f32
      linalg.yield %s : f32
    } -> tensor<1x8xf32>
    %empty4 = tensor.empty() : tensor<1x8x64xf32>
    %norm5 = linalg.generic {indexing_maps = [#id3, #row, #feat, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %sq3, %l0_attn_norm : tensor<1x8x64xf32>, tensor<1x8xf32>, tensor<64xf32>) outs(%empty4 : tensor<1x8x64xf32>) {
    ^bb0(%in0: f32, %in1: f32, %in2: f32, %out: f32):
      %mean = arith.divf %in1, %cst_d : f32
      %eps = arith.addf %mean, %cst_eps : f32
      %r = math.rsqrt %eps : f32
      %n = arith.mulf %in0, %r : f32
      %s = arith.mulf %n, %in2 : f32
      linalg.yield %s : f32
    } -> tensor<1x8x64xf32>
    %empty6 = tensor.empty() : tensor<64x64xf32>
    %wt7 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l0_wq : tensor<64x64xf32>) outs(%empty6 : tensor<64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x64xf32>
    %empty8 = tensor.empty() : tensor<1x64x64xf32>
    %wb9 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt7 : tensor<64x64xf32>) outs(%empty8 : tensor<1x64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x64xf32>
    %empty11 = tensor.empty() : tensor<1x8x64xf32>
    %zero12 = linalg.fill ins(%cst_zero : f32) outs(%empty11 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %mm10 = linalg.batch_matmul ins(%norm5, %wb9 : tensor<1x8x64xf32>, tensor<1x64x64xf32>) outs(%zero12 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %empty13 = tensor.empty() : tensor<64x64xf32>
    %wt14 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l0_wk : tensor<64x64xf32>) outs(%empty13 : tensor<64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x64xf32>
    %empty15 = tensor.empty() : tensor<1x64x64xf32>
    %wb16 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt14 : tensor<64x64xf32>) outs(%empty15 : tensor<1x64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x64xf32>
    %empty18 = tensor.empty() : tensor<1x8x64xf32>
    %zero19 = linalg.fill ins(%cst_zero : f32) outs(%empty18 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %mm17 = linalg.batch_matmul ins(%norm5, %wb16 : tensor<1x8x64xf32>, tensor<1x64x64xf32>) outs(%zero19 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %empty20 = tensor.empty() : tensor<64x64xf32>
    %wt21 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l0_wv : tensor<64x64xf32>) outs(%empty20 : tensor<64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x64xf32>
    %empty22 = tensor.empty() : tensor<1x64x64xf32>
    %wb23 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt21 : tensor<64x64xf32>) outs(%empty22 : tensor<1x64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x64xf32>
    %empty25 = tensor.empty() : tensor<1x8x64xf32>
    %zero26 = linalg.fill ins(%cst_zero : f32) outs(%empty25 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %mm24 = linalg.batch_matmul ins(%norm5, %wb23 : tensor<1x8x64xf32>, tensor<1x64x64xf32>) outs(%zero26 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %heads27 = tensor.expand_shape %mm10 [[0], [1], [2, 3]] output_shape [1, 8, 2, 32] : tensor<1x8x64xf32> into tensor<1x8x2x32xf32>
    %empty28 = tensor.empty() : tensor<1x2x8x32xf32>
    %perm29 = linalg.generic {indexing_maps = [#perm4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%heads27 : tensor<1x8x2x32xf32>) outs(%empty28 : tensor<1x2x8x32xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x2x8x32xf32>
    %bh30 = tensor.collapse_shape %perm29 [[0, 1], [2], [3]] : tensor<1x2x8x32xf32> into tensor<2x8x32xf32>
    %heads31 = tensor.expand_shape %mm17 [[0], [1], [2, 3]] output_shape [1, 8, 2, 32] : tensor<1x8x64xf32> into tensor<1x8x2x32xf32>
    %empty32 = tensor.empty() : tensor<1x2x8x32xf32>
    %perm33 = linalg.generic {indexing_maps = [#perm4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%heads31 : tensor<1x8x2x32xf32>) outs(%empty32 : tensor<1x2x8x32xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x2x8x32xf32>
    %bh34 = tensor.collapse_shape %perm33 [[0, 1], [2], [3]] : tensor<1x2x8x32xf32> into tensor<2x8x32xf32>
    %heads35 = tensor.expand_shape %mm24 [[0], [1], [2, 3]] output_shape [1, 8, 2, 32] : tensor<1x8x64xf32> into tensor<1x8x2x32xf32>
    %empty36 = tensor.empty() : tensor<1x2x8x32xf32>
    %perm37 = linalg.generic {indexing_maps = [#perm4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%heads35 : tensor<1x8x2x32xf32>) outs(%empty36 : tensor<1x2x8x32xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x2x8x32xf32>
    %bh38 = tensor.collapse_shape %perm37 [[0, 1], [2], [3]] : tensor<1x2x8x32xf32> into tensor<2x8x32xf32>
    %empty39 = tensor.empty() : tensor<2x32x8xf32>
    %kt40 = linalg.generic {indexing_maps = [#swap12, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bh34 : tensor<2x8x32xf32>) outs(%empty39 : tensor<2x32x8xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<2x32x8xf32>
    %empty42 = tensor.empty() : tensor<2x8x8xf32>
    %zero43 = linalg.fill ins(%cst_zero : f32) outs(%empty42 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %scores41 = linalg.batch_matmul ins(%bh30, %kt40 : tensor<2x8x32xf32>, tensor<2x32x8xf32>) outs(%zero43 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %empty45 = tensor.empty() : tensor<2x8xf32>
    %max44_init = linalg.fill ins(%cst_ninf : f32) outs(%empty45 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %rowmax46 = linalg.generic {indexing_maps = [#id3, #rowsum], iterator_types = ["parallel", "parallel", "reduction"]} ins(%scores41 : tensor<2x8x8xf32>) outs(%max44_init : tensor<2x8xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %m = arith.maximumf %in0, %out : f32
      linalg.yield %m : f32
    } -> tensor<2x8xf32>
    %empty47 = tensor.empty() : tensor<2x8x8xf32>
    %exp48 = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%scores41, %rowmax46 : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%empty47 : tensor<2x8x8xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %d = arith.subf %in0, %in1 : f32
      %s = arith.mulf %d, %cst_scale : f32
      %e = math.exp %s : f32
      linalg.yield %e : f32
    } -> tensor<2x8x8xf32>
    %empty49 = tensor.empty() : tensor<2x8xf32>
    %zero50 = linalg.fill ins(%cst_zero : f32) outs(%empty49 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %rowsum51 = linalg.generic {indexing_maps = [#id3, #rowsum], iterator_types = ["parallel", "parallel", "reduction"]} ins(%exp48 : tensor<2x8x8xf32>) outs(%zero50 : tensor<2x8xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %s = arith.addf %in0, %out : f32
      linalg.yield %s : f32
    } -> tensor<2x8xf32>
    %empty52 = tensor.empty() : tensor<2x8x8xf32>
    %softmax53 = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%exp48, %rowsum51 : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%empty52 : tensor<2x8x8xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %d = arith.divf %in0, %in1 : f32
      linalg.yield %d : f32
    } -> tensor<2x8x8xf32>
    %empty55 = tensor.empty() : tensor<2x8x32xf32>
    %zero56 = linalg.fill ins(%cst_zero : f32) outs(%empty55 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
    %attn54 = linalg.batch_matmul ins(%softmax53, %bh38 : tensor<2x8x8xf32>, tensor<2x8x32xf32>) outs(%zero56 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
    %oh57 = tensor.expand_shape %attn54 [[0, 1], [2], [3]] output_shape [1, 2, 8, 32] : tensor<2x8x32xf32> into tensor<1x2x8x32xf32>
    %empty58 = tensor.empty() : tensor<1x8x2x32xf32>
    %unperm59 = linalg.generic {indexing_maps = [#perm4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%oh57 : tensor<1x2x8x32xf32>) outs(%empty58 : tensor<1x8x2x32xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x8x2x32xf32>
    %merged60 = tensor.collapse_shape %unperm59 [[0], [1], [2, 3]] : tensor<1x8x2x32xf32> into tensor<1x8x64xf32>
    %empty61 = tensor.empty() : tensor<64x64xf32>
    %wt62 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l0_wo : tensor<64x64xf32>) outs(%empty61 : tensor<64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x64xf32>
    %empty63 = tensor.empty() : tensor<1x64x64xf32>
    %wb64 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt62 : tensor<64x64xf32>) outs(%empty63 : tensor<1x64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x64xf32>
    %empty66 = tensor.empty() : tensor<1x8x64xf32>
    %zero67 = linalg.fill ins(%cst_zero : f32) outs(%empty66 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %mm65 = linalg.batch_matmul ins(%merged60, %wb64 : tensor<1x8x64xf32>, tensor<1x64x64xf32>) outs(%zero67 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %empty68 = tensor.empty() : tensor<1x8x64xf32>
    %res69 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %mm65 : tensor<1x8x64xf32>, tensor<1x8x64xf32>) outs(%empty68 : tensor<1x8x64xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %s = arith.addf %in0, %in1 : f32
      linalg.yield %s : f32
    } -> tensor<1x8x64xf32>
    %empty70 = tensor.empty() : tensor<1x8xf32>
    %zero71 = linalg.fill ins(%cst_zero : f32) outs(%empty70 : tensor<1x8xf32>) -> tensor<1x8xf32>
    %sq72 = linalg.generic {indexing_maps = [#id3, #rowsum], iterator_types = ["parallel", "parallel", "reduction"]} ins(%res69 : tensor<1x8x64xf32>) outs(%zero71 : tensor<1x8xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %m = arith.mulf %in0, %in0 : f32
      %s = arith.addf %m, %out : f32
      linalg.yield %s : f32
    } -> tensor<1x8xf32>
    %empty73 = tensor.empty() : tensor<1x8x64xf32>
    %norm74 = linalg.generic {indexing_maps = [#id3, #row, #feat, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%res69, %sq72, %l0_mlp_norm : tensor<1x8x64xf32>, tensor<1x8xf32>, tensor<64xf32>) outs(%empty73 : tensor<1x8x64xf32>) {
    ^bb0(%in0: f32, %in1: f32, %in2: f32, %out: f32):
      %mean = arith.divf %in1, %cst_d : f32
      %eps = arith.addf %mean, %cst_eps : f32
      %r = math.rsqrt %eps : f32
      %n = arith.mulf %in0, %r : f32
      %s = arith.mulf %n, %in2 : f32
      linalg.yield %s : f32
    } -> tensor<1x8x64xf32>
    %empty75 = tensor.empty() : tensor<64x160xf32>
    %wt76 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l0_wg : tensor<160x64xf32>) outs(%empty75 : tensor<64x160xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x160xf32>
    %empty77 = tensor.empty() : tensor<1x64x160xf32>
    %wb78 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt76 : tensor<64x160xf32>) outs(%empty77 : tensor<1x64x160xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x160xf32>
    %empty80 = tensor.empty() : tensor<1x8x160xf32>
    %zero81 = linalg.fill ins(%cst_zero : f32) outs(%empty80 : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
    %mm79 = linalg.batch_matmul ins(%norm74, %wb78 : tensor<1x8x64xf32>, tensor<1x64x160xf32>) outs(%zero81 : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
    %empty82 = tensor.empty() : tensor<64x160xf32>
    %wt83 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l0_wu : tensor<160x64xf32>) outs(%empty82 : tensor<64x160xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x160xf32>
    %empty84 = tensor.empty() : tensor<1x64x160xf32>
    %wb85 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt83 : tensor<64x160xf32>) outs(%empty84 : tensor<1x64x160xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x160xf32>
    %empty87 = tensor.empty() : tensor<1x8x160xf32>
    %zero88 = linalg.fill ins(%cst_zero : f32) outs(%empty87 : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
    %mm86 = linalg.batch_matmul ins(%norm74, %wb85 : tensor<1x8x64xf32>, tensor<1x64x160xf32>) outs(%zero88 : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
    %empty89 = tensor.empty() : tensor<1x8x160xf32>
    %sigmoid90 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm79 : tensor<1x8x160xf32>) outs(%empty89 : tensor<1x8x160xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %n = arith.negf %in0 : f32
      %e = math.exp %n : f32
      %d = arith.addf %e, %cst_one : f32
      %r = arith.divf %cst_one, %d : f32
      linalg.yield %r : f32
    } -> tensor<1x8x160xf32>
    %empty91 = tensor.empty() : tensor<1x8x160xf32>
    %silu92 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm79, %sigmoid90 : tensor<1x8x160xf32>, tensor<1x8x160xf32>) outs(%empty91 : tensor<1x8x160xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %m = arith.mulf %in0, %in1 : f32
      linalg.yield %m : f32
    } -> tensor<1x8x160xf32>
    %empty93 = tensor.empty() : tensor<1x8x160xf32>
    %prod94 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%silu92, %mm86 : tensor<1x8x160xf32>, tensor<1x8x160xf32>) outs(%empty93 : tensor<1x8x160xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %m = arith.mulf %in0, %in1 : f32
      linalg.yield %m : f32
    } -> tensor<1x8x160xf32>
    %empty95 = tensor.empty() : tensor<160x64xf32>
    %wt96 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l0_wd : tensor<64x160xf32>) outs(%empty95 : tensor<160x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<160x64xf32>
    %empty97 = tensor.empty() : tensor<1x160x64xf32>
    %wb98 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt96 : tensor<160x64xf32>) outs(%empty97 : tensor<1x160x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x160x64xf32>
    %empty100 = tensor.empty() : tensor<1x8x64xf32>
    %zero101 = linalg.fill ins(%cst_zero : f32) outs(%empty100 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %mm99 = linalg.batch_matmul ins(%prod94, %wb98 : tensor<1x8x160xf32>, tensor<1x160x64xf32>) outs(%zero101 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %empty102 = tensor.empty() : tensor<1x8x64xf32>
    %res103 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%res69, %mm99 : tensor<1x8x64xf32>, tensor<1x8x64xf32>) outs(%empty102 : tensor<1x8x64xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %s = arith.addf %in0, %in1 : f32
      linalg.yield %s : f32
    } -> tensor<1x8x64xf32>
    %empty104 = tensor.empty() : tensor<1x8xf32>
    %zero105 = linalg.fill ins(%cst_zero : f32) outs(%empty104 : tensor<1x8xf32>) -> tensor<1x8xf32>
    %sq106 = linalg.generic {indexing_maps = [#id3, #rowsum], iterator_types = ["parallel", "parallel", "reduction"]} ins(%res103 : tensor<1x8x64xf32>) outs(%zero105 : tensor<1x8xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %m = arith.mulf %in0, %in0 : f32
      %s = arith.addf %m, %out : f32
      linalg.yield %s : f32
    } -> tensor<1x8xf32>
    %empty107 = tensor.empty() : tensor<1x8x64xf32>
    %norm108 = linalg.generic {indexing_maps = [#id3, #row, #feat, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%res103, %sq106, %l1_attn_norm : tensor<1x8x64xf32>, tensor<1x8xf32>, tensor<64xf32>) outs(%empty107 : tensor<1x8x64xf32>) {
    ^bb0(%in0: f32, %in1: f32, %in2: f32, %out: f32):
      %mean = arith.divf %in1, %cst_d : f32
      %eps = arith.addf %mean, %cst_eps : f32
      %r = math.rsqrt %eps : f32
      %n = arith.mulf %in0, %r : f32
      %s = arith.mulf %n, %in2 : f32
      linalg.yield %s : f32
    } -> tensor<1x8x64xf32>
    %empty109 = tensor.empty() : tensor<64x64xf32>
    %wt110 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l1_wq : tensor<64x64xf32>) outs(%empty109 : tensor<64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x64xf32>
    %empty111 = tensor.empty() : tensor<1x64x64xf32>
    %wb112 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt110 : tensor<64x64xf32>) outs(%empty111 : tensor<1x64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x64xf32>
    %empty114 = tensor.empty() : tensor<1x8x64xf32>
    %zero115 = linalg.fill ins(%cst_zero : f32) outs(%empty114 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %mm113 = linalg.batch_matmul ins(%norm108, %wb112 : tensor<1x8x64xf32>, tensor<1x64x64xf32>) outs(%zero115 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %empty116 = tensor.empty() : tensor<64x64xf32>
    %wt117 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l1_wk : tensor<64x64xf32>) outs(%empty116 : tensor<64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x64xf32>
    %empty118 = tensor.empty() : tensor<1x64x64xf32>
    %wb119 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt117 : tensor<64x64xf32>) outs(%empty118 : tensor<1x64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x64xf32>
    %empty121 = tensor.empty() : tensor<1x8x64xf32>
    %zero122 = linalg.fill ins(%cst_zero : f32) outs(%empty121 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %mm120 = linalg.batch_matmul ins(%norm108, %wb119 : tensor<1x8x64xf32>, tensor<1x64x64xf32>) outs(%zero122 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %empty123 = tensor.empty() : tensor<64x64xf32>
    %wt124 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l1_wv : tensor<64x64xf32>) outs(%empty123 : tensor<64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x64xf32>
    %empty125 = tensor.empty() : tensor<1x64x64xf32>
    %wb126 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt124 : tensor<64x64xf32>) outs(%empty125 : tensor<1x64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x64xf32>
    %empty128 = tensor.empty() : tensor<1x8x64xf32>
    %zero129 = linalg.fill ins(%cst_zero : f32) outs(%empty128 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %mm127 = linalg.batch_matmul ins(%norm108, %wb126 : tensor<1x8x64xf32>, tensor<1x64x64xf32>) outs(%zero129 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %heads130 = tensor.expand_shape %mm113 [[0], [1], [2, 3]] output_shape [1, 8, 2, 32] : tensor<1x8x64xf32> into tensor<1x8x2x32xf32>
    %empty131 = tensor.empty() : tensor<1x2x8x32xf32>
    %perm132 = linalg.generic {indexing_maps = [#perm4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%heads130 : tensor<1x8x2x32xf32>) outs(%empty131 : tensor<1x2x8x32xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x2x8x32xf32>
    %bh133 = tensor.collapse_shape %perm132 [[0, 1], [2], [3]] : tensor<1x2x8x32xf32> into tensor<2x8x32xf32>
    %heads134 = tensor.expand_shape %mm120 [[0], [1], [2, 3]] output_shape [1, 8, 2, 32] : tensor<1x8x64xf32> into tensor<1x8x2x32xf32>
    %empty135 = tensor.empty() : tensor<1x2x8x32xf32>
    %perm136 = linalg.generic {indexing_maps = [#perm4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%heads134 : tensor<1x8x2x32xf32>) outs(%empty135 : tensor<1x2x8x32xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x2x8x32xf32>
    %bh137 = tensor.collapse_shape %perm136 [[0, 1], [2], [3]] : tensor<1x2x8x32xf32> into tensor<2x8x32xf32>
    %heads138 = tensor.expand_shape %mm127 [[0], [1], [2, 3]] output_shape [1, 8, 2, 32] : tensor<1x8x64xf32> into tensor<1x8x2x32xf32>
    %empty139 = tensor.empty() : tensor<1x2x8x32xf32>
    %perm140 = linalg.generic {indexing_maps = [#perm4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%heads138 : tensor<1x8x2x32xf32>) outs(%empty139 : tensor<1x2x8x32xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x2x8x32xf32>
    %bh141 = tensor.collapse_shape %perm140 [[0, 1], [2], [3]] : tensor<1x2x8x32xf32> into tensor<2x8x32xf32>
    %empty142 = tensor.empty() : tensor<2x32x8xf32>
    %kt143 = linalg.generic {indexing_maps = [#swap12, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bh137 : tensor<2x8x32xf32>) outs(%empty142 : tensor<2x32x8xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<2x32x8xf32>
    %empty145 = tensor.empty() : tensor<2x8x8xf32>
    %zero146 = linalg.fill ins(%cst_zero : f32) outs(%empty145 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %scores144 = linalg.batch_matmul ins(%bh133, %kt143 : tensor<2x8x32xf32>, tensor<2x32x8xf32>) outs(%zero146 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %empty148 = tensor.empty() : tensor<2x8xf32>
    %max147_init = linalg.fill ins(%cst_ninf : f32) outs(%empty148 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %rowmax149 = linalg.generic {indexing_maps = [#id3, #rowsum], iterator_types = ["parallel", "parallel", "reduction"]} ins(%scores144 : tensor<2x8x8xf32>) outs(%max147_init : tensor<2x8xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %m = arith.maximumf %in0, %out : f32
      linalg.yield %m : f32
    } -> tensor<2x8xf32>
    %empty150 = tensor.empty() : tensor<2x8x8xf32>
    %exp151 = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%scores144, %rowmax149 : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%empty150 : tensor<2x8x8xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %d = arith.subf %in0, %in1 : f32
      %s = arith.mulf %d, %cst_scale : f32
      %e = math.exp %s : f32
      linalg.yield %e : f32
    } -> tensor<2x8x8xf32>
    %empty152 = tensor.empty() : tensor<2x8xf32>
    %zero153 = linalg.fill ins(%cst_zero : f32) outs(%empty152 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %rowsum154 = linalg.generic {indexing_maps = [#id3, #rowsum], iterator_types = ["parallel", "parallel", "reduction"]} ins(%exp151 : tensor<2x8x8xf32>) outs(%zero153 : tensor<2x8xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %s = arith.addf %in0, %out : f32
      linalg.yield %s : f32
    } -> tensor<2x8xf32>
    %empty155 = tensor.empty() : tensor<2x8x8xf32>
    %softmax156 = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%exp151, %rowsum154 : tensor<2x8x8xf32>, tensor<2x8xf32>) outs(%empty155 : tensor<2x8x8xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %d = arith.divf %in0, %in1 : f32
      linalg.yield %d : f32
    } -> tensor<2x8x8xf32>
    %empty158 = tensor.empty() : tensor<2x8x32xf32>
    %zero159 = linalg.fill ins(%cst_zero : f32) outs(%empty158 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
    %attn157 = linalg.batch_matmul ins(%softmax156, %bh141 : tensor<2x8x8xf32>, tensor<2x8x32xf32>) outs(%zero159 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
    %oh160 = tensor.expand_shape %attn157 [[0, 1], [2], [3]] output_shape [1, 2, 8, 32] : tensor<2x8x32xf32> into tensor<1x2x8x32xf32>
    %empty161 = tensor.empty() : tensor<1x8x2x32xf32>
    %unperm162 = linalg.generic {indexing_maps = [#perm4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%oh160 : tensor<1x2x8x32xf32>) outs(%empty161 : tensor<1x8x2x32xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x8x2x32xf32>
    %merged163 = tensor.collapse_shape %unperm162 [[0], [1], [2, 3]] : tensor<1x8x2x32xf32> into tensor<1x8x64xf32>
    %empty164 = tensor.empty() : tensor<64x64xf32>
    %wt165 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l1_wo : tensor<64x64xf32>) outs(%empty164 : tensor<64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x64xf32>
    %empty166 = tensor.empty() : tensor<1x64x64xf32>
    %wb167 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt165 : tensor<64x64xf32>) outs(%empty166 : tensor<1x64x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x64xf32>
    %empty169 = tensor.empty() : tensor<1x8x64xf32>
    %zero170 = linalg.fill ins(%cst_zero : f32) outs(%empty169 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %mm168 = linalg.batch_matmul ins(%merged163, %wb167 : tensor<1x8x64xf32>, tensor<1x64x64xf32>) outs(%zero170 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %empty171 = tensor.empty() : tensor<1x8x64xf32>
    %res172 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%res103, %mm168 : tensor<1x8x64xf32>, tensor<1x8x64xf32>) outs(%empty171 : tensor<1x8x64xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %s = arith.addf %in0, %in1 : f32
      linalg.yield %s : f32
    } -> tensor<1x8x64xf32>
    %empty173 = tensor.empty() : tensor<1x8xf32>
    %zero174 = linalg.fill ins(%cst_zero : f32) outs(%empty173 : tensor<1x8xf32>) -> tensor<1x8xf32>
    %sq175 = linalg.generic {indexing_maps = [#id3, #rowsum], iterator_types = ["parallel", "parallel", "reduction"]} ins(%res172 : tensor<1x8x64xf32>) outs(%zero174 : tensor<1x8xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %m = arith.mulf %in0, %in0 : f32
      %s = arith.addf %m, %out : f32
      linalg.yield %s : f32
    } -> tensor<1x8xf32>
    %empty176 = tensor.empty() : tensor<1x8x64xf32>
    %norm177 = linalg.generic {indexing_maps = [#id3, #row, #feat, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%res172, %sq175, %l1_mlp_norm : tensor<1x8x64xf32>, tensor<1x8xf32>, tensor<64xf32>) outs(%empty176 : tensor<1x8x64xf32>) {
    ^bb0(%in0: f32, %in1: f32, %in2: f32, %out: f32):
      %mean = arith.divf %in1, %cst_d : f32
      %eps = arith.addf %mean, %cst_eps : f32
      %r = math.rsqrt %eps : f32
      %n = arith.mulf %in0, %r : f32
      %s = arith.mulf %n, %in2 : f32
      linalg.yield %s : f32
    } -> tensor<1x8x64xf32>
    %empty178 = tensor.empty() : tensor<64x160xf32>
    %wt179 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l1_wg : tensor<160x64xf32>) outs(%empty178 : tensor<64x160xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x160xf32>
    %empty180 = tensor.empty() : tensor<1x64x160xf32>
    %wb181 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt179 : tensor<64x160xf32>) outs(%empty180 : tensor<1x64x160xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x160xf32>
    %empty183 = tensor.empty() : tensor<1x8x160xf32>
    %zero184 = linalg.fill ins(%cst_zero : f32) outs(%empty183 : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
    %mm182 = linalg.batch_matmul ins(%norm177, %wb181 : tensor<1x8x64xf32>, tensor<1x64x160xf32>) outs(%zero184 : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
    %empty185 = tensor.empty() : tensor<64x160xf32>
    %wt186 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l1_wu : tensor<160x64xf32>) outs(%empty185 : tensor<64x160xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<64x160xf32>
    %empty187 = tensor.empty() : tensor<1x64x160xf32>
    %wb188 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt186 : tensor<64x160xf32>) outs(%empty187 : tensor<1x64x160xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x64x160xf32>
    %empty190 = tensor.empty() : tensor<1x8x160xf32>
    %zero191 = linalg.fill ins(%cst_zero : f32) outs(%empty190 : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
    %mm189 = linalg.batch_matmul ins(%norm177, %wb188 : tensor<1x8x64xf32>, tensor<1x64x160xf32>) outs(%zero191 : tensor<1x8x160xf32>) -> tensor<1x8x160xf32>
    %empty192 = tensor.empty() : tensor<1x8x160xf32>
    %sigmoid193 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm182 : tensor<1x8x160xf32>) outs(%empty192 : tensor<1x8x160xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %n = arith.negf %in0 : f32
      %e = math.exp %n : f32
      %d = arith.addf %e, %cst_one : f32
      %r = arith.divf %cst_one, %d : f32
      linalg.yield %r : f32
    } -> tensor<1x8x160xf32>
    %empty194 = tensor.empty() : tensor<1x8x160xf32>
    %silu195 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm182, %sigmoid193 : tensor<1x8x160xf32>, tensor<1x8x160xf32>) outs(%empty194 : tensor<1x8x160xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %m = arith.mulf %in0, %in1 : f32
      linalg.yield %m : f32
    } -> tensor<1x8x160xf32>
    %empty196 = tensor.empty() : tensor<1x8x160xf32>
    %prod197 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%silu195, %mm189 : tensor<1x8x160xf32>, tensor<1x8x160xf32>) outs(%empty196 : tensor<1x8x160xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %m = arith.mulf %in0, %in1 : f32
      linalg.yield %m : f32
    } -> tensor<1x8x160xf32>
    %empty198 = tensor.empty() : tensor<160x64xf32>
    %wt199 = linalg.generic {indexing_maps = [#t2, #id2], iterator_types = ["parallel", "parallel"]} ins(%l1_wd : tensor<64x160xf32>) outs(%empty198 : tensor<160x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<160x64xf32>
    %empty200 = tensor.empty() : tensor<1x160x64xf32>
    %wb201 = linalg.generic {indexing_maps = [#drop0, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wt199 : tensor<160x64xf32>) outs(%empty200 : tensor<1x160x64xf32>) {
    ^bb0(%in0: f32, %out: f32):
      linalg.yield %in0 : f32
    } -> tensor<1x160x64xf32>
    %empty203 = tensor.empty() : tensor<1x8x64xf32>
    %zero204 = linalg.fill ins(%cst_zero : f32) outs(%empty203 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %mm202 = linalg.batch_matmul ins(%prod197, %wb201 : tensor<1x8x160xf32>, tensor<1x160x64xf32>) outs(%zero204 : tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
    %empty205 = tensor.empty() : tensor<1x8x64xf32>
    %res206 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%res172, %mm202 : tensor<1x8x64xf32>, tensor<1x8x64xf32>) outs(%empty205 : tensor<1x8x64xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %s = arith.addf %in0, %in1 : f32
      linalg.yield %s : f32
    } -> tensor<1x8x64xf32>
    %empty207 = tensor.empty() : tensor<1x8xf32>
    %zero208 = linalg.fill ins(%cst_zero : f32) outs(%empty207 : tensor<1x8xf32>) -> tensor<1x8xf32>
    %sq209 = linalg.generic {indexing_maps = [#id3, #rowsum], iterator_types = ["parallel", "parallel", "reduction"]} ins(%res206 : tensor<1x8x64xf32>) outs(%zero208 : tensor<1x8xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %m = arith.mulf %in0, %in0 : f32
      %s = arith.addf %m, %out : f32
      linalg.yield %s : f32
    } -> tensor<1x8xf32>
    %empty210 = tensor.empty() : tensor<1x8x64xf32>
    %norm211 = linalg.generic {indexing_maps = [#id3, #row, #feat, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%res206, %sq209, %final_norm : tensor<1x8x64xf32>, tensor<1x8xf32>, tensor<64xf32>) outs(%empty210 : tensor<1x8x64xf32>) {
    ^bb0(%in0: f32, %in1: f32, %in2: f32, %out: f32):
      %mean = arith.divf %in1, %cst_d : f32
      %eps = arith.addf %mean, %cst_eps : f32
      %r = math.rsqrt %eps : f32
      %n = arith.mulf %in0, %r : f32
      %s = arith.mulf %n, %in2 : f32
      linalg.yield %s : f32
    } -> tensor<1x8x64xf32>
    return %norm211 : tensor<1x8x64xf32>
}
