// RUN: fmlp-opt %s --split-input-file --verify-diagnostics --fmlp-plan-memory | FileCheck %s
// RUN: fmlp-opt %s --split-input-file --verify-diagnostics --fmlp-plan-memory=chunk-tokens=16 | FileCheck %s --check-prefix=CHUNK

// save=agu: one saved buffer [T, 3H], each row A | G | U; the backward
// writes dG, dU over G, U (K3's outs are the G and U columns) and K4, K5
// read [dG dU] there. Outputs are caller-provided; nothing is allocated.
// CHECK-LABEL: func.func @mlp.forward
// CHECK-SAME: (%[[X:.+]]: memref<?x96xf32> {fmlp.name = "x"}, %{{.+}}: memref<200x96xf32> {fmlp.name = "gate"}, %{{.+}}: memref<200x96xf32> {fmlp.name = "up"}, %{{.+}}: memref<96x200xf32> {fmlp.name = "down"}, %[[Y:.+]]: memref<?x96xf32> {fmlp.name = "y"}, %[[SAVED:.+]]: memref<?x600xf32> {fmlp.name = "saved", fmlp.saved = "agu"})
// CHECK-SAME: fmlp.saved_columns = 600 : i64, fmlp.workspace_columns = 0 : i64
// CHECK-DAG: %[[A:.+]] = memref.subview %[[SAVED]][0, 0] [%{{.+}}, 200] [1, 1]
// CHECK-DAG: %[[G:.+]] = memref.subview %[[SAVED]][0, 200] [%{{.+}}, 200] [1, 1]
// CHECK-DAG: %[[U:.+]] = memref.subview %[[SAVED]][0, 400] [%{{.+}}, 200] [1, 1]
// CHECK: fmlp.gate_up silu ins(%[[X]], {{.*}}) outs(%[[A]], %[[G]], %[[U]] :
// CHECK-NEXT: fmlp.down ins(%[[A]], {{.*}}) outs(%[[Y]] :
// CHECK-NEXT: return
// CHECK-NOT: memref.alloc
// CHECK-LABEL: func.func @mlp.backward
// CHECK-SAME: %[[DX:[^:]+]]: memref<?x96xf32> {fmlp.name = "dx"}, %[[DWG:[^:]+]]: memref<200x96xf32> {fmlp.name = "d_gate"}, %[[DWU:[^:]+]]: memref<200x96xf32> {fmlp.name = "d_up"}, %[[DWD:[^:]+]]: memref<96x200xf32> {fmlp.name = "d_down"}, %[[SAVED:[^:]+]]: memref<?x600xf32> {fmlp.consumed, fmlp.name = "saved", fmlp.saved = "agu"})
// CHECK-DAG: %[[A:.+]] = memref.subview %[[SAVED]][0, 0]
// CHECK-DAG: %[[G:.+]] = memref.subview %[[SAVED]][0, 200]
// CHECK-DAG: %[[U:.+]] = memref.subview %[[SAVED]][0, 400]
// CHECK: fmlp.down_grad silu ins(%{{.+}}, %{{.+}}, %[[G]], %[[U]] : {{.*}}) outs(%[[G]], %[[U]] :
// CHECK-NEXT: fmlp.down_weight_grad ins(%{{.+}}, %[[A]] : {{.*}}) outs(%[[DWD]] :
// CHECK-NEXT: fmlp.input_grad ins(%[[G]], %[[U]], {{.*}}) outs(%[[DX]] :
// CHECK-NEXT: fmlp.gate_up_weight_grad ins(%{{.+}}, %[[G]], %[[U]] : {{.*}}) outs(%[[DWG]], %[[DWU]] :
// The no-grad forward keeps A in the workspace.
// CHECK-LABEL: func.func @mlp.forward_nograd
// CHECK-SAME: %{{.+}}: memref<?x96xf32> {fmlp.name = "y"}, %[[WS:.+]]: memref<?x200xf32> {fmlp.name = "workspace"})
// CHECK-SAME: fmlp.workspace_columns = 200 : i64
// With chunking, only entries with a workspace loop over token chunks:
// CHUNK-LABEL: func.func @mlp.forward(
// CHUNK-NOT: scf.for
// CHUNK-LABEL: func.func @mlp.forward_nograd
// CHUNK-SAME: %[[WS:.+]]: memref<16x200xf32> {fmlp.name = "workspace"})
// CHUNK-SAME: fmlp.chunk_tokens = 16 : i64
// CHUNK: scf.for %[[OFF:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHUNK: %[[ROWS:.+]] = arith.minui
// CHUNK: memref.subview %arg0[%[[OFF]], 0] [%[[ROWS]], 96] [1, 1]
// CHUNK: fmlp.gate_up
// CHUNK: fmlp.down
  func.func @mlp.forward(%arg0: tensor<?x96xf32> {fmlp.name = "x"}, %arg1: tensor<200x96xf32> {fmlp.name = "gate"}, %arg2: tensor<200x96xf32> {fmlp.name = "up"}, %arg3: tensor<96x200xf32> {fmlp.name = "down"}) -> (tensor<?x96xf32> {fmlp.name = "y"}, tensor<?x200xf32> {fmlp.saved = "a"}, tensor<?x200xf32> {fmlp.saved = "g"}, tensor<?x200xf32> {fmlp.saved = "u"}) attributes {fmlp.entry = "forward", fmlp.save = "agu"} {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x96xf32>
    %0 = tensor.empty(%dim) : tensor<?x200xf32>
    %1:3 = fmlp.gate_up silu ins(%arg0, %arg1, %arg2 : tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>) outs(%0, %0, %0 : tensor<?x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>) -> tensor<?x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>
    %2 = tensor.empty(%dim) : tensor<?x96xf32>
    %3 = fmlp.down ins(%1#0, %arg3 : tensor<?x200xf32>, tensor<96x200xf32>) outs(%2 : tensor<?x96xf32>) -> tensor<?x96xf32>
    return %3, %1#0, %1#1, %1#2 : tensor<?x96xf32>, tensor<?x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>
  }
  func.func @mlp.backward(%arg0: tensor<?x96xf32> {fmlp.name = "x"}, %arg1: tensor<200x96xf32> {fmlp.name = "gate"}, %arg2: tensor<200x96xf32> {fmlp.name = "up"}, %arg3: tensor<96x200xf32> {fmlp.name = "down"}, %arg4: tensor<?x96xf32> {fmlp.name = "dy"}, %arg5: tensor<?x200xf32> {fmlp.saved = "a"}, %arg6: tensor<?x200xf32> {fmlp.saved = "g"}, %arg7: tensor<?x200xf32> {fmlp.saved = "u"}) -> (tensor<?x96xf32> {fmlp.name = "dx"}, tensor<200x96xf32> {fmlp.name = "d_gate"}, tensor<200x96xf32> {fmlp.name = "d_up"}, tensor<96x200xf32> {fmlp.name = "d_down"}) attributes {fmlp.entry = "backward", fmlp.save = "agu"} {
    %2:2 = fmlp.down_grad silu ins(%arg4, %arg3, %arg6, %arg7 : tensor<?x96xf32>, tensor<96x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>) outs(%arg6, %arg7 : tensor<?x200xf32>, tensor<?x200xf32>) -> tensor<?x200xf32>, tensor<?x200xf32>
    %0 = tensor.empty() : tensor<96x200xf32>
    %1 = fmlp.down_weight_grad ins(%arg4, %arg5 : tensor<?x96xf32>, tensor<?x200xf32>) outs(%0 : tensor<96x200xf32>) -> tensor<96x200xf32>
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg4, %c0 : tensor<?x96xf32>
    %3 = tensor.empty(%dim) : tensor<?x96xf32>
    %4 = fmlp.input_grad ins(%2#0, %2#1, %arg1, %arg2 : tensor<?x200xf32>, tensor<?x200xf32>, tensor<200x96xf32>, tensor<200x96xf32>) outs(%3 : tensor<?x96xf32>) -> tensor<?x96xf32>
    %5 = tensor.empty() : tensor<200x96xf32>
    %6:2 = fmlp.gate_up_weight_grad ins(%arg0, %2#0, %2#1 : tensor<?x96xf32>, tensor<?x200xf32>, tensor<?x200xf32>) outs(%5, %5 : tensor<200x96xf32>, tensor<200x96xf32>) -> tensor<200x96xf32>, tensor<200x96xf32>
    return %4, %6#0, %6#1, %1 : tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>
  }
  func.func @mlp.forward_nograd(%arg0: tensor<?x96xf32> {fmlp.name = "x"}, %arg1: tensor<200x96xf32> {fmlp.name = "gate"}, %arg2: tensor<200x96xf32> {fmlp.name = "up"}, %arg3: tensor<96x200xf32> {fmlp.name = "down"}) -> (tensor<?x96xf32> {fmlp.name = "y"}) attributes {fmlp.entry = "forward_nograd"} {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x96xf32>
    %0 = tensor.empty(%dim) : tensor<?x200xf32>
    %1 = fmlp.gate_up silu ins(%arg0, %arg1, %arg2 : tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>) outs(%0 : tensor<?x200xf32>) -> tensor<?x200xf32>
    %2 = tensor.empty(%dim) : tensor<?x96xf32>
    %3 = fmlp.down ins(%1, %arg3 : tensor<?x200xf32>, tensor<96x200xf32>) outs(%2 : tensor<?x96xf32>) -> tensor<?x96xf32>
    return %3 : tensor<?x96xf32>
  }

// -----

// save=x with chunks: the backward recomputes A, G, U into a [chunk, 3H]
// workspace per chunk; its weight gradients are zeroed, then accumulated.
// CHECK-LABEL: func.func @mlpx.backward
// CHECK-SAME: %{{.+}}: memref<?x600xf32> {fmlp.name = "workspace"})
// CHUNK-LABEL: func.func @mlpx.backward
// CHUNK-SAME: %[[DWG:[^:]+]]: memref<200x96xf32> {fmlp.name = "d_gate"}, %[[DWU:[^:]+]]: memref<200x96xf32> {fmlp.name = "d_up"}, %[[DWD:[^:]+]]: memref<96x200xf32> {fmlp.name = "d_down"}, %{{.+}}: memref<16x600xf32> {fmlp.name = "workspace"})
// CHUNK-DAG: linalg.fill ins(%{{.+}} : f32) outs(%[[DWD]] :
// CHUNK-DAG: linalg.fill ins(%{{.+}} : f32) outs(%[[DWG]] :
// CHUNK-DAG: linalg.fill ins(%{{.+}} : f32) outs(%[[DWU]] :
// CHUNK: scf.for
// CHUNK: fmlp.gate_up silu
// CHUNK: fmlp.down_grad
// CHUNK: fmlp.down_weight_grad {{.*}} outs(%[[DWD]] : memref<96x200xf32>) {accumulate}
// CHUNK: fmlp.input_grad
// CHUNK: fmlp.gate_up_weight_grad {{.*}} outs(%[[DWG]], %[[DWU]] : memref<200x96xf32>, memref<200x96xf32>) {accumulate}
  func.func @mlpx.backward(%arg0: tensor<?x96xf32> {fmlp.name = "x"}, %arg1: tensor<200x96xf32> {fmlp.name = "gate"}, %arg2: tensor<200x96xf32> {fmlp.name = "up"}, %arg3: tensor<96x200xf32> {fmlp.name = "down"}, %arg4: tensor<?x96xf32> {fmlp.name = "dy"}) -> (tensor<?x96xf32> {fmlp.name = "dx"}, tensor<200x96xf32> {fmlp.name = "d_gate"}, tensor<200x96xf32> {fmlp.name = "d_up"}, tensor<96x200xf32> {fmlp.name = "d_down"}) attributes {fmlp.entry = "backward", fmlp.save = "x"} {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x96xf32>
    %0 = tensor.empty(%dim) : tensor<?x200xf32>
    %1:3 = fmlp.gate_up silu ins(%arg0, %arg1, %arg2 : tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>) outs(%0, %0, %0 : tensor<?x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>) -> tensor<?x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>
    %4:2 = fmlp.down_grad silu ins(%arg4, %arg3, %1#1, %1#2 : tensor<?x96xf32>, tensor<96x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>) outs(%1#1, %1#2 : tensor<?x200xf32>, tensor<?x200xf32>) -> tensor<?x200xf32>, tensor<?x200xf32>
    %2 = tensor.empty() : tensor<96x200xf32>
    %3 = fmlp.down_weight_grad ins(%arg4, %1#0 : tensor<?x96xf32>, tensor<?x200xf32>) outs(%2 : tensor<96x200xf32>) -> tensor<96x200xf32>
    %dim_0 = tensor.dim %arg4, %c0 : tensor<?x96xf32>
    %5 = tensor.empty(%dim_0) : tensor<?x96xf32>
    %6 = fmlp.input_grad ins(%4#0, %4#1, %arg1, %arg2 : tensor<?x200xf32>, tensor<?x200xf32>, tensor<200x96xf32>, tensor<200x96xf32>) outs(%5 : tensor<?x96xf32>) -> tensor<?x96xf32>
    %7 = tensor.empty() : tensor<200x96xf32>
    %8:2 = fmlp.gate_up_weight_grad ins(%arg0, %4#0, %4#1 : tensor<?x96xf32>, tensor<?x200xf32>, tensor<?x200xf32>) outs(%7, %7 : tensor<200x96xf32>, tensor<200x96xf32>) -> tensor<200x96xf32>, tensor<200x96xf32>
    return %6, %8#0, %8#1, %3 : tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>
  }

// -----

// G is read after K3 wrote dG over it: no buffer plan can honour that.
func.func @reads_overwritten(%x: tensor<?x96xf32>, %wg: tensor<200x96xf32>, %wu: tensor<200x96xf32>,
                             %wd: tensor<96x200xf32>, %dy: tensor<?x96xf32>,
                             %g: tensor<?x200xf32> {fmlp.saved = "g"}, %u: tensor<?x200xf32> {fmlp.saved = "u"})
    -> tensor<?x96xf32> attributes {fmlp.entry = "backward", fmlp.save = "gu"} {
  // expected-error @+1 {{'fmlp.down_grad' op writes dG and dU over G and U, but fmlp.input_grad reads G or U afterwards}}
  %dg, %du = fmlp.down_grad silu ins(%dy, %wd, %g, %u : tensor<?x96xf32>, tensor<96x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>) outs(%g, %u : tensor<?x200xf32>, tensor<?x200xf32>) -> tensor<?x200xf32>, tensor<?x200xf32>
  %c0 = arith.constant 0 : index
  %t = tensor.dim %x, %c0 : tensor<?x96xf32>
  %e = tensor.empty(%t) : tensor<?x96xf32>
  %dx = fmlp.input_grad ins(%g, %du, %wg, %wu : tensor<?x200xf32>, tensor<?x200xf32>, tensor<200x96xf32>, tensor<200x96xf32>) outs(%e : tensor<?x96xf32>) -> tensor<?x96xf32>
  return %dx : tensor<?x96xf32>
}

// -----

// save=gu: the saved [T, 2H] holds G | U; K3 recomputes A into the
// backward's workspace (before writing dG, dU over G, U), and K6 reads it.
// CHECK-LABEL: func.func @mlpgu.backward
// CHECK-SAME: %[[SAVED:[^:]+]]: memref<?x400xf32> {fmlp.consumed, fmlp.name = "saved", fmlp.saved = "gu"}, %[[WS:[^:]+]]: memref<?x200xf32> {fmlp.name = "workspace"})
// CHECK-SAME: fmlp.saved_columns = 400 : i64, fmlp.workspace_columns = 200 : i64
// CHECK-DAG: %[[G:.+]] = memref.subview %[[SAVED]][0, 0]
// CHECK-DAG: %[[U:.+]] = memref.subview %[[SAVED]][0, 200]
// CHECK-DAG: %[[A:.+]] = memref.subview %[[WS]][0, 0]
// CHECK: fmlp.down_grad silu ins(%{{.+}}, %{{.+}}, %[[G]], %[[U]] : {{.*}}) outs(%[[G]], %[[U]], %[[A]] :
// CHECK-NEXT: fmlp.down_weight_grad ins(%{{.+}}, %[[A]] :
  func.func @mlpgu.backward(%arg0: tensor<?x96xf32> {fmlp.name = "x"}, %arg1: tensor<200x96xf32> {fmlp.name = "gate"}, %arg2: tensor<200x96xf32> {fmlp.name = "up"}, %arg3: tensor<96x200xf32> {fmlp.name = "down"}, %arg4: tensor<?x96xf32> {fmlp.name = "dy"}, %arg5: tensor<?x200xf32> {fmlp.saved = "g"}, %arg6: tensor<?x200xf32> {fmlp.saved = "u"}) -> (tensor<?x96xf32> {fmlp.name = "dx"}, tensor<200x96xf32> {fmlp.name = "d_gate"}, tensor<200x96xf32> {fmlp.name = "d_up"}, tensor<96x200xf32> {fmlp.name = "d_down"}) attributes {fmlp.entry = "backward", fmlp.save = "gu"} {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg5, %c0 : tensor<?x200xf32>
    %0 = tensor.empty(%dim) : tensor<?x200xf32>
    %1:3 = fmlp.down_grad silu ins(%arg4, %arg3, %arg5, %arg6 : tensor<?x96xf32>, tensor<96x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>) outs(%arg5, %arg6, %0 : tensor<?x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>) -> tensor<?x200xf32>, tensor<?x200xf32>, tensor<?x200xf32>
    %2 = tensor.empty() : tensor<96x200xf32>
    %3 = fmlp.down_weight_grad ins(%arg4, %1#2 : tensor<?x96xf32>, tensor<?x200xf32>) outs(%2 : tensor<96x200xf32>) -> tensor<96x200xf32>
    %dim_0 = tensor.dim %arg4, %c0 : tensor<?x96xf32>
    %4 = tensor.empty(%dim_0) : tensor<?x96xf32>
    %5 = fmlp.input_grad ins(%1#0, %1#1, %arg1, %arg2 : tensor<?x200xf32>, tensor<?x200xf32>, tensor<200x96xf32>, tensor<200x96xf32>) outs(%4 : tensor<?x96xf32>) -> tensor<?x96xf32>
    %6 = tensor.empty() : tensor<200x96xf32>
    %7:2 = fmlp.gate_up_weight_grad ins(%arg0, %1#0, %1#1 : tensor<?x96xf32>, tensor<?x200xf32>, tensor<?x200xf32>) outs(%6, %6 : tensor<200x96xf32>, tensor<200x96xf32>) -> tensor<200x96xf32>, tensor<200x96xf32>
    return %5, %7#0, %7#1, %3 : tensor<?x96xf32>, tensor<200x96xf32>, tensor<200x96xf32>, tensor<96x200xf32>
  }
