"""The guard's fast paths (python/fmlp/modules.py: why_not_fusable's for
plain Linears, projections' for PEFT's LoRA Linears) against the full
guard (guard.why_not_fusable and guard.projections over getattr, what
they replaced, with PEFT's LoRA types), on real torch modules on the CPU:
every case must get the same answer, None or the same reason, and for
LoRA layers the same Projections (base Linears, adapters, scales), with
and without autocast; the LoRA cases (DoRA, dropout in training, lora
bias, merged mixes, disabled adapters, hooks on every part, shadowed
attributes, adapters of other dtypes or on another device, ...) also say
who decides (the fast path, or the full guard where the fast path leaves
it). The fast paths must not add a graph break under
torch.compile(fullgraph=True, backend="aot_eager"); a projection that
PEFT wraps after compiling must recompile into the fused LoRA path (plain
LoRA) or the fallback (DoRA, a subclass, ...), without a graph break; and
the per-call cost of the checks is printed (timeit), also of the guard
and the adapters' assembly on LoRA layers. Controls: a fast path that
forgets the exact-type check, a LoRA fast path blind to hooks, and one
that drops the adapters are each caught by the same comparison.

  PYTHONPATH=python python3 python/tests/cpu_guard_fast_path.py

Needs torch, transformers and peft (else exits 77: ctest skips it); no
fmlp-compile, no GPU. Prints one line per check, `N passed, N failed`;
exits 1 if any check fails.
"""
import sys
import timeit
import warnings
from unittest import mock

try:
    import peft
    import torch
    from torch import nn
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaMLP
except ImportError as missing:  # ctest's python/guard-fast-path: skipped
    print(f"skipped: {missing} (needs torch, transformers and peft)")
    sys.exit(77)

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


NAMES = ("gate_proj", "up_proj", "down_proj")


def adapters(*names, **keywords):
    """PEFT's LoRA (r = 4) on gate, up and down under each of `names`, all
    active."""
    def change(m):
        for name in names:
            peft.inject_adapter_in_model(peft.LoraConfig(
                r=4, target_modules=list(NAMES), **keywords), m, adapter_name=name)
        for projection in NAMES:
            getattr(m, projection).set_adapter(list(names))
    return change


def then(*changes):
    def change_all(m):
        for change in changes:
            change(m)
    return change_all


def on(projection, change):
    """`change` applied to m.<projection> (a LoRA layer)."""
    return lambda m: change(getattr(m, projection))


def adapter_dtype(dtype, base=None):
    """The LoRA weights cast to `dtype` (PEFT's _cast_adapter_dtype: param.data
    = ...), the base (and everything else) to `base` first."""
    def change(m):
        if base is not None:
            m.to(base)
        for name, p in m.named_parameters():
            if "lora_" in name:
                p.data = p.data.to(dtype)
    return change


def lora_hook(part, register):
    """A hook `register`ed on gate_proj's `part`."""
    def change(m):
        layer = m.gate_proj
        target = {"layer": layer, "base_layer": layer.base_layer,
                  "lora_A": layer.lora_A["default"], "lora_B": layer.lora_B["default"],
                  "dropout": layer.lora_dropout["default"]}[part]
        getattr(target, register)(lambda *args, **kwargs: None)
    return change


def replace_dropout(module):
    return on("up_proj", lambda layer: layer.lora_dropout.__setitem__("default", module))


def lora_a_with_bias(m):
    m.gate_proj.lora_A["default"].bias = nn.Parameter(torch.zeros(4))


def lora_b_parametrized(m):
    class Same(nn.Module):
        def forward(self, w):
            return w
    nn.utils.parametrize.register_parametrization(m.down_proj.lora_B["default"], "weight",
                                                  Same())


def lora_layer_subclass(m):
    m.gate_proj.__class__ = type("Linear", (type(m.gate_proj),), {})


