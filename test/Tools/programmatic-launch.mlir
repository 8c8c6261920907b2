// REQUIRES: ptxas
// Programmatic dependent launch (griddepcontrol, sm_90 onwards). Every
// kernel a launch marked programmatic_launch runs must begin with
// griddepcontrol.launch_dependents and .wait, ahead of any instruction
// that touches memory or synchronizes, and no other kernel may wait
// (Inputs/check-programmatic.py, which parses the PTX and the manifest).
// RUN: rm -rf %t && mkdir -p %t
//
// The default (--fmlp-programmatic-nograd): every launch of the no-grad
// forward (small_tokens, the WGMMA token variants, split-K and their
// counters' fills), none of the training entries'.
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false -o %t/default.bundle
// RUN: python3 %S/Inputs/check-programmatic.py %t/default.bundle | FileCheck %s --check-prefix=NOGRAD
// NOGRAD: programmatic: ['forward_nograd']; 11 kernels wait first
// The same with LoRA adapters, and in per-chunk launches (SIMT, f32).
// RUN: fmlp-compile %S/Inputs/lora-block.mlir --report=false -o %t/lora.bundle
// RUN: python3 %S/Inputs/check-programmatic.py %t/lora.bundle | FileCheck %s --check-prefix=NOGRAD-ONLY
// RUN: fmlp-compile %fmlp_src_root/examples/small-mlp.linalg.f32.mlir --chunk-tokens=64 --report=false -o %t/chunked.bundle
// RUN: python3 %S/Inputs/check-programmatic.py %t/chunked.bundle | FileCheck %s --check-prefix=NOGRAD-ONLY
// NOGRAD-ONLY: programmatic: ['forward_nograd'];
//
// --fmlp-programmatic-launch (A/B runs): every launch of every entry, the
// fills, bias gradients and chunk loops of a save=u plan included.
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false --fmlp-programmatic-launch -o %t/on.bundle
// RUN: python3 %S/Inputs/check-programmatic.py %t/on.bundle | FileCheck %s --check-prefix=ALL
// RUN: fmlp-compile %S/Inputs/gpu-variants.mlir --fmlp-programmatic-launch --save=u --chunk-tokens=64 --report=false -o %t/variants.bundle
// RUN: python3 %S/Inputs/check-programmatic.py %t/variants.bundle | FileCheck %s --check-prefix=ALL
// ALL: programmatic: ['backward', 'forward', 'forward_nograd'];
//
// The check fails where it must: a store moved above the wait, and
// launches marked programmatic whose kernels do not wait.
// RUN: cp -r %t/default.bundle %t/early-store.bundle
// RUN: python3 -c "import sys; p = sys.argv[1]; s = open(p).read(); open(p, 'w').write(s.replace('griddepcontrol.launch_dependents;', 'st.global.u32 [%%rd1], %%r1;\n\tgriddepcontrol.launch_dependents;', 1))" %t/early-store.bundle/kernels.ptx
// RUN: not python3 %S/Inputs/check-programmatic.py %t/early-store.bundle 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: before griddepcontrol.wait
// RUN: cp -r %t/default.bundle %t/marked.bundle
// RUN: python3 -c "import json, sys; p = sys.argv[1]; m = json.load(open(p)); [l.update(programmatic_launch=True) for e in m['entry_points'] for l in e['launches']]; json.dump(m, open(p, 'w'))" %t/marked.bundle/manifest.json
// RUN: not python3 %S/Inputs/check-programmatic.py %t/marked.bundle 2>&1 | FileCheck %s --check-prefix=MARKED
// MARKED: 0 waits
//
// Neither on sm_80 (no griddepcontrol), nor with the rule turned off.
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false --fmlp-programmatic-launch --chip=sm_80 -o %t/sm80.bundle
// RUN: fmlp-compile %fmlp_src_root/examples/llama-7b-mlp.linalg.bf16.mlir --report=false --fmlp-programmatic-nograd=false -o %t/off.bundle
// RUN: cat %t/sm80.bundle/kernels.ptx %t/sm80.bundle/manifest.json %t/off.bundle/kernels.ptx %t/off.bundle/manifest.json | FileCheck %s --check-prefix=NONE
// NONE-NOT: griddepcontrol
// NONE-NOT: programmatic_launch
