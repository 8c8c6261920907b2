#!/usr/bin/env python3
"""The Python side of an eager fmlp call, on a machine without a GPU
(issue 22's lean host path): everything fmlp and torch do on the host per
call (module forward, guard, bundle lookup, dispatcher, the op's
allocation and tensor descriptions) with CPU tensors, only the runtime
call itself (ctypes -> fmlp_launch) replaced by a no-op and the CUDA
stream query by a constant. Layers, as bench/profile_host.py times them on
the GPU: the op's body alone, the op through the dispatcher, the module
call (no-grad), and a training step (module forward + backward, gradients
set to None), also with frozen weights.

  FMLP_RUNTIME_LIB=build/lib/libfmlp_runtime.so PATH=build/bin:$PATH \\
  PYTHONPATH=python python3 bench/profile_host_cpu.py [--d 1024] [--h 2816] [--tokens 1]

Needs torch and transformers, fmlp-compile (the bundle is compiled into a
temporary cache). Works with this package and with fmlp's Python before
the lean host path (torch.library.custom_op ops; the stubs differ), so
that one script measures both. Timings are the least of 7 rounds; compare
runs on one machine only, alternating them.
"""
import argparse
import os
import tempfile
import time
import types
import warnings

import torch


def host_us(call, calls):
    """The least of 7 rounds' time per call: on a shared machine the other
    loads only add, so the least is the closest to the call's own cost."""
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        rounds.append((time.perf_counter() - start) / calls * 1e6)
    return min(rounds)


def stub_launches(ops, runtime):
    """The runtime call and the stream query made no-ops; returns the op
    body's function (x, params) -> y for forward_nograd."""
    if hasattr(ops, "_Plan"):  # the lean host path
        torch._C._cuda_getCurrentRawStream = lambda device: 0

        def plan(path, kind, x):
            key = (path, kind, x.get_device())
            if key not in ops._plans:
                made = ops._Plan(ops._manifest(path), kind, launch=False)
                made._launch = lambda tensors, stream: None
                ops._plans[key] = made
            return ops._plans[key]
        ops._plan = plan
        return lambda bundle, x, params: ops._forward_nograd(bundle, x, *ops.parameters(params))
    # Before: custom_op ops whose body describes every tensor anew.
    ops._loaded = lambda path, device: ops._manifest(path)
    runtime.Entry.launch = lambda self, tensors, stream: None
    torch.cuda.current_stream = lambda device=None: types.SimpleNamespace(cuda_stream=0)
    return ops.forward_nograd._init_fn


def op_arguments(ops, params):
    """The parameters as the ops take them: six arguments, or (before)
    one list."""
    return ops.parameters(params) if hasattr(ops, "parameters") else (params,)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--d", type=int, default=1024)
    p.add_argument("--h", type=int, default=2816)
    p.add_argument("--tokens", type=int, default=1)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--profile", action="store_true", help="cProfile of the no-grad module call")
    args = p.parse_args()
    os.environ.setdefault("FMLP_CACHE_DIR", tempfile.mkdtemp(prefix="fmlp-host-cpu-"))
    import fmlp
    from fmlp import modules, ops, runtime, spec as specs
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaMLP

    body = stub_launches(ops, runtime)

    def block_spec(self, x, params=None, memory_policy=None, precision=None,
                   lora_ranks=(0, 0)):  # the CUDA-only checks skipped
        params = self._params() if params is None else params
        if hasattr(self, "_spec"):  # the spec an H200 would ask for (test_ops's stand-in)
            from fmlp import policy
            return self._spec(params, ops.DTYPES[x.dtype], "sm_90a",
                              policy.resolve(memory_policy, self.memory_policy),
                              self._precision(x.dtype, precision), lora_ranks)
        return specs.BlockSpec(self.hidden_size, params[0].shape[0], ops.DTYPES[x.dtype],
                               self.activation, bias=len(params) > 3)
    modules.FusedGatedMLP.block_spec = block_spec
    # An x on the CPU runs Hugging Face's forward since d0630f3 (the
    # input check): taken here, so that the module calls time the fused
    # path (an UnfusedWarning, the fallback, is raised as an error).
    if hasattr(modules, "_why_not_fused_input"):
        modules._why_not_fused_input = lambda x: None
    warnings.simplefilter("error", getattr(modules, "UnfusedWarning", UserWarning))

    config = LlamaConfig(hidden_size=args.d, intermediate_size=args.h, hidden_act="silu")
    torch.manual_seed(0)
    original = LlamaMLP(config).to(torch.bfloat16)
    fused = modules.FusedGatedMLP.wrap(original, config)
    x = torch.randn(args.tokens, args.d, dtype=torch.bfloat16)
    dy = torch.randn(args.tokens, args.d, dtype=torch.bfloat16)
    params = [p.detach() for p in fused._params()]
    bundle = str(modules._bundle_for(fused.block_spec(x, params)))
    print(f"D={args.d} H={args.h} T={args.tokens} bf16 on the CPU (launch stubbed), "
          f"torch {torch.__version__}, fmlp {fmlp.__version__}, "
          f"{'lean host path' if hasattr(ops, '_Plan') else 'custom_op host path'}")

    def train():
        xx = x.clone().requires_grad_(True)
        fused(xx).backward(dy)
        for q in fused.parameters():
            q.grad = None

    def frozen():  # after the weights are frozen below: dX alone
        xx = x.clone().requires_grad_(True)
        fused(xx).backward(dy)

    with torch.no_grad():
        layers = [("no-grad: the op's body alone", lambda: body(bundle, x, params)),
                  ("no-grad: the op (dispatcher)",
                   lambda: torch.ops.fmlp.forward_nograd(bundle, x, *op_arguments(ops, params))),
                  ("no-grad: the module call", lambda: fused(x))]
        for label, call in layers:
            for _ in range(50):
                call()
            print(f"{label:40s} {host_us(call, args.calls):8.1f} us per call")
    for label, call in (("train: module forward + backward", train),
                        ("train, frozen weights", frozen)):
        if call is frozen:
            for q in fused.parameters():
                q.requires_grad_(False)
        for _ in range(20):
            call()
        print(f"{label:40s} {host_us(call, args.calls // 4):8.1f} us per call")
    if args.profile:
        import cProfile
        import pstats
        with torch.no_grad():
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(args.calls):
                fused(x)
            profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
