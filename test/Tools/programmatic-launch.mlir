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
// The default (--fmlp-programmatic-nograd): every kernel of the no-grad
// forward waits, and every launch of it is programmatic: its 10 kernels
// (small_tokens, the WGMMA token variants, split-K and their counters'
// fills) in 11 launches; no kernel or launch of the training entries.
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false -o %t/default.bundle
// RUN: grep -c "griddepcontrol.wait" %t/default.bundle/kernels.ptx | FileCheck %s --check-prefix=NOGRAD-COUNT
// NOGRAD-COUNT: 10
// RUN: python3 -c "import re,sys; p=open(sys.argv[1]).read(); print(sorted({re.sub(r'_k[0-9].*', '', e) for e, body in re.findall(r'\.entry (\w+)\((.*?)\n}', p, re.S) if 'griddepcontrol.wait' in body}))" %t/default.bundle/kernels.ptx | FileCheck %s --check-prefix=NOGRAD-KERNELS
// NOGRAD-KERNELS: ['llama_mlp_forward_nograd']
// RUN: FileCheck %s --check-prefix=NOGRAD-PTX < %t/default.bundle/kernels.ptx
// NOGRAD-PTX-LABEL: .entry llama_mlp_forward_nograd_k1_down_small_tokens(
// NOGRAD-PTX-NOT: ld.global
// NOGRAD-PTX: griddepcontrol.launch_dependents;
// NOGRAD-PTX-NEXT: griddepcontrol.wait;
// NOGRAD-PTX-LABEL: .entry llama_mlp_forward_nograd_k1_down_upto128_splitk4(
// NOGRAD-PTX-NOT: {{ld.global|cp.async|mbarrier.init|prefetch}}
// NOGRAD-PTX: griddepcontrol.launch_dependents;
// NOGRAD-PTX-NEXT: griddepcontrol.wait;
// NOGRAD-PTX-LABEL: .entry
// RUN: python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(sorted({(e['kind'], bool(l.get('programmatic_launch'))) for e in m['entry_points'] for l in e['launches']}))" %t/default.bundle/manifest.json | FileCheck %s --check-prefix=NOGRAD-LAUNCHES
// NOGRAD-LAUNCHES: [('backward', False), ('forward', False), ('forward_nograd', True)]
// Neither on sm_80 (no griddepcontrol), nor with the rule turned off.
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false --fmlp-programmatic-launch --chip=sm_80 -o %t/sm80.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false --fmlp-programmatic-nograd=false -o %t/off.bundle
// RUN: cat %t/sm80.bundle/kernels.ptx %t/sm80.bundle/manifest.json %t/off.bundle/kernels.ptx %t/off.bundle/manifest.json | FileCheck %s --check-prefix=NONE
// NONE-NOT: griddepcontrol
// NONE-NOT: programmatic_launch