# name -> (change to a fresh fused module, what decides without autocast:
# "fast", fused by the LoRA fast path; "full", fused by the full guard
# (the fast path leaves it); False, refused). Each is also compared under
# autocast (the fast path's answer, where it gives one, is the guard's).
LORA_CASES = {
    "LoRA": (adapters("default"), "fast"),
    "LoRA, rsLoRA": (adapters("default", use_rslora=True), "fast"),
    "LoRA, two adapters": (adapters("a", "b"), "fast"),
    "LoRA, two adapters, one active": (then(adapters("a", "b"), *(
        on(n, lambda layer: layer.set_adapter("b")) for n in NAMES)), "fast"),
    "LoRA, an active adapter the layer lacks": (then(adapters("default"), on(
        "gate_proj", lambda layer: setattr(layer, "_active_adapter", ["default", "ghost"]))),
        "fast"),
    "LoRA, an int scale": (then(adapters("default"), on(
        "up_proj", lambda layer: layer.scaling.__setitem__("default", 2))), "fast"),
    "LoRA, a tensor scale": (then(adapters("default"), on(
        "up_proj", lambda layer: layer.scaling.__setitem__("default", torch.tensor(2.0)))), False),
    "LoRA, a bool scale": (then(adapters("default"), on(
        "up_proj", lambda layer: layer.scaling.__setitem__("default", True))), False),
    "LoRA, dropout 0.1 (training)": (adapters("default", lora_dropout=0.1), False),
    "LoRA, dropout 0.1 (eval)": (then(adapters("default", lora_dropout=0.1),
                                      lambda m: m.eval()), "fast"),
    "LoRA, dropout 0.1 (training), adapters disabled": (then(
        adapters("default", lora_dropout=0.1),
        *(on(n, lambda layer: layer.enable_adapters(False)) for n in NAMES)), "fast"),
    "LoRA, nn.Dropout(0)": (then(adapters("default"), replace_dropout(nn.Dropout(0.0))), "fast"),
    "LoRA, a Dropout subclass": (then(adapters("default"), replace_dropout(
        type("Dropout", (nn.Dropout,), {})(0.0))), False),
    "LoRA, ReLU as dropout": (then(adapters("default"), replace_dropout(nn.ReLU())), False),
    "LoRA, no dropout entry": (then(adapters("default"), on(
        "down_proj", lambda layer: layer.lora_dropout.__delitem__("default"))), False),
    "DoRA": (adapters("default", use_dora=True), False),
    "LoRA, use_dora set alone": (then(adapters("default"), on(
        "gate_proj", lambda layer: layer.use_dora.__setitem__("default", True))), False),
    "LoRA, a magnitude vector entry": (then(adapters("default"), on(
        "gate_proj", lambda layer: layer.lora_magnitude_vector.__setitem__(
            "default", nn.Identity()))), False),
    "LoRA, a lora_variant entry": (then(adapters("default"), on(
        "gate_proj", lambda layer: layer.lora_variant.__setitem__("default", object()))), False),
    "LoRA, an inactive DoRA adapter": (then(adapters("dora", use_dora=True), adapters(
        "default")), "fast"),
    "LoRA, lora_bias": (adapters("default", lora_bias=True), False),
    "LoRA, lora_A with a bias": (then(adapters("default"), lora_a_with_bias), False),
    "LoRA, no lora_B entry": (then(adapters("default"), on(
        "up_proj", lambda layer: layer.lora_B.__delitem__("default"))), False),
    "LoRA, every layer merged": (then(adapters("default"), *(
        on(n, lambda layer: layer.merge()) for n in NAMES)), "full"),
    "LoRA, one layer merged": (then(adapters("default"), on(
        "down_proj", lambda layer: layer.merge())), "full"),
    "LoRA, two adapters, one merged": (then(adapters("a", "b"), on(
        "gate_proj", lambda layer: layer.merge(adapter_names=["a"]))), False),
    "LoRA, adapters disabled": (then(adapters("default"), *(
        on(n, lambda layer: layer.enable_adapters(False)) for n in NAMES)), "fast"),
    "LoRA, disabled while merged": (then(adapters("default"), on(
        "up_proj", lambda layer: layer.merge()), on(
        "up_proj", lambda layer: layer.enable_adapters(False))), False),
    "LoRA, merged_adapters a tuple": (then(adapters("default"), on(
        "gate_proj", lambda layer: setattr(layer, "merged_adapters", ()))), "full"),
    "LoRA, active adapters a set": (then(adapters("default"), on(
        "gate_proj", lambda layer: setattr(layer, "_active_adapter", {"default"}))), False),
    "LoRA, forward hook on the layer": (then(adapters("default"), lora_hook(
        "layer", "register_forward_hook")), False),
    "LoRA, forward-pre hook on base_layer": (then(adapters("default"), lora_hook(
        "base_layer", "register_forward_pre_hook")), False),
    "LoRA, forward hook on lora_A": (then(adapters("default"), lora_hook(
        "lora_A", "register_forward_hook")), False),
    "LoRA, forward-pre hook on lora_B": (then(adapters("default"), lora_hook(
        "lora_B", "register_forward_pre_hook")), False),
    "LoRA, backward hook on lora_A": (then(adapters("default"), lora_hook(
        "lora_A", "register_full_backward_hook")), False),
    "LoRA, backward-pre hook on lora_B": (then(adapters("default"), lora_hook(
        "lora_B", "register_full_backward_pre_hook")), False),
    "LoRA, forward hook on the dropout": (then(adapters("default"), lora_hook(
        "dropout", "register_forward_hook")), False),
    "LoRA, forward on the layer's instance": (then(adapters("default"), on(
        "gate_proj", lambda layer: setattr(layer, "forward", lambda x: x))), False),
    "LoRA, forward on lora_A's instance": (then(adapters("default"), on(
        "gate_proj", lambda layer: setattr(layer.lora_A["default"], "forward",
                                           lambda x: x))), False),
    "LoRA, weight_norm on lora_B": (then(adapters("default"), on(
        "up_proj", lambda layer: nn.utils.weight_norm(layer.lora_B["default"]))), False),
    "LoRA, parametrized lora_B": (then(adapters("default"), lora_b_parametrized), False),
    "LoRA, lora_A a Linear subclass": (then(adapters("default"), on(
        "gate_proj", lambda layer: layer.lora_A.__setitem__(
            "default", type("Linear", (nn.Linear,), {})(D, 4, bias=False)))), False),
    "LoRA, lora_A's weight a tensor subclass": (then(adapters("default"), on(
        "gate_proj", lambda layer: setattr(layer.lora_A["default"], "weight", nn.Parameter(
            quantized(torch.randn(4, D)))))), False),
    "LoRA, lora_A's weight shadowed in __dict__": (then(adapters("default"), on(
        "gate_proj", lambda layer: layer.lora_A["default"].__dict__.__setitem__(
            "weight", torch.randn(4, D)))), "full"),
    "LoRA, base weight a tensor subclass": (then(adapters("default"), on(
        "down_proj", lambda layer: setattr(layer.base_layer, "weight", nn.Parameter(
            quantized(torch.randn(D, H)))))), False),
    "LoRA, base_layer a Linear subclass": (then(adapters("default"), on(
        "down_proj", lambda layer: setattr(layer, "base_layer", type(
            "Linear", (nn.Linear,), {})(H, D)))), False),
    "LoRA, lora_A shadowed in the layer's __dict__": (then(adapters("default"), on(
        "gate_proj", lambda layer: layer.__dict__.__setitem__("lora_A", {}))), "full"),
    "LoRA, base_layer shadowed in the layer's __dict__": (then(adapters("default"), on(
        "gate_proj", lambda layer: layer.__dict__.__setitem__(
            "base_layer", nn.Linear(D, H)))), "full"),
    "LoRA, a parameter on the layer": (then(adapters("default"), on(
        "gate_proj", lambda layer: layer.register_parameter(
            "extra", nn.Parameter(torch.zeros(1))))), "full"),
    "LoRA, a LoRA Linear subclass": (then(adapters("default"), lora_layer_subclass), False),
    "LoRA, lora_B on the meta device": (then(adapters("default"), on(
        "up_proj", lambda layer: layer.lora_B["default"].to("meta"))), False),
    "LoRA, fp16 adapters over an fp32 base": (then(adapters("default"),
                                                   adapter_dtype(torch.float16)), False),
    "LoRA, bf16 adapters over an fp32 base": (then(adapters("default"),
                                                   adapter_dtype(torch.bfloat16)), False),
    "LoRA, fp32 adapters over a bf16 base": (then(adapters("default"), adapter_dtype(
        torch.float32, torch.bfloat16)), "fast"),
    "LoRA, fp32 adapters over a bf16 base, cast_adapters False": (then(
        adapters("default"), adapter_dtype(torch.float32, torch.bfloat16),
        lambda m: setattr(m, "cast_adapters", False)), False),
    "LoRA, bf16 adapters over a bf16 base": (then(adapters("default"), adapter_dtype(
        torch.bfloat16, torch.bfloat16)), "fast"),
    "LoRA on gate, a hooked plain up": (then(lambda m: peft.inject_adapter_in_model(
        peft.LoraConfig(r=4, target_modules=["gate_proj"]), m), lambda m: m.up_proj.
        register_forward_hook(lambda *args: None)), False),
    "LoRA on down only": (lambda m: peft.inject_adapter_in_model(
        peft.LoraConfig(r=4, target_modules=["down_proj"]), m), "fast"),
}


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
    # nn.Linear's forward reads self.bias: without the entry it fails, and
    # the guard refuses (the fused module's _params would read it too).
    "no bias entry": (lambda m: m.down_proj._parameters.pop("bias"), False),
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
    "projection shadowed by a parameter": (lambda m: m._parameters.__setitem__(
        "up_proj", nn.Parameter(torch.zeros(1))), False),
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
    ok = compare_lora(label) and ok
    phi3 = phi3_stand_in()
    for fuses in (True, False):
        fast, full = modules.why_not_fusable(phi3, phi3._linears()), full_guard(phi3, phi3._linears())
        same = fast == full and (fast is None) == fuses
        ok = ok and same
        if label is not None:
            report(f"{label}: Phi3 gate_up_proj {'plain' if fuses else 'hooked'}", same, str(fast)[:60])
        phi3.gate_up_proj.register_forward_hook(lambda *args: None)
    return ok


