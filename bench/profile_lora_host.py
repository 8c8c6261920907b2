#!/usr/bin/env python3
"""The host cost of a fused LoRA call, on a machine without a GPU: a Llama
MLP (D = 1024, H = 2816, bf16) whose gate, up and down are PEFT LoRA
layers (r = 16; one adapter, two active adapters; PEFT's default float32
adapters and bf16 ones), fused by FusedGatedMLP on the CPU as
python/tests does it (test_ops.gpu_stand_ins: the H200's block spec, an x
on the CPU taken by the input check), with the launches made no-ops
(bench/profile_host_cpu.py's stub_launches: everything up to the runtime
call runs). Timed per call, the least of 7 rounds:

  - the guard: what FusedGatedMLP.forward runs to decide what each layer
    computes (modules.projections);
  - the matrices: A_cat, Bg, Bu, Ad, Bd as fused_lora builds them, cast to
    the block's dtype;
  - the module call: no-grad, and with grad (the adapters trainable, the
    base frozen, as PEFT leaves them): forward, forward + backward;
  - no-grad with FusedGatedMLP.reuse_adapters (opt-in): the matrices kept
    from the last call, and the module call with them;
  - PEFT's eager module beside it (Hugging Face's forward calling the
    LoRA layers, FusedGatedMLP.unfused), in the same process, on CPU
    tensors of a copy of the block at --peft-d, --peft-h (64, 128): the
    same ops, whose arithmetic is then negligible, so that what is timed
    is their host cost (Python, dispatcher, autograd), what they cost the
    host on a GPU less the launches (a few us per kernel; fmlp's no-grad
    call has one). Meta tensors are no stand-in: many of their shape
    functions are Python (PEFT's no-grad call took 2 ms on them here).

fmlp's rows at a large block include the CPU's copies in building the
matrices (on a GPU, kernels that the host only launches): --d 64 --h 128
times the host's part alone.

Before timing, one call with the kernels emulated (test_ops.emulate)
checks that the fused LoRA op runs and agrees with PEFT's forward.

  FMLP_BIN_DIR=build/bin FMLP_RUNTIME_LIB=build/lib/libfmlp_runtime.so \\
  PYTHONPATH=python python3 bench/profile_lora_host.py [--calls 400]

Needs torch, transformers, peft and fmlp-compile (bundles compiled into
FMLP_CACHE_DIR, a temporary one by default). Compare runs on one machine
only, alternating them.
"""
import argparse
import os
import sys
import tempfile
import warnings

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "python", "tests"))

from profile_host_cpu import host_us, stub_launches  # noqa: E402

NAMES = ("gate_proj", "up_proj", "down_proj")


def adapted(config, adapters, adapter_dtype, seed=0):
    """A FusedGatedMLP over a bf16 LlamaMLP with LoRA r = 16 on gate, up and
    down, `adapters` of them all active, their weights in `adapter_dtype`
    (float32: what get_peft_model keeps by default), lora_B drawn (not
    PEFT's zeros)."""
    import peft
    from fmlp import modules
    from transformers.models.llama.modeling_llama import LlamaMLP
    torch.manual_seed(seed)
    fused = modules.FusedGatedMLP.wrap(LlamaMLP(config).to(torch.bfloat16), config)
    names = [f"adapter{i}" for i in range(adapters)]
    for name in names:
        peft.inject_adapter_in_model(peft.LoraConfig(
            r=16, lora_alpha=32, lora_dropout=0.0, target_modules=list(NAMES)), fused,
            adapter_name=name)
    g = torch.Generator().manual_seed(seed)
    for name, p in fused.named_parameters():
        if "lora_" in name:
            # as PEFT's _cast_adapter_dtype does it (param.data = ...)
            p.data = (torch.randn(p.shape, generator=g) / p.shape[-1] ** 0.5).to(adapter_dtype)
    for name in NAMES:
        getattr(fused, name).set_adapter(names)
    return fused


def check_fused(fused, x):
    """One no-grad call with emulated kernels: the LoRA op ran, and y is
    PEFT's (Hugging Face's forward over the LoRA layers) within bf16's
    roundings."""
    from fmlp import ops
    import test_ops
    kinds = []

    def recording(path, kind, args):
        kinds.append(kind)
        test_ops.emulate(path, kind, args)
    ops.emulate = recording
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("error")  # an UnfusedWarning: the fallback ran
            y = fused(x)
            expected = fused.unfused(x)
    finally:
        ops.emulate = None
        ops._plans.clear()  # the emulated plans: the stubbed ones replace them
    error = (y.float() - expected.float()).abs().max().item()
    scale = expected.float().abs().max().item()
    if kinds != ["forward_nograd"] or error > 0.05 * scale:
        raise SystemExit(f"the fused LoRA path did not run as it should: launches {kinds}, "
                         f"|y - PEFT's| {error:.3g} of max |y| {scale:.3g}")


