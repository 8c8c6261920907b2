"""The guard's fast path (python/fmlp/modules.py, why_not_fusable) against
the full guard (guard.why_not_fusable over getattr, what it replaced, with
PEFT's LoRA types), on real torch modules on the CPU: every case must get
the same answer, None or the same reason; the fast path must not add a
graph break under torch.compile(fullgraph=True, backend="aot_eager"); a
projection that PEFT wraps after compiling must recompile into the fused
LoRA path (plain LoRA) or the fallback (DoRA, a subclass, ...), without a
graph break; and the per-call cost of the checks is printed (timeit),
also of the guard and the adapters' assembly on LoRA layers. Control: a
fast path that forgets the exact-type check is caught by the same
comparison.

  PYTHONPATH=python python3 python/tests/cpu_guard_fast_path.py

Needs torch, transformers and peft; no fmlp-compile, no GPU. Prints one
line per check, `N passed, N failed`; exits 1 if any check fails.
"""
import sys
import timeit
import warnings
from unittest import mock

import peft
import torch
from torch import nn
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaMLP

import fmlp
from fmlp import guard, modules

warnings.simplefilter("ignore")
D, H = 64, 128
CONFIG = LlamaConfig(hidden_size=D, intermediate_size=H, hidden_act="silu")
failed, passed = [], [0]


def report(name, ok, detail=""):
    print(f"{'pass' if ok else 'FAIL'}  {name:48s} {detail}", flush=True)
    if ok:
        passed[0] += 1
    else:
        failed.append(name)


def full_guard(module, names):
    """The shipped decision before the fast path: the full guard over
    getattr (with PEFT's LoRA types: peft is imported here)."""
    return guard.why_not_fusable([(n, getattr(module, n, None)) for n in names], nn.Linear,
                                 modules.TENSOR_TYPES, modules.SHARDED_TYPES, modules.lora_types())


def lora(**keywords):
    return lambda m: peft.inject_adapter_in_model(peft.LoraConfig(
        r=4, target_modules=["gate_proj", "up_proj", "down_proj"], **keywords), m)


class Quantized(torch.Tensor):
    """A tensor subclass (as a quantized weight)."""


def quantized(t):
    return t.detach().as_subclass(Quantized)


def weight_replaced(m):  # del, then assign: the tensor lands in __dict__
    w = m.gate_proj.weight
    del m.gate_proj.weight
    m.gate_proj.weight = quantized(w)


def bias_as_buffer(m):
    del m.down_proj._parameters["bias"]
    m.down_proj.register_buffer("bias", quantized(torch.randn(D)))


def parametrized(m):
    class Same(nn.Module):
        def forward(self, w):
            return w
    nn.utils.parametrize.register_parametrization(m.down_proj, "weight", Same())


def hook(register):
    return lambda m: getattr(m.up_proj, register)(lambda *args, **kwargs: None)


# name -> (change to a fresh fused module, whether it still fuses)
CASES = {
    "plain": (lambda m: None, True),
    "plain bias": (lambda m: setattr(m.down_proj, "bias", nn.Parameter(torch.randn(D))), True),
    "no bias entry": (lambda m: m.down_proj._parameters.pop("bias"), True),
    "tensor-subclass Parameter": (lambda m: setattr(m.gate_proj, "weight", nn.Parameter(
        quantized(torch.randn(H, D)))), False),
    "tensor-subclass weight in __dict__": (weight_replaced, False),
    "weight shadowed in __dict__": (lambda m: m.up_proj.__dict__.__setitem__(
        "weight", quantized(m.up_proj.weight)), False),
    "bias shadowed in __dict__": (lambda m: m.up_proj.__dict__.__setitem__(
        "bias", quantized(torch.randn(H))), False),
    "projection shadowed in __dict__": (lambda m: m.__dict__.__setitem__("down_proj", object()), False),
    "tensor-subclass bias": (lambda m: setattr(m.down_proj, "bias", nn.Parameter(
        quantized(torch.randn(D)))), False),
    "bias as a tensor-subclass buffer": (bias_as_buffer, False),
    "no weight": (lambda m: setattr(m.gate_proj, "weight", None), False),
    "projection missing": (lambda m: m._modules.pop("up_proj"), False),
    "forward hook": (hook("register_forward_hook"), False),
    "forward-pre hook": (hook("register_forward_pre_hook"), False),
    "full backward hook": (hook("register_full_backward_hook"), False),
    "backward-pre hook": (hook("register_full_backward_pre_hook"), False),
    "forward on the instance": (lambda m: setattr(m.gate_proj, "forward", lambda x: x), False),
    "Linear subclass": (lambda m: setattr(m, "up_proj", type("Linear", (nn.Linear,), {})(D, H)), False),
    "PEFT LoRA": (lora(), True),  # fused with its adapter terms
    "PEFT LoRA, dropout 0.1 (training)": (lora(lora_dropout=0.1), False),
    "PEFT DoRA": (lora(use_dora=True), False),
    "weight_norm": (lambda m: nn.utils.weight_norm(m.up_proj), False),
    "parametrize": (parametrized, False),
}


