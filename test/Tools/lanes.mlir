// The manifest's lanes (docs/Bundle.md, runtime/Lanes.h): dX's GEMM and
// the fill of its split-K counters on lane 1 (the side stream), beside the
// weight gradients; every other launch, and every launch of the forward
// entry points, on the caller's stream (no "lane"). A token-chunked
// backward's per-chunk dX GEMM too.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false -o %t/default.bundle
// RUN: python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print([(e['kind'], l['kernel'], l['lane']) for e in m['entry_points'] for l in e['launches'] if 'lane' in l])" %t/default.bundle/manifest.json | FileCheck %s --check-prefix=DEFAULT
// RUN: fmlp-compile %S/Inputs/batched-block.mlir --save=x --chunk-tokens=64 --report=false -o %t/chunked.bundle
// RUN: python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print([(e['kind'], l['kernel'], l['lane'], l.get('per_chunk', False)) for e in m['entry_points'] for l in e['launches'] if 'lane' in l])" %t/chunked.bundle/manifest.json | FileCheck %s --check-prefix=CHUNKED

// DEFAULT: [('backward', 'llama_mlp_backward_k2_input_grad_upto128_splitk4_zero_counters', 1), ('backward', 'llama_mlp_backward_k2_input_grad_upto128_splitk4', 1), ('backward', 'llama_mlp_backward_k2_input_grad_upto256_splitk2_zero_counters', 1), ('backward', 'llama_mlp_backward_k2_input_grad_upto256_splitk2', 1), ('backward', 'llama_mlp_backward_k2_input_grad_upto512', 1), ('backward', 'llama_mlp_backward_k2_input_grad_n192', 1), ('backward', 'llama_mlp_backward_k2_input_grad', 1), ('backward', 'llama_mlp_backward_k2_input_grad_n192', 1), ('backward', 'llama_mlp_backward_k2_input_grad', 1)]

// CHUNKED: [('backward', 'geglu_in_out_batched_backward_k6_input_grad_mma_sync', 1, True)]
