// REQUIRES: ptxas
// Programmatic dependent launch. --fmlp-programmatic-launch (off by
// default): on sm_90 onwards every kernel starts with
// griddepcontrol.launch_dependents and .wait (before any memory access),
// and every launch of the manifest says programmatic_launch.
// RUN: rm -rf %t && mkdir -p %t
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false --fmlp-programmatic-launch -o %t/on.bundle
// RUN: grep -c "griddepcontrol.wait" %t/on.bundle/kernels.ptx | FileCheck %s --check-prefix=COUNT
// RUN: grep -c '"programmatic_launch": true' %t/on.bundle/manifest.json | FileCheck %s --check-prefix=LAUNCHES
// RUN: grep -c '"kernel":' %t/on.bundle/manifest.json | FileCheck %s --check-prefix=LAUNCHES
// 31 kernels, 33 launches: K1's WGMMA kernel serves two ranges of T in the
// forward and no-grad entries (the time model's variant between them).
// COUNT: 31
// LAUNCHES: 33
// RUN: FileCheck %s --check-prefix=PTX < %t/on.bundle/kernels.ptx
// PTX-LABEL: .entry llama_mlp_forward_k0_gate_up_small_tokens(
// PTX-NOT: {{ld.global|prefetch}}
// PTX: griddepcontrol.launch_dependents;
// PTX-NEXT: griddepcontrol.wait;
// PTX-LABEL: .entry llama_mlp_forward_k0_gate_up(
// PTX-NOT: {{ld.global|cp.async|mbarrier.init|prefetch}}
// PTX: griddepcontrol.launch_dependents;
// PTX-NEXT: griddepcontrol.wait;
// The default (--fmlp-programmatic-small-tokens): only the small_tokens
// kernels wait (the forward's and the no-grad forward's K1 and K2), and
// only the no-grad forward's launches of them are programmatic.
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false -o %t/default.bundle
// RUN: grep -c "griddepcontrol.wait" %t/default.bundle/kernels.ptx | FileCheck %s --check-prefix=SMALL-COUNT
// SMALL-COUNT: 4
// RUN: grep -E "\.entry|griddepcontrol.wait" %t/default.bundle/kernels.ptx | grep -B1 griddepcontrol.wait | grep -o "[a-z0-9_]*small_tokens" | FileCheck %s --check-prefix=SMALL-KERNELS
// SMALL-KERNELS: llama_mlp_forward_k0_gate_up_small_tokens
// SMALL-KERNELS-NEXT: llama_mlp_forward_k1_down_small_tokens
// SMALL-KERNELS-NEXT: llama_mlp_forward_nograd_k0_gate_up_small_tokens
// SMALL-KERNELS-NEXT: llama_mlp_forward_nograd_k1_down_small_tokens
// RUN: FileCheck %s --check-prefix=SMALL-PTX < %t/default.bundle/kernels.ptx
// SMALL-PTX-LABEL: .entry llama_mlp_forward_nograd_k1_down_small_tokens(
// SMALL-PTX-NOT: ld.global
// SMALL-PTX: griddepcontrol.launch_dependents;
// SMALL-PTX-NEXT: griddepcontrol.wait;
// SMALL-PTX-LABEL: .entry
// RUN: python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print([(e['kind'], l['kernel']) for e in m['entry_points'] for l in e['launches'] if l.get('programmatic_launch')])" %t/default.bundle/manifest.json | FileCheck %s --check-prefix=SMALL-LAUNCHES
// SMALL-LAUNCHES: [('forward_nograd', 'llama_mlp_forward_nograd_k0_gate_up_small_tokens'), ('forward_nograd', 'llama_mlp_forward_nograd_k1_down_small_tokens')]
// Neither on sm_80 (no griddepcontrol), nor with the rule turned off.
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false --fmlp-programmatic-launch --chip=sm_80 -o %t/sm80.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false --fmlp-programmatic-small-tokens=false -o %t/off.bundle
// RUN: cat %t/sm80.bundle/kernels.ptx %t/sm80.bundle/manifest.json %t/off.bundle/kernels.ptx %t/off.bundle/manifest.json | FileCheck %s --check-prefix=NONE
// NONE-NOT: griddepcontrol
// NONE-NOT: programmatic_launch