def phi3_stand_in():
    """A FusedPhi3MLP's projections (gate_up_proj, down_proj) without the
    rest of its set-up: what the guard reads."""
    phi3 = fmlp.FusedPhi3MLP.__new__(fmlp.FusedPhi3MLP)
    nn.Module.__init__(phi3)
    phi3.gate_up_proj, phi3.down_proj = nn.Linear(D, 2 * H, bias=False), nn.Linear(H, D, bias=False)
    return phi3


def full_projections(module, names, autocast):
    """The full guard's Projections (or reason) over getattr."""
    return guard.projections([(n, getattr(module, n, None)) for n in names], nn.Linear,
                             modules.TENSOR_TYPES, modules.SHARDED_TYPES,
                             modules.lora_types(getattr(module, "cast_adapters", True)), autocast)


def compare_lora(label):
    """Every LoRA case, with and without autocast: modules.projections (the
    fast path, then the full guard) gives the full guard's answer (the same
    Projections: base Linears, adapters, scales; or the same reason); the
    LoRA fast path, where it answers, gives the same; and who decides is
    as expected. True when all hold."""
    ok = True
    phi3 = phi3_stand_in()
    peft.inject_adapter_in_model(peft.LoraConfig(
        r=4, target_modules=["gate_up_proj", "down_proj"]), phi3)
    cases = [(name, fresh, change, decides) for name, (change, decides) in LORA_CASES.items()]
    cases.append(("Phi3 gate_up_proj, LoRA", lambda: phi3, lambda m: None, "fast"))
    for name, make, change, decides in cases:
        m = make()
        change(m)
        names = m._linears()
        for autocast in (False, True):
            full = full_projections(m, names, autocast)
            try:
                whole = modules.projections(m, names, autocast)
                fast = modules._fast_projections(
                    m, names, modules.lora_types(getattr(m, "cast_adapters", True)), autocast)
            except Exception as error:  # a lax fast path may read what is not there
                whole = fast = f"raised {type(error).__name__}: {error}"
            decided = ("refused" if isinstance(full, str) else
                       "fast" if fast is not None else "full")
            same = whole == full and (fast is None or fast == full)
            if not autocast:
                same = same and decided == (decides or "refused")
            ok = ok and same
            if label is not None:
                report(f"{label}: {name}{', autocast' if autocast else ''}", same,
                       f"{decided}: " + (full[:50] if isinstance(full, str) else
                                         f"{sum(len(p.adapters) for p in full)} adapter terms"))
    return ok