def fresh(cls=fmlp.FusedGatedMLP):
    return cls.wrap(LlamaMLP(CONFIG), CONFIG)


def compare_all(label):
    """Every case: the fast path's answer equals the full guard's, and the
    expected verdict. True when all hold."""
    ok = True
    for name, (change, fuses) in CASES.items():
        m = fresh()
        change(m)
        fast, full = modules.why_not_fusable(m, m._linears()), full_guard(m, m._linears())
        same = fast == full and (fast is None) == fuses
        ok = ok and same
        if label is not None:
            report(f"{label}: {name}", same, f"{'fuses' if fast is None else fast[:60]}")
    phi3 = fmlp.FusedPhi3MLP.__new__(fmlp.FusedPhi3MLP)
    nn.Module.__init__(phi3)
    phi3.gate_up_proj, phi3.down_proj = nn.Linear(D, 2 * H, bias=False), nn.Linear(H, D, bias=False)
    for fuses in (True, False):
        fast, full = modules.why_not_fusable(phi3, phi3._linears()), full_guard(phi3, phi3._linears())
        same = fast == full and (fast is None) == fuses
        ok = ok and same
        if label is not None:
            report(f"{label}: Phi3 gate_up_proj {'plain' if fuses else 'hooked'}", same, str(fast)[:60])
        phi3.gate_up_proj.register_forward_hook(lambda *args: None)
    return ok


class Stub(fmlp.FusedGatedMLP):
    """The fused paths and the fallback as torch arithmetic, to tell which
    ran (the adapters' assembly runs, its result summed in)."""

    def fused(self, x, params, *args):
        return x * 2

    def fused_lora(self, x, params, found, *args):
        return x * 3 + sum(a.sum() * 0 for a in self._adapters(found) if a is not None)

    def unfused(self, x):
        return x + 1


def compiled():
    x = torch.full((3, D), 3.0)  # fused: 6, with LoRA: 9, fallback: 4
    # An x on the CPU is taken by the stubs (the kernels' input check is
    # for CUDA devices).
    with mock.patch.object(modules, "_why_not_fused_input", lambda x: None):
        explanation = torch._dynamo.explain(fresh(Stub))(x)
        report("dynamo: no graph break", explanation.graph_break_count == 0,
               f"{explanation.graph_break_count} graph break(s)")
        for name, expected in (("PEFT LoRA", 9.0), ("PEFT DoRA", 4.0), ("Linear subclass", 4.0),
                               ("tensor-subclass Parameter", 4.0)):
            torch._dynamo.reset()
            m = fresh(Stub)
            c = torch.compile(m, fullgraph=True, backend="aot_eager")
            before = c(x)[0, 0].item()
            CASES[name][0](m)
            after = c(x)[0, 0].item()
            report(f"compiled fullgraph, then {name}", (before, after) == (6.0, expected),
                   f"fused path {before}, after the change {after} (6 then {expected}: "
                   "recompiled into the " + ("LoRA path)" if expected == 9.0 else "fallback)"))


def cost():
    config = LlamaConfig(hidden_size=1024, intermediate_size=2816, hidden_act="silu")
    m = fmlp.FusedGatedMLP.wrap(LlamaMLP(config), config)
    n = 20000
    for label, check in (("full guard", full_guard), ("fast path", modules.why_not_fusable)):
        t = min(timeit.repeat(lambda: check(m, m._linears()), number=n, repeat=7))
        print(f"info  the check alone, {label}: {t / n * 1e6:.2f} us per call")
    lora(lora_alpha=8)(m)
    n //= 10
    t = min(timeit.repeat(lambda: modules.projections(m, m._linears()), number=n, repeat=7))
    print(f"info  LoRA r = 4 on gate, up, down: the guard, {t / n * 1e6:.2f} us per call")
    found = modules.projections(m, m._linears())
    t = min(timeit.repeat(lambda: m._adapters(found), number=n, repeat=7))
    print(f"info  LoRA r = 4 on gate, up, down: A_cat, Bg, Bu, Ad, Bd, {t / n * 1e6:.2f} us per call")


def main():
    compare_all("same decision")
    compiled()
    # Control: a fast path that checks isinstance(nn.Linear), not the
    # exact type, must disagree with the full guard on some case.
    original = modules.why_not_fusable

    def lax(module, names):
        if all(isinstance(module._modules.get(n), nn.Linear) for n in names):
            return None
        return original(module, names)
    with mock.patch.object(modules, "why_not_fusable", lax):
        report("control: a lax fast path is caught", not compare_all(None))
    cost()
    print(f"{passed[0]} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