def matrices(fused, found, dtype):
    """fused_lora's (A_cat, Bg, Bu, Ad, Bd) in the block's dtype (its own
    method where the package has it; else its body before)."""
    build = getattr(fused, "_adapter_matrices", None)
    if build is not None:
        return build(found, dtype)
    return [a if a is None or a.dtype == dtype else a.to(dtype) for a in fused._adapters(found)]


def measure(fused, small, x, dy, calls):
    """(label, us per call) of the guard, the matrices and the module call,
    no-grad and with grad, and of PEFT's eager module (`small`'s
    unfused forward, x and dy cut to its width)."""
    from fmlp import modules
    rows = []
    found = modules.projections(fused, NAMES)
    assert not isinstance(found, str), found

    def timed(label, call, n=calls):
        for _ in range(20):
            call()
        rows.append((label, host_us(call, n)))

    def train():
        xx = x.clone().requires_grad_(True)
        fused(xx).backward(dy)
        for q in fused.parameters():
            q.grad = None

    with torch.no_grad():
        timed("fmlp no-grad: the guard", lambda: modules.projections(fused, NAMES))
        timed("fmlp no-grad: the matrices", lambda: matrices(fused, found, x.dtype))
        timed("fmlp no-grad: the module call", lambda: fused(x))
        fused.reuse_adapters = True  # kept matrices (opt-in; a package without it ignores it)
        timed("fmlp no-grad, reuse_adapters: the matrices",
              lambda: matrices(fused, found, x.dtype))
        timed("fmlp no-grad, reuse_adapters: module call", lambda: fused(x))
        del fused.reuse_adapters
    timed("fmlp grad: the matrices", lambda: matrices(fused, found, x.dtype))
    timed("fmlp grad: module forward", lambda: fused(x))
    timed("fmlp grad: forward + backward", train, calls // 2)

    peft_eager, d = small, small.hidden_size
    xm, dym = x[..., :d].contiguous(), dy[..., :d].contiguous()

    def peft_train():
        xx = xm.clone().requires_grad_(True)
        peft_eager.unfused(xx).backward(dym)
        for q in peft_eager.parameters():
            q.grad = None
    with torch.no_grad():
        timed("PEFT eager no-grad: module call", lambda: peft_eager.unfused(xm))
    timed("PEFT eager grad: module forward", lambda: peft_eager.unfused(xm))
    timed("PEFT eager grad: forward + backward", peft_train, calls // 2)
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--d", type=int, default=1024)
    p.add_argument("--h", type=int, default=2816)
    p.add_argument("--tokens", type=int, default=1)
    p.add_argument("--peft-d", type=int, default=64)
    p.add_argument("--peft-h", type=int, default=128)
    p.add_argument("--calls", type=int, default=400)
    args = p.parse_args()
    os.environ.setdefault("FMLP_CACHE_DIR", tempfile.mkdtemp(prefix="fmlp-lora-host-"))
    warnings.simplefilter("ignore")
    import fmlp
    import peft
    from fmlp import ops, runtime
    from transformers import LlamaConfig
    import test_ops

    for patcher in test_ops.gpu_stand_ins():
        patcher.start()
    config = LlamaConfig(hidden_size=args.d, intermediate_size=args.h, hidden_act="silu")
    g = torch.Generator().manual_seed(1)
    x = torch.randn(args.tokens, args.d, generator=g).to(torch.bfloat16)
    dy = torch.randn(args.tokens, args.d, generator=g).to(torch.bfloat16)
    cases = [("one adapter, float32 adapters (PEFT's default)", 1, torch.float32),
             ("one adapter, bf16 adapters", 1, torch.bfloat16),
             ("two adapters, float32 adapters", 2, torch.float32)]
    small_config = LlamaConfig(hidden_size=args.peft_d, intermediate_size=args.peft_h,
                               hidden_act="silu")
    modules_ = [(label, adapted(config, n, dtype), adapted(small_config, n, dtype))
                for label, n, dtype in cases]
    for _, fused, _ in modules_:
        check_fused(fused, x)  # compiles the bundles on first use
    stub_launches(ops, runtime)
    print(f"D={args.d} H={args.h} T={args.tokens} bf16, LoRA r = 16 on gate, up, down, on the "
          f"CPU (fused path by test_ops.gpu_stand_ins, launches stubbed), torch "
          f"{torch.__version__}, peft {peft.__version__}, fmlp {fmlp.__version__}; PEFT eager "
          f"at D={args.peft_d} H={args.peft_h}")
    for label, fused, small in modules_:
        print(f"-- {label}")
        for row, us in measure(fused, small, x, dy, args.calls):
            print(f"   {row:44s} {us:8.1f} us per call", flush=True)


if __name__ == "__main__":
    main()