class Stub(fmlp.FusedGatedMLP):
    """The fused paths and the fallback as torch arithmetic, to tell which
    ran (the adapters' assembly runs, its result summed in)."""

    def fused(self, x, params, *args):
        return x * 2

    def fused_lora(self, x, params, found, *args):
        matrices = self._adapter_matrices(found, x.dtype)
        return x * 3 + sum(a.sum() * 0 for a in matrices if a is not None)

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
        for name in ("LoRA", "LoRA, two adapters", "LoRA, fp32 adapters over a bf16 base"):
            torch._dynamo.reset()
            m = fresh(Stub)
            LORA_CASES[name][0](m)
            m.reuse_adapters = True
            xx = x.to(m.gate_proj.base_layer.weight.dtype)
            with torch.no_grad():  # where eager calls would keep the matrices
                explanation = torch._dynamo.explain(m)(xx)
                y = torch.compile(m, fullgraph=True, backend="aot_eager")(xx)
            report(f"dynamo, {name}: the LoRA fast path, no graph break",
                   explanation.graph_break_count == 0 and y[0, 0].item() == 9.0
                   and "_fmlp_adapters" not in m.__dict__,
                   f"{explanation.graph_break_count} graph break(s), y {y[0, 0].item()} (9: "
                   "the LoRA path), nothing kept under compile")
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
    lora_types = modules.lora_types()
    for label, check in (
            ("the guard (fast path)", lambda: modules.projections(m, m._linears())),
            ("the full guard", lambda: full_projections(m, m._linears(), False)),
            ("the fast path alone", lambda: modules._fast_projections(m, m._linears(),
                                                                       lora_types))):
        t = min(timeit.repeat(check, number=n, repeat=7))
        print(f"info  LoRA r = 4 on gate, up, down: {label}, {t / n * 1e6:.2f} us per call")
    found = modules.projections(m, m._linears())
    t = min(timeit.repeat(lambda: m._adapters(found), number=n, repeat=7))
    print(f"info  LoRA r = 4 on gate, up, down: A_cat, Bg, Bu, Ad, Bd, {t / n * 1e6:.2f} us per call")
    m.reuse_adapters = True
    with torch.no_grad():
        t = min(timeit.repeat(lambda: m._adapter_matrices(found, torch.float32), number=n,
                              repeat=7))
    print(f"info  LoRA r = 4 on gate, up, down: the same kept (no-grad), {t / n * 1e6:.2f} us "
          "per call")


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
    # Controls of the LoRA fast path: one that takes a hooked or
    # parametrized Linear (exact type only) for lora_A, lora_B or the
    # base, and one that answers a layer's base without its adapters,
    # must each disagree with the full guard on some case.
    with mock.patch.object(modules, "_plain_linear", lambda p: type(p) is nn.Linear):
        report("control: a LoRA fast path blind to hooks is caught", not compare_lora(None))
    bypass = lambda p, lora, autocast: guard.Projection(p.base_layer)  # noqa: E731
    with mock.patch.object(modules, "_lora_projection", bypass):
        report("control: a LoRA fast path that drops the adapters is caught",
               not compare_lora(None))
    cost()
    print(f"{passed[0]} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
