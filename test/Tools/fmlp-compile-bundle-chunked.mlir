// A token-chunked bundle (save=x, chunk-tokens=64): the manifest's entry
// points say their chunk size, the launches of the chunk loop are
// per_chunk, and each pointer and tensor map of those says how far it
// moves per token of the chunk's start (token_stride: x's and dy's rows of
// 64 elements; 0 for the weights and for the workspace of one chunk, which
// every chunk reuses from its row 0, so its tensor maps have -1 rows: the
// chunk's T). The fills that zero the weight gradients before the loop
// run once. The runtime reads it back (fmlp-bundle-info): at T = 129 = 2 x
// 64 + 1 the last chunk is one token, which the small_tokens variants
// serve.
// RUN: rm -rf %t.bundle
// RUN: fmlp-compile %s --save=x --chunk-tokens=64 --report=false -o %t.bundle
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.bundle/manifest.json
// RUN: fmlp-bundle-info %t.bundle --tokens=129 | FileCheck %s --check-prefix=INFO
// Unchunked, no entry point has a chunk size or a per-chunk launch.
// RUN: rm -rf %t.whole.bundle
// RUN: fmlp-compile %s --save=x --report=false -o %t.whole.bundle
// RUN: FileCheck %s --check-prefix=WHOLE < %t.whole.bundle/manifest.json

// MANIFEST: "name": "workspace",
// MANIFEST-NEXT: "role": "workspace",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 128
// MANIFEST: "chunk_tokens": 64,
// MANIFEST-NEXT: "kind": "forward",
// MANIFEST: "name": "workspace",
// MANIFEST-NEXT: "role": "workspace",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 384
// MANIFEST: "chunk_tokens": 64,
// MANIFEST-NEXT: "kind": "backward",
// MANIFEST: "kernel": "mlp_backward_k0_fill",
// MANIFEST-NEXT: "params": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "argument": 8,
// MANIFEST-NEXT: "offset": 0
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "tokens": true
// MANIFEST-NEXT: }
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "writes": [
// MANIFEST-NEXT: 8
// MANIFEST-NEXT: ]
// MANIFEST-NEXT: },
// MANIFEST: "kernel": "mlp_backward_k5_down_weight_grad",
// MANIFEST-NEXT: "params": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "tensor_map": {
// MANIFEST-NEXT: "argument": 4,
// MANIFEST: "rows": -1,
// MANIFEST-NEXT: "token_stride": 64
// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "argument": 9,
// MANIFEST: "row_stride": 384,
// MANIFEST-NEXT: "rows": -1,
// MANIFEST-NEXT: "token_stride": 0
// MANIFEST: "tensor_map": {
// MANIFEST-NEXT: "argument": 8,
// MANIFEST: "rows": 64,
// MANIFEST-NEXT: "token_stride": 0
// MANIFEST: "argument": 4,
// MANIFEST-NEXT: "offset": 0,
// MANIFEST-NEXT: "token_stride": 64
// MANIFEST: "tokens": true
// MANIFEST-NEXT: }
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "per_chunk": true
// MANIFEST: "chunk_tokens": 64,
// MANIFEST-NEXT: "kind": "forward_nograd",
// MANIFEST: "version": 3

// INFO: entry mlp.backward (backward): 49152 B saved + workspace at T = 129, in chunks of 64 tokens
// INFO: workspace  workspace bf16 [64, 384] align 16
// INFO-NEXT: kernel mlp_backward_k0_fill: T in [1, inf], runs at T = 129
// INFO-NEXT: kernel mlp_backward_k1_fill: T in [1, inf], runs at T = 129
// INFO-NEXT: kernel mlp_backward_k2_fill: T in [1, inf], runs at T = 129
// INFO-NEXT: kernel mlp_backward_k3_gate_up_small_tokens, per chunk: chunk T in [1, 16], runs in 1 of 3 chunks at T = 129
// INFO-NEXT: kernel mlp_backward_k3_gate_up, per chunk: chunk T in [17, inf], runs in 2 of 3 chunks at T = 129
// INFO-NEXT: kernel mlp_backward_k4_down_grad_upto2048, per chunk: chunk T in [1, 2048], runs in 3 of 3 chunks at T = 129
// INFO-NEXT: kernel mlp_backward_k4_down_grad, per chunk: chunk T in [2049, inf], runs in 0 of 3 chunks at T = 129
// INFO-NEXT: kernel mlp_backward_k5_down_weight_grad, per chunk: chunk T in [1, inf], runs in 3 of 3 chunks at T = 129
// INFO-NEXT: kernel mlp_backward_k6_input_grad, per chunk: chunk T in [1, inf], runs in 3 of 3 chunks at T = 129

// WHOLE-NOT: per_chunk
// WHOLE-NOT: token_stride
// WHOLE: "chunk_tokens": 0,
// WHOLE-NOT: per_chunk
// WHOLE-NOT: token_stride
// WHOLE: "chunk_tokens": 0,
// WHOLE-NOT: per_chunk
// WHOLE-NOT: token_stride
// WHOLE: "chunk_tokens": 0,
// WHOLE-NOT: per_chunk
// WHOLE-NOT: token_stride

func.func @mlp(%x: tensor<?x64xbf16>, %wg: tensor<128x64xbf16>,
               %wu: tensor<128x64xbf16>, %wd: tensor<64x128xbf16>)
    -> tensor<?x64xbf16> {
  %y = fmlp.gated_mlp silu %x, gate %wg, up %wu, down %wd
      : (tensor<?x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>,
         tensor<64x128xbf16>) -> tensor<?x64xbf16>
  return %y : tensor<?x64xbf16>
}
