// RUN: fmlp-opt %s --allow-unregistered-dialect --fmlp-expand-training=mode=infer | FileCheck %s
// RUN: fmlp-opt %s --allow-unregistered-dialect --fmlp-expand-training="mode=infer keep-holders=false" | FileCheck %s --check-prefix=DROP

// IREE's input-level IR printed in generic form (iree-compile
// --mlir-print-op-generic) and parsed with --allow-unregistered-dialect:
// the blocks sit in a util.func, an operation fmlp does not know. The
// holder is whatever operation directly in the module holds them; the
// entry points take its symbol name (with one entry set per block), and
// its other operations (IREE's ABI, the loads of weight globals) stay the
// caller's: kept with keep-holders=true, removed with the holder otherwise.
// Operations outside the holder (the globals, the synchronous wrapper) are
// left as they are.

// CHECK-LABEL: func.func @main$async.mlp0.forward_nograd(
// CHECK-SAME: tensor<2x?x64xf32> {fmlp.name = "x"}
// CHECK: fmlp.gated_mlp silu
// CHECK-LABEL: func.func @main$async.mlp1.forward_nograd(
// CHECK: "util.func"() <{{.*}}sym_name = "main$async"
// CHECK: "hal.tensor.import"
// CHECK-COUNT-2: fmlp.gated_mlp silu
// CHECK: "util.func"() <{{.*}}sym_name = "main"

// DROP: "util.global"() <{{.*}}sym_name = "wg"
// DROP: func.func @main$async.mlp0.forward_nograd(
// DROP: func.func @main$async.mlp1.forward_nograd(
// DROP-NOT: hal.tensor.import
// DROP: "util.func"() <{{.*}}sym_name = "main"
// DROP-NOT: hal.tensor.import
"builtin.module"() ({
  "util.global"() <{initial_value = dense<1.0> : tensor<160x64xf32>, sym_name = "wg", sym_visibility = "private", type = tensor<160x64xf32>}> : () -> ()
  "util.func"() <{function_type = (!hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view, sym_name = "main$async"}> ({
  ^bb0(%arg0: !hal.buffer_view, %arg1: !hal.fence, %arg2: !hal.fence):
    %dim = "hal.buffer_view.dim"(%arg0) <{index = 1 : index}> : (!hal.buffer_view) -> index
    %x = "hal.tensor.import"(%arg0, %dim, %arg1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>, target_encoding = tensor<2x?x64xf32>}> : (!hal.buffer_view, index, !hal.fence) -> tensor<2x?x64xf32>
    %wg = "util.global.load"() <{global = @wg, is_immutable}> : () -> tensor<160x64xf32>
    %wd = arith.constant dense<1.0> : tensor<64x160xf32>
    %y0 = fmlp.gated_mlp silu %x, gate %wg, up %wg, down %wd
        : (tensor<2x?x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x?x64xf32>
    %y1 = fmlp.gated_mlp silu %y0, gate %wg, up %wg, down %wd
        : (tensor<2x?x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<64x160xf32>) -> tensor<2x?x64xf32>
    %out = "hal.tensor.export"(%y1, %dim) <{source_encoding = tensor<2x?x64xf32>}> : (tensor<2x?x64xf32>, index) -> !hal.buffer_view
    "util.return"(%out) : (!hal.buffer_view) -> ()
  }) : () -> ()
  "util.func"() <{function_type = (!hal.buffer_view) -> !hal.buffer_view, sym_name = "main"}> ({
  ^bb0(%arg0: !hal.buffer_view):
    %0 = "util.null"() : () -> !hal.fence
    %1 = "util.call"(%arg0, %0, %0) <{callee = @main$async}> : (!hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view
    "util.return"(%1) : (!hal.buffer_view) -> ()
  }) : () -> ()
}) : () -> ()
