// fmlp-run compiles the block inside this layer (the residual add around it
// is not compiled), runs its entry points on the CPU and judges every output
// by the error bound; with save=x and chunks too. Without a block it says so.
// RUN: fmlp-run %s --tokens=11 | FileCheck %s
// RUN: fmlp-run %s --tokens=11 --save=x --chunk-tokens=4 | FileCheck %s --check-prefix=CHUNKED
// RUN: not fmlp-run %fmlp_src_root/test/Dialect/FMLP/kernel-ops.mlir 2>&1 | FileCheck %s --check-prefix=NO-BLOCK
// RUN: not fmlp-run %s --save=everything 2>&1 | FileCheck %s --check-prefix=BAD-OPTION

// CHECK: block: relu, D = 96, H = 200; mode=train save=agu chunk-tokens=0
// CHECK: layer.forward(x[T, 96], gate[96, 200], up[96, 200], down[200, 96], y[T, 96], saved[T, 600])
// CHECK: saved for backward   26,400 B
// CHECK: y {{.*}} pass
// CHECK: dx {{.*}} pass
// CHECK: d_gate {{.*}} pass
// CHECK: d_up {{.*}} pass
// CHECK: d_down {{.*}} pass
// CHECK: y_nograd {{.*}} pass
// CHECK: all outputs within their bounds
// CHUNKED: layer.backward({{.*}}workspace[4, 600])
// CHUNKED: all outputs within their bounds
// NO-BLOCK: no gated MLP block found
// BAD-OPTION: save must be one of agu, gu, x, got 'everything'
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @layer(%x: tensor<?x96xf32>, %wg: tensor<96x200xf32>, %wu: tensor<96x200xf32>, %wd: tensor<200x96xf32>) -> tensor<?x96xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %t = tensor.dim %x, %c0 : tensor<?x96xf32>
  %e_th = tensor.empty(%t) : tensor<?x200xf32>
  %z_th = linalg.fill ins(%zero : f32) outs(%e_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %g = linalg.matmul ins(%x, %wg : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %u = linalg.matmul ins(%x, %wu : tensor<?x96xf32>, tensor<96x200xf32>) outs(%z_th : tensor<?x200xf32>) -> tensor<?x200xf32>
  %r = arith.maximumf %g, %z_th : tensor<?x200xf32>
  %a = arith.mulf %r, %u : tensor<?x200xf32>
  %e_td = tensor.empty(%t) : tensor<?x96xf32>
  %z_td = linalg.fill ins(%zero : f32) outs(%e_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %y = linalg.matmul ins(%a, %wd : tensor<?x200xf32>, tensor<200x96xf32>) outs(%z_td : tensor<?x96xf32>) -> tensor<?x96xf32>
  %res = arith.addf %x, %y : tensor<?x96xf32>
  return %res : tensor<?x96xf32>
}
