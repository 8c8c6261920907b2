// RUN: fmlp-opt %S/../Tools/Inputs/lora-block.mlir --fmlp-plan-pipeline="save=u" | FileCheck %s
// RUN: fmlp-opt %S/../Tools/Inputs/lora-block.mlir --fmlp-plan-pipeline | FileCheck %s --check-prefix=AGU

// The adapters' [T, R] blocks come after the activations' [T, H] ones, in
// the saved buffer and in the workspace, so that those sit where they do
// without adapters: here (H = 96, R = 8, Rd = 4) save=u's backward has the
// recomputed G (then dG) at columns [0, 96) and dU at [96, 192) of its
// workspace, [dG dU] adjacent, dZd and dZ after them.

// CHECK-LABEL: func.func @mlp.backward
// CHECK-SAME: memref<?x204xf32> {fmlp.name = "workspace"}
// CHECK: %[[G:.+]] = memref.subview %{{.+}}[0, 0] [%{{.+}}, 96] [1, 1] : memref<?x204xf32>
// CHECK: fmlp.gate ins({{.*}}) lora({{.*}}) outs(%[[G]] :
// CHECK: %[[DZD:.+]] = memref.subview %{{.+}}[0, 192] [%{{.+}}, 4] [1, 1] : memref<?x204xf32>
// CHECK: %[[DU:.+]] = memref.subview %{{.+}}[0, 96] [%{{.+}}, 96] [1, 1] : memref<?x204xf32>
// CHECK: fmlp.down_grad silu ins({{.*}}) lora(%[[DZD]], {{.*}}) outs(%[[G]], %[[DU]], {{.*}})

// agu: the saved buffer is A | G | U | Z | Zd.
// AGU-LABEL: func.func @mlp.forward
// AGU: memref.subview %{{.+}}[0, 288] [%{{.+}}, 8] [1, 1] : memref<?x300xf32>
// AGU: memref.subview %{{.+}}[0, 0] [%{{.+}}, 96]
// AGU: memref.subview %{{.+}}[0, 96] [%{{.+}}, 96]
// AGU: memref.subview %{{.+}}[0, 192] [%{{.+}}, 96]
// AGU: memref.subview %{{.+}}[0, 296] [%{{.+}}, 4] [1, 1] : memref<?x300xf32>
