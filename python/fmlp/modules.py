"""Drop-in modules for Hugging Face gated MLPs, running fmlp's kernels.

Each keeps its original's constructor, attribute names and state_dict keys
(gate_proj, up_proj, down_proj or Phi3's gate_up_proj; act_fn, or Phi3's
and Llama4's activation_fn), so
checkpoints load unchanged, and uses the nn.Linear weights in place (no
transposed or contiguous copies). An x the kernels cannot take (on the CPU,
float64), or a block fmlp has no kernels for on this GPU (compute
capability 7.5 and older; one fmlp-compile refuses: spec.Unavailable) runs
Hugging Face's forward with one UnfusedWarning saying why (with
FMLP_STRICT=1, the latter raises); a parameter whose dtype or device is not
x's raises an error that says so.

The fused kernels read the projections' weights and never call the
projection modules. At every forward the guard (guard.py) checks that
calling them would compute nothing else (plain nn.Linear, no hooks, plain
or DTensor weights) or only what fmlp adds itself (PEFT's LoRA Linear over
a plain nn.Linear, with plain LoRA adapters: the block then runs with
their terms, built per call by lora.py, or kept from the last call where
autograd records nothing and reuse_adapters is set; docs/LoRA.md); when
it does not hold (DoRA and other adapters, a quantized Linear, hooks,
...), the module runs Hugging Face's own forward, calling the
projections, and warns once per module and reason. So it does where the
block it would fuse is not the module's: biases on some projections only,
or an activation module that fmlp does not fuse or that does more than
its type's forward (hooks, a forward of its own; fused_activation); and
where a weight (a LoRA adapter's too) cannot be read in place: not dense
row-major, or not on a 16-byte boundary (_in_place); and under
forward-mode AD, which the ops refuse (_why_not_fused_mode).
"""
from __future__ import annotations

import sys
import warnings
from typing import Dict, List, Optional, Sequence, Tuple, Union

import torch
from torch import nn
from torch.autograd import forward_ad
from torch._subclasses.fake_tensor import FakeTensor
from torch._subclasses.functional_tensor import FunctionalTensor

from . import guard, lora, ops, parallel, policy, runtime, spec as specs
from . import precision as precisions


_chips = {}  # device index -> its chip, or the Unavailable of a GPU the table lacks


def _torch_fp32_precision() -> str:
    """precision.from_torch, which torch.compile's dynamo cannot trace
    (torch.get_float32_matmul_precision returns a str): read once at trace
    time as a constant. Changing the setting changes
    torch.backends.cuda.matmul.allow_tf32, which dynamo's global-state
    guard checks, so a compiled module retraces (gpu_modules.py
    precisions checks both)."""
    return precisions.from_torch()


if hasattr(torch, "_dynamo") and hasattr(torch._dynamo, "assume_constant_result"):
    _torch_fp32_precision = torch._dynamo.assume_constant_result(_torch_fp32_precision)

# What the guard takes as a plain weight, and as a sharded one whose local
# shard fmlp reads (parallel.py). FakeTensor and FunctionalTensor are the
# stand-ins of plain weights while torch.export (non-strict: this Python
# runs on them) or functionalization traces the module; a tensor subclass
# stays its own type under tracing, and is refused as before.
TENSOR_TYPES = (torch.Tensor, nn.Parameter, FakeTensor, FunctionalTensor)
SHARDED_TYPES = (parallel.DTensor,) if parallel.DTensor is not None else ()
# The fast path's (why_not_fusable): exact types, compared by set membership.
_PLAIN_TYPES = frozenset(TENSOR_TYPES)
_PLAIN_TYPES_OR_NONE = _PLAIN_TYPES | {type(None)}


# The adapters fmlp casts to the base weight's dtype (FusedGatedMLP.
# cast_adapters): float32 over a 16-bit base weight, what PEFT's
# get_peft_model and add_adapter keep by default (autocast_adapter_dtype).
ADAPTER_CASTS = frozenset({(torch.float32, torch.bfloat16), (torch.float32, torch.float16)})
_lora_types: Dict[bool, guard.LoraTypes] = {}
# PEFT's LoRA Linear -> whether the LoRA fast path may read it from
# nn.Module's dicts (_lora_layout_known), found with its LoraTypes.
_lora_layouts: Dict[type, bool] = {}


def lora_types(cast: bool = True) -> Optional[guard.LoraTypes]:
    """PEFT's LoRA Linear and the module types of its dropout, once PEFT's
    LoRA layers are imported (a module cannot be one before); else None.
    `cast`: with ADAPTER_CASTS (else adapters of the base weight's dtype
    only). fmlp does not import PEFT."""
    found = _lora_types.get(cast)
    if found is None:
        layer = sys.modules.get("peft.tuners.lora.layer")
        linear = getattr(layer, "Linear", None)
        if isinstance(linear, type):
            found = _lora_types[cast] = guard.LoraTypes(
                linear, nn.Identity, nn.Dropout, ADAPTER_CASTS if cast else frozenset())
            _lora_layouts[linear] = _lora_layout_known(linear)
    return found


def projections(module: nn.Module, names: Sequence[str], autocast: bool = False
                ) -> Union[str, List[guard.Projection]]:
    """guard.projections of `module`'s projections `names` (read by
    getattr), with PEFT's LoRA layers where PEFT is imported: the
    Projections (each a plain Linear and the LoRA adapter terms it adds),
    or why the fused kernels cannot compute them. float32 adapters over a
    16-bit base are taken unless `module`'s cast_adapters is False.

    Runs at every forward of a module with LoRA layers, so that
    _fast_projections answers first where it accepts (plain Linears and
    PEFT's LoRA Linears, read from nn.Module's dicts); the full guard
    decides the rest and says why."""
    lora = lora_types(getattr(module, "cast_adapters", True))
    found = _fast_projections(module, names, lora, autocast)
    if found is not None:
        return found
    found = guard.projections([(n, getattr(module, n, None)) for n in names], nn.Linear,
                              TENSOR_TYPES, SHARDED_TYPES, lora, autocast)
    if isinstance(found, str):
        return found
    # The adapters' weights must be dense in place as the base weights are
    # (_params): one adapter of a padded rank and scale 1 reaches the
    # kernels as it is (lora.stack). The fast path leaves an adapter that
    # is not to the full guard (_lora_projection), and so to this check.
    for name, projection in zip(names, found):
        for adapter in projection.adapters:
            for part, linear in (("lora_A", adapter.lora_A), ("lora_B", adapter.lora_B)):
                why = _why_not_dense(linear.weight)
                if why is not None:
                    return f"its {name}'s adapter {adapter.name!r} {part} weight {why}"
    return found


def why_not_fusable(module: nn.Module, names: Sequence[str]) -> Optional[str]:
    """None when the fused kernels may compute `module`'s projections
    `names` from their weights (and LoRA adapters, see projections)
    instead of calling them; else why not.

    It runs at every forward, so the common case is decided by a fast path
    that reads nn.Module's own dictionaries: where getattr(module, name)
    finds a submodule or a parameter only after a failed normal lookup
    (an AttributeError, then nn.Module.__getattr__), `_modules` and
    `_parameters` are one dict read each. The fast path accepts only what
    guard.why_not_plain_linear accepts (exact nn.Linear, the four hook
    dicts empty, no forward on the instance, weight a plain tensor, bias a
    plain tensor or None), reading the same objects as getattr: a name
    in the instance's __dict__, `_parameters` or `_buffers` would shadow
    the dict entry, so such a name sends the decision to the full guard.
    (Not covered: a class attribute named like a projection on the fused
    module's own class, which getattr would return instead of the
    submodule; checking the class costs an AttributeError per name.)
    Anything else goes to projections: PEFT's plain LoRA layers are
    accepted by its fast path (_fast_projections, in the same manner),
    the rest (other PEFT tuners, DoRA, quantized Linear, hooks, DTensor
    weights, ...) by guard.projections, which decides and says why.
    Dynamo traces them into guards, as before."""
    if _plain_linears(module, names) is not None:
        return None
    found = projections(module, names)
    return found if isinstance(found, str) else None


def _plain_linears(module: nn.Module, names: Sequence[str]) -> Optional[List[nn.Linear]]:
    """why_not_fusable's fast path: the projections `names` of `module`,
    read from its `_modules`, when each is accepted (see why_not_fusable);
    else None (the full guard decides). For an accepted projection,
    `_parameters["weight"]` and `["bias"]` are what getattr returns."""
    projections, own = module._modules, module.__dict__
    params, buffers = module._parameters, module._buffers
    linears = []
    for name in names:
        p = projections.get(name)
        if name in own or name in params or name in buffers or not _plain_linear(p):
            return None
        linears.append(p)
    return linears


def _plain_linear(p) -> bool:
    """Whether _plain_linears would accept the projection `p` (read from a
    `_modules` dict that nothing shadows): exact nn.Linear, no hooks, no
    forward, weight or bias on the instance, a plain weight, a plain bias
    or None registered."""
    if (type(p) is not nn.Linear or p._forward_hooks or p._forward_pre_hooks
            or p._backward_hooks or p._backward_pre_hooks):
        return False
    attributes, params = p.__dict__, p._parameters
    # A missing "bias" entry reads as False (a bool, not in the types):
    # nn.Linear registers it, as None when it has no bias.
    return not ("forward" in attributes or "weight" in attributes or "bias" in attributes
                or type(params.get("weight")) not in _PLAIN_TYPES
                or type(params.get("bias", False)) not in _PLAIN_TYPES_OR_NONE)


# What the LoRA fast path reads of PEFT's LoRA Linear from nn.Module's
# dicts: these submodules from `_modules` (getattr finds them there only
# after a failed normal lookup, the instance's __dict__ and the class, and
# after `_parameters` and `_buffers`) and these attributes from the
# instance's __dict__ (getattr's answer unless the class has a data
# descriptor of that name). _lora_layout_known checks the class once.
_LORA_SUBMODULES = ("base_layer", "lora_A", "lora_B", "lora_dropout", "lora_magnitude_vector")
_LORA_ATTRIBUTES = ("merged_adapters", "scaling", "use_dora", "lora_variant", "lora_bias")


def _lora_layout_known(cls: type) -> bool:
    """Whether getattr on an instance of `cls` returns, for the names the
    LoRA fast path reads from dicts, what those dicts hold (above): no
    class attribute named like a submodule, no data descriptor named like
    an attribute, nn.Module's attribute lookup. Else the fast path leaves
    the class to the full guard."""
    absent = object()  # a class attribute may be None, and still found first

    def on_class(name):
        return next((vars(k)[name] for k in cls.__mro__ if name in vars(k)), absent)
    return (cls.__getattr__ is nn.Module.__getattr__
            and cls.__getattribute__ is object.__getattribute__
            and all(on_class(name) is absent for name in _LORA_SUBMODULES)
            and not any(hasattr(type(on_class(name)), "__set__")
                        or hasattr(type(on_class(name)), "__delete__")
                        for name in _LORA_ATTRIBUTES))


def _lora_projection(p, lora: guard.LoraTypes, autocast: bool) -> Optional[guard.Projection]:
    """guard.lora_projection's Projection of `p`, PEFT's LoRA Linear (exact
    type lora.layer, from a `_modules` dict that nothing shadows), where it
    accepts the common case: no hooks, no forward on the instance, no
    parameters or buffers of its own (they would shadow `_modules`), a
    base_layer that _plain_linear accepts, nothing merged; disabled
    adapters (the base alone) or active adapters each without a variant,
    DoRA or lora_bias, lora_A and lora_B plain Linears without bias, the
    dropout exactly nn.Identity or nn.Dropout (p = 0 or eval mode)
    without hooks, a scale of type int or float, weights on the base
    weight's device of a dtype the guard takes. Read from nn.Module's
    dicts (one dict read where getattr goes through an AttributeError and
    nn.Module.__getattr__), the properties disable_adapters and
    active_adapters as the guard reads them. None: the full guard
    decides (and says why it refuses)."""
    if (p._forward_hooks or p._forward_pre_hooks or p._backward_hooks or p._backward_pre_hooks
            or p._parameters or p._buffers or not _lora_layouts.get(lora.layer)):
        return None
    own, children = p.__dict__, p._modules
    for name in _LORA_SUBMODULES:
        if name in own:
            return None
    if "forward" in own:
        return None
    base = children.get("base_layer")
    merged = own.get("merged_adapters")
    if not _plain_linear(base) or type(merged) is not list or merged:
        return None
    if p.disable_adapters:
        return guard.Projection(base)
    active = p.active_adapters
    if isinstance(active, str):
        active = [active]
    lora_A, lora_B = children.get("lora_A"), children.get("lora_B")
    dropouts, magnitudes = children.get("lora_dropout"), children.get("lora_magnitude_vector")
    variants, dora = own.get("lora_variant"), own.get("use_dora")
    lora_bias, scalings = own.get("lora_bias"), own.get("scaling")
    if (not isinstance(active, (list, tuple)) or type(lora_A) is not nn.ModuleDict
            or type(lora_B) is not nn.ModuleDict or type(dropouts) is not nn.ModuleDict
            or type(magnitudes) is not nn.ModuleDict or type(variants) is not dict
            or type(dora) is not dict or type(lora_bias) is not dict
            or type(scalings) is not dict):
        return None
    a_modules, b_modules, dropouts = lora_A._modules, lora_B._modules, dropouts._modules
    weight = base._parameters["weight"]
    adapters = []
    for name in active:
        if name not in a_modules:
            continue  # PEFT skips an active adapter the layer lacks; so does the guard
        if (name in variants or dora.get(name) or name in magnitudes._modules
                or lora_bias.get(name) or name not in b_modules or name not in dropouts):
            return None
        a, b, dropout = a_modules[name], b_modules[name], dropouts[name]
        if (not _plain_linear(a) or not _plain_linear(b) or a._parameters["bias"] is not None
                or b._parameters["bias"] is not None):
            return None
        kind = type(dropout)
        if kind is lora.dropout:
            if dropout.p != 0 and dropout.training:
                return None
        elif kind is not lora.identity:
            return None
        if (dropout._forward_hooks or dropout._forward_pre_hooks or dropout._backward_hooks
                or dropout._backward_pre_hooks or "forward" in dropout.__dict__):
            return None
        scaling = scalings.get(name)
        if type(scaling) is not float and type(scaling) is not int:
            return None
        for w in (a._parameters["weight"], b._parameters["weight"]):
            if ((not autocast and w.dtype != weight.dtype
                 and (w.dtype, weight.dtype) not in lora.casts) or w.device != weight.device
                    or not _in_place(w)):
                return None
        adapters.append(guard.Adapter(name, a, b, scaling))
    return guard.Projection(base, tuple(adapters))


def _fast_projections(module: nn.Module, names: Sequence[str], lora: Optional[guard.LoraTypes],
                      autocast: bool = False) -> Optional[List[guard.Projection]]:
    """projections' fast path: the Projections of `module`'s projections
    `names`, read from its `_modules`, when each is a plain Linear that
    _plain_linear accepts or a PEFT LoRA Linear that _lora_projection
    accepts (`lora`: PEFT's types, None before PEFT is imported); else
    None, and the full guard decides. A name in the instance's __dict__,
    `_parameters` or `_buffers` would shadow the `_modules` entry for
    getattr: the full guard decides. Accepts only what the full guard
    accepts, with the same Projections (python/tests/
    cpu_guard_fast_path.py holds the two to the same answers)."""
    children, own = module._modules, module.__dict__
    params, buffers = module._parameters, module._buffers
    found = []
    for name in names:
        if name in own or name in params or name in buffers:
            return None
        p = children.get(name)
        if type(p) is nn.Linear:
            if not _plain_linear(p):
                return None
            found.append(guard.Projection(p))
            continue
        if lora is None or type(p) is not lora.layer:
            return None
        projection = _lora_projection(p, lora, autocast)
        if projection is None:
            return None
        found.append(projection)
    return found


# The address alignment (bytes) fmlp asks of every parameter (_in_place).
ALIGNMENT = 16


def _why_not_dense(t: torch.Tensor) -> Optional[str]:
    """Why the fused kernels cannot read the parameter `t` where it is (a
    phrase after its name), or None: _in_place's rule, on a sharded
    weight's local shard, which the kernels read (parallel.py)."""
    if type(t) not in _PLAIN_TYPES and SHARDED_TYPES and isinstance(t, SHARDED_TYPES):
        t = t._local_tensor
    if _in_place(t):
        return None
    if not t.is_contiguous():
        return (f"is not contiguous (shape {tuple(t.shape)}, strides {t.stride()}), and the "
                "fused kernels read it in place, dense row-major")
    return (f"begins {t.storage_offset()} elements into its storage, not on a {ALIGNMENT}-byte "
            "boundary, and the fused kernels read it in place from there")


def _in_place(t: torch.Tensor) -> bool:
    """Whether the fused kernels can read the tensor `t` where it is. They
    read every parameter in place (no copy is made), dense row-major
    (is_contiguous(): a dimension of size 1 may have any stride, as in the
    runtime's layout check), from a 16-byte aligned address (TMA's and the
    vector loads': ALIGNMENT; a bundle of SIMT kernels alone would take
    less, but patch_model has no bundle to ask, and agrees with forward).
    torch's allocators align a storage to 64 bytes or more, so t's offset
    into its storage decides (a FakeTensor has one, and no address).
    Cheap: it runs at every forward. Under torch.compile only the layout
    is checked: dynamo (torch 2.11) cannot trace storage_offset(), and the
    op copies a misaligned weight there (ops._Plan._aligned)."""
    if not t.is_contiguous():
        return False
    return (torch.compiler.is_compiling()
            or not t.storage_offset() * t.element_size() % ALIGNMENT)


def _dense(params: List[torch.Tensor], names: Sequence[str]) -> List[torch.Tensor]:
    """`params`, the kernels' parameters (`names`: each one's), when the
    kernels can read each in place (_why_not_dense); else _NotFused."""
    for name, p in zip(names, params):
        if type(p) in _PLAIN_TYPES and _in_place(p):
            continue
        why = _why_not_dense(p)
        if why is not None:
            raise _NotFused(f"its {name} {why}")
    return params


def _why_not_fused_input(x: torch.Tensor) -> Optional[str]:
    """Why the fused kernels cannot take x, or None: they run on CUDA
    devices, in bfloat16, float16 and float32 (autocast leaves float64
    as it is)."""
    if x.device.type != "cuda":
        return f"x is on {x.device.type}, and fmlp's kernels run on CUDA devices"
    if x.dtype not in ops.DTYPES:
        return (f"x is {x.dtype}, and fmlp's kernels take "
                + ", ".join(str(d) for d in ops.DTYPES))
    return None


def _why_not_fused_mode() -> Optional[str]:
    """Why no fused kernel may run now, or None: under forward-mode AD (a
    dual level: torch.func.jvp, jacfwd, torch.autograd.forward_ad) the
    ops refuse (they have no forward derivative; ops.py), and Hugging
    Face's forward gives the tangents. One global's read."""
    if forward_ad._current_level >= 0:
        return ("forward-mode AD is active (torch.func.jvp, jacfwd or "
                "torch.autograd.forward_ad), and fmlp's kernels have no forward derivative")
    return None


# The dtypes autocast casts to a lower precision (its "cached_cast": floating
# point but not float64, which it leaves as it is).
_AUTOCAST_CASTS = (torch.float32, torch.float16, torch.bfloat16)


def _autocast_dtype(x: torch.Tensor) -> Optional[torch.dtype]:
    """The dtype torch.autocast runs nn.Linear in on x's device, or None
    outside an autocast region (or where it would not lower x's dtype)."""
    device = x.device.type
    try:
        enabled = torch.is_autocast_enabled(device)
        dtype = torch.get_autocast_dtype(device) if enabled else None
    except TypeError:  # torch < 2.4: CUDA's only, without a device argument
        enabled = device == "cuda" and torch.is_autocast_enabled()
        dtype = torch.get_autocast_gpu_dtype() if enabled else None
    return dtype if dtype in (torch.float16, torch.bfloat16) else None


def autocast_inputs(x: torch.Tensor, params: List[torch.Tensor]):
    """x and params as Hugging Face's forward would multiply them under the
    current torch.autocast: every projection (F.linear) is on autocast's
    lower-precision list, so x, the weights and the biases are cast to its
    dtype (float64 left as it is), and the activation and product run on
    the projections' outputs, already in it. Outside autocast: unchanged.
    The casts are differentiable: gradients reach float32 weights in
    float32, as autocast's own casts do."""
    dtype = _autocast_dtype(x)
    if dtype is None:
        return x, params
    cast = lambda t: t.to(dtype) if t.dtype in _AUTOCAST_CASTS else t  # noqa: E731
    return cast(x), [cast(p) for p in params]


def chip_of(device: torch.device) -> str:
    """The --chip of `device` from the compiler's chip table (sm_90a for
    Hopper's WGMMA); spec.Unavailable for a GPU the table lacks."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _chips:
        major, minor = torch.cuda.get_device_capability(index)
        try:
            _chips[index] = runtime.chip_for_capability(major, minor)
        except runtime.RuntimeError_:
            _chips[index] = specs.Unavailable(
                f"fmlp has no kernels for {torch.cuda.get_device_name(index)} (compute "
                f"capability {major}.{minor}): its chips are compute capability 8.0 and later")
    chip = _chips[index]
    if isinstance(chip, specs.Unavailable):
        raise specs.Unavailable(str(chip))
    return chip


def hidden_act(config, key: str = "hidden_act") -> str:
    """The activation's name in `config` under `key`, the key the Hugging
    Face MLP in question reads (FusedGatedMLP.act_key)."""
    act = getattr(config, key, None)
    if act is None:
        raise specs.UnsupportedConfig(f"the config names no {key}")
    return act


def _act_fn(name: str):
    try:
        from transformers.activations import ACT2FN
        return ACT2FN[name]
    except ImportError:  # transformers is optional: act_fn holds no state
        return {"silu": nn.SiLU(), "gelu_tanh": nn.GELU(approximate="tanh"),
                "relu": nn.ReLU()}[specs.activation_of(name)]


_activation_types: Dict[type, str] = {}


def _fused_activation_types() -> Dict[type, str]:
    """Activation module type -> fmlp's activation, for the modules whose
    forward is the activation fmlp fuses: torch's nn.SiLU and nn.ReLU
    (nn.GELU by its `approximate`: fused_activation), and what
    transformers' ACT2FN builds for each name spec.HF_ACTIVATIONS takes."""
    if not _activation_types:
        _activation_types.update({nn.SiLU: "silu", nn.ReLU: "relu"})
        try:
            from transformers.activations import ACT2FN
        except ImportError:  # transformers is optional
            return _activation_types
        for name, activation in specs.HF_ACTIVATIONS.items():
            if name in ACT2FN and type(ACT2FN[name]) is not nn.GELU:
                _activation_types[type(ACT2FN[name])] = activation
    return _activation_types


def fused_activation(act: Optional[nn.Module]) -> Tuple[Optional[str], str]:
    """(fmlp's activation, '') when the fused kernels may apply it in
    place of calling the module `act` (a Hugging Face MLP's act_fn); else
    (None, why not): a module fmlp does not fuse, or one whose call does
    more than its type's forward (hooks, a forward of the instance's own)."""
    if act is None:
        return None, "it has no activation module"
    if (act._forward_hooks or act._forward_pre_hooks or act._backward_hooks
            or act._backward_pre_hooks or "forward" in act.__dict__):
        return None, f"its activation {type(act).__name__} has hooks or a forward of its own"
    kind = type(act)
    if kind is nn.GELU:
        if act.approximate == "tanh":
            return "gelu_tanh", ""
        return None, "its activation is nn.GELU(approximate='none'), which fmlp does not fuse"
    activation = _fused_activation_types().get(kind)
    if activation is None:
        return None, f"its activation is {kind.__name__}, which fmlp does not fuse"
    return activation, ""


class _NotFused(specs.UnsupportedConfig):
    """A module whose configuration the fused block does not compute (its
    biases, say): its forward runs Hugging Face's, with a warning; the
    module's other uses (block_spec, memory_report) raise it."""


# The parameters _params returns, by what they are to the module (its
# warnings name them so).
_PARAMETER_NAMES = ("gate_proj's weight", "up_proj's weight", "down_proj's weight",
                    "gate_proj's bias", "up_proj's bias", "down_proj's bias")


class FusedGatedMLP(nn.Module):
    """y = down(act(m_g gate(x)) * up(x)) m_d, as one fmlp bundle.

    The LlamaMLP family's constructor: (config, intermediate_size=None)
    (Llama, Mistral, Qwen2/Qwen3 and their MoE blocks' MLPs, Granite, Llama4,
    Gemma; Gemma2 and Gemma3 as FusedGemma2MLP); the bias from
    config.mlp_bias; Falcon-H1's config.mlp_multipliers = [m_g, m_d]."""

    gate_multiplier: Optional[float] = None
    down_multiplier: Optional[float] = None
    # This module's memory policy (fmlp.MemoryPolicy; None: the scope's or
    # the default, policy.py); a call's memory_policy argument overrides it.
    memory_policy: Optional[policy.MemoryPolicy] = None
    # How an fp32 block multiplies: "highest", "ieee", "tf32x3", "tf32", or None for
    # PyTorch's float32 matmul precision (precision.py); a call's
    # precision argument overrides it.
    precision: Optional[str] = None
    # PEFT's float32 LoRA adapters over 16-bit weights (get_peft_model's
    # default): True, cast to the weights' dtype per call and fused (the
    # adapter terms' products in that dtype with fp32 sums, docs/LoRA.md);
    # False, PEFT's own forward, unfused, which multiplies them in float32.
    cast_adapters: bool = True
    # True: fused_lora's (A_cat, Bg, Bu, Ad, Bd) kept from call to call
    # where autograd records nothing, while the adapters' weights (by their
    # version counters) and scales are unchanged (_adapter_key). Off by
    # default: writes through `.data` (PEFT's hotswap_adapter) and PyTorch's
    # fused optimizers (transformers' default AdamW) move no version
    # counter, so that only the caller can promise the adapters are not
    # written so between no-grad calls (fixed adapters being served, not
    # trained through compiled code between them, on one CUDA stream).
    reuse_adapters: bool = False

    def __init__(self, config, intermediate_size: Optional[int] = None):
        super().__init__()
        self.config = config
        self.hidden_size = config.hidden_size
        self.intermediate_size = intermediate_size or config.intermediate_size
        bias = bool(getattr(config, "mlp_bias", False))
        self.gate_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=bias)
        self.up_proj = nn.Linear(self.hidden_size, self.intermediate_size, bias=bias)
        self.down_proj = nn.Linear(self.intermediate_size, self.hidden_size, bias=bias)
        self._set_activation(config)

    # The activation module's name: Hugging Face's MLPs call it act_fn,
    # Phi3's and Llama4's activation_fn (wrap keeps the original's).
    act_name = "act_fn"
    # The config key naming the activation, the one the Hugging Face MLP
    # reads: hidden_act (transformers 5: every supported MLP but Gemma2's
    # and Gemma3's, FusedGemma2MLP's hidden_activation; Gemma's reads
    # hidden_act).
    act_key = "hidden_act"

    def _set_activation(self, config, act: Optional[nn.Module] = None):
        """The activation module: `act` (the original's) or the one the
        config names under act_key; and the multipliers."""
        _warned.pop(id(self), None)  # a dead module's, at the same address
        _fused_activation_types()  # filled here, eagerly: forward may be traced
        if act is None:
            act = _act_fn(hidden_act(config, self.act_key))
        setattr(self, self.act_name, act)
        multipliers = getattr(config, "mlp_multipliers", None)
        if multipliers is not None:
            self.gate_multiplier, self.down_multiplier = (float(m) for m in multipliers)

    # What a module finds or builds for this process, dropped from a pickle
    # or deepcopy (__getstate__) and found again at its first call: the
    # bundle's path (_bundle: a file of this machine's cache, for its
    # chip and fmlp version, none of which its key holds) and the kept
    # adapter matrices (_adapter_matrices: keyed by object ids).
    _PROCESS_STATE = ("_fmlp_bundle", "_fmlp_adapters")

    def __getstate__(self):
        state = self.__dict__.copy()
        for key in self._PROCESS_STATE:
            state.pop(key, None)
        return state

    def __setstate__(self, state):
        # A copy (copy.deepcopy, pickle) is a module of its own: the
        # warnings given at its address by a module gone are not its.
        super().__setstate__(state)
        _warned.pop(id(self), None)

    @classmethod
    def wrap(cls, original: nn.Module, config) -> "FusedGatedMLP":
        """A fused module over `original`'s own Linear and activation
        modules (no copy)."""
        fused = cls.__new__(cls)
        nn.Module.__init__(fused)
        fused.config = config
        for name in cls._linears():
            setattr(fused, name, getattr(original, name))
        for name in ("act_fn", "activation_fn"):
            if isinstance(getattr(original, name, None), nn.Module):
                fused.act_name = name
                fused._set_activation(config, getattr(original, name))
                break
        else:
            fused._set_activation(config)
        fused.hidden_size, fused.intermediate_size = fused._widths()
        return fused

    @property
    def activation(self) -> Optional[str]:
        """The activation the fused block applies: its activation module's
        (fused_activation; None where fmlp does not fuse it). Read at each
        call, so that a module put in its place counts."""
        return fused_activation(self._modules.get(self.act_name))[0]

    def _why_not_fused_module(self) -> Optional[str]:
        """Why the fused kernels cannot compute this module now, or None:
        its activation module is one fmlp does not fuse, or does more
        than its type's forward (hooks)."""
        return fused_activation(self._modules.get(self.act_name))[1] or None

    @staticmethod
    def _linears() -> Tuple[str, ...]:
        return ("gate_proj", "up_proj", "down_proj")  # a constant: no list per forward

    def _widths(self):
        return self.gate_proj.in_features, self.gate_proj.out_features

    def _params(self, linears: Optional[List[nn.Linear]] = None,
                modules: Optional[List[nn.Module]] = None) -> List[torch.Tensor]:
        """gate, up, down weights ([out, in]), then their biases. `linears`:
        the projections as _plain_linears returned them (then read from
        their _parameters: no nn.Module.__getattr__ per tensor); `modules`:
        the Linears to read by getattr in place of the projections (a LoRA
        layer's base_layer, guard.Projection.linear)."""
        if linears is None:
            linears = modules or [self.gate_proj, self.up_proj, self.down_proj]
            weights, biases = [l.weight for l in linears], [l.bias for l in linears]
        else:
            weights = [l._parameters["weight"] for l in linears]
            biases = [l._parameters["bias"] for l in linears]
        if biases[0] is not None and biases[1] is not None and biases[2] is not None:
            return _dense(weights + biases, _PARAMETER_NAMES)
        if biases[0] is not None or biases[1] is not None or biases[2] is not None:
            with_bias = [n for n, b in zip(("gate", "up", "down"), biases) if b is not None]
            raise _NotFused(f"only {', '.join(with_bias)} of its projections have a bias, and "
                            "the fused block takes a bias on all three or on none")
        return _dense(weights, _PARAMETER_NAMES)

    def _adapters(self, found: List[guard.Projection]) -> Tuple[Optional[torch.Tensor], ...]:
        """(A_cat, Bg, Bu, Ad, Bd) of the adapters the guard found on gate,
        up and down (lora.block_adapters; None for a group without)."""
        gate, up, down = ([(a.lora_A.weight, a.scaling, a.lora_B.weight) for a in p.adapters]
                          for p in found)
        return lora.block_adapters(gate, up, down, self.hidden_size, found[0].linear.out_features)

    def _lora_ranks(self, found: List[guard.Projection]) -> Tuple[int, int]:
        """(R, Rd) of _adapters(found), without building them."""
        gate, up, down = found
        return lora.rank_of(gate.adapters + up.adapters), lora.rank_of(down.adapters)

    def block_spec(self, x: torch.Tensor, params: Optional[List[torch.Tensor]] = None,
                   memory_policy: Optional[policy.MemoryPolicy] = None,
                   precision: Optional[str] = None, lora_ranks: Tuple[int, int] = (0, 0)
                   ) -> specs.BlockSpec:
        """The bundle's spec for input `x` and weights `params` (default:
        this module's own; a tensor-parallel shard passes its local ones:
        H is the gate weight's row count), under the memory policy the call
        resolves to (policy.resolve: `memory_policy`, this module's, the
        scope's, the default) and, for fp32, the precision (precision.resolve:
        `precision`, this module's, PyTorch's setting); with `lora_ranks`
        (R, Rd), of the block with LoRA adapters of those ranks."""
        params = self._params() if params is None else params
        if x.device.type != "cuda":
            raise RuntimeError(f"fmlp: {type(self).__name__} runs on CUDA tensors; x is on {x.device}")
        for p in params:
            if p.dtype != x.dtype or p.device != x.device:
                raise TypeError(f"fmlp: x is {x.dtype} on {x.device}, a parameter is "
                                f"{p.dtype} on {p.device}: they must match")
        if x.dtype not in ops.DTYPES:
            raise TypeError(f"fmlp: dtype {x.dtype} is not one of {list(ops.DTYPES)}")
        if x.shape[-1] != self.hidden_size:
            raise ValueError(f"fmlp: x has {x.shape[-1]} features, the block takes {self.hidden_size}")
        return self._spec(params, ops.DTYPES[x.dtype], chip_of(x.device),
                          policy.resolve(memory_policy, self.memory_policy),
                          self._precision(x.dtype, precision), lora_ranks)

    def _precision(self, dtype: torch.dtype, call: Optional[str] = None) -> str:
        """The contraction format of a call on `dtype`: fp32's as resolved,
        16-bit blocks' exact products (ieee; the values are checked all the
        same, without reading PyTorch's setting on that hot path)."""
        if dtype == torch.float32:
            return precisions.resolve(call, self.precision, _torch_fp32_precision)
        precisions.check(call)
        precisions.check(self.precision)
        return "ieee"

    def _spec(self, params, dtype: str, chip: str, chosen: policy.MemoryPolicy,
              precision: str = "ieee", ranks: Tuple[int, int] = (0, 0)) -> specs.BlockSpec:
        return specs.BlockSpec(self.hidden_size, params[0].shape[0], dtype, self.activation,
                               bias=len(params) > 3, gate_multiplier=self.gate_multiplier,
                               down_multiplier=self.down_multiplier, chip=chip,
                               save=chosen.save, chunk_tokens=chosen.chunk_tokens,
                               precision=precision, lora_rank=ranks[0],
                               down_lora_rank=ranks[1])

    def memory_report(self, tokens: int,
                      memory_policy: Optional[policy.MemoryPolicy] = None) -> dict:
        """fmlp-compile's memory plan of this block at `tokens` tokens under
        the policy a call would run with (spec.memory_report: bytes saved
        from forward to backward, each entry point's workspace, the peaks),
        in the weights' dtype, with the LoRA adapters' terms the module
        would fuse now. Needs fmlp-compile, not a GPU."""
        params = self._params()
        if params[0].dtype not in ops.DTYPES:
            raise TypeError(f"fmlp: dtype {params[0].dtype} is not one of {list(ops.DTYPES)}")
        chosen = policy.resolve(memory_policy, self.memory_policy)
        found = projections(self, self._linears())
        ranks = (0, 0) if isinstance(found, str) else self._lora_ranks(found)
        return specs.memory_report(self._spec(params, ops.DTYPES[params[0].dtype], "sm_90a",
                                              chosen, self._precision(params[0].dtype), ranks),
                                   tokens)

    def extra_repr(self) -> str:
        """The memory policy a call would run with now (no argument, this
        thread's scope), and whose choice it is."""
        own = self.memory_policy
        chosen = policy.resolve(module=own)
        source = "module" if own is not None else "scope or default"
        fp32 = precisions.resolve(module=self.precision)
        fp32_source = "module" if self.precision is not None else "torch"
        return (f"memory_policy=({chosen}; {source}), "
                f"fp32_precision=({fp32}; {fp32_source})")

    def forward(self, x: torch.Tensor,
                memory_policy: Optional[policy.MemoryPolicy] = None,
                precision: Optional[str] = None) -> torch.Tensor:
        """y for x; `memory_policy` overrides the module's and the scope's
        for this call (policy.py), `precision` the module's and PyTorch's
        fp32 setting (precision.py)."""
        # Attribute and type checks only: dynamo turns them into guards, so
        # that the fused path stays one graph under torch.compile. An x the
        # kernels cannot take (on the CPU, float64) runs Hugging Face's
        # forward, as the unpatched model would. Then the common case:
        # plain Linears with plain weights (never sharded), read once from
        # nn.Module's dicts.
        precisions.check(precision)
        precisions.check(self.precision)
        policy.check(memory_policy)
        policy.check(self.memory_policy, "the module's memory_policy")
        reason = (_why_not_fused_input(x) or _why_not_fused_mode()
                  or self._why_not_fused_module())
        if reason is not None:
            self._warn_unfused(reason)
            return self.unfused(x)
        try:
            linears = _plain_linears(self, self._linears())
            if linears is not None:
                if not torch.compiler.is_compiling() and "_fmlp_adapters" in self.__dict__:
                    del self.__dict__["_fmlp_adapters"]  # the adapters are gone (unload)
                return self.fused(x, self._params(linears), memory_policy, precision)
            found = projections(self, self._linears(), _autocast_dtype(x) is not None)
            if isinstance(found, str):
                self._warn_unfused(found)
                return self.unfused(x)
            params = self._params(modules=[p.linear for p in found])
            sharded = parallel.is_sharded(params)
            if any(p.adapters for p in found):
                if sharded:
                    self._warn_unfused("LoRA adapters with tensor-parallel (sharded) weights "
                                       "are not fused")
                    return self.unfused(x)
                return self.fused_lora(x, params, found, memory_policy, precision)
            if sharded:
                return parallel.forward(self, x, params, memory_policy, precision)
            return self.fused(x, params, memory_policy, precision)
        except _NotFused as why:
            # Raised by _params, before anything ran.
            self._warn_unfused(str(why))
            return self.unfused(x)
        except specs.Unavailable as why:
            # Raised by the bundle's lookup, before anything ran.
            if specs.strict():
                raise
            self._warn_unfused(str(why))
            return self.unfused(x)

    def unfused(self, x: torch.Tensor) -> torch.Tensor:
        """Hugging Face's forward (LlamaMLP's; FalconH1MLP's with
        multipliers), calling the projection modules, so that whatever
        they compute (adapters, hooks) applies."""
        act = getattr(self, self.act_name)
        if self.gate_multiplier is None and self.down_multiplier is None:
            return self.down_proj(act(self.gate_proj(x)) * self.up_proj(x))
        # FalconH1MLP.forward, in its order (up_proj is called first).
        y = self.up_proj(x) * act(self.gate_proj(x) * self.gate_multiplier)
        return self.down_proj(y) * self.down_multiplier

    def _warn_unfused(self, reason: str) -> None:
        # A fallback may train the adapters (PEFT's forward, dropout in
        # training mode), and a fused optimizer's writes move no version
        # counter: the kept matrices go (_adapter_key).
        if not torch.compiler.is_compiling():
            self.__dict__.pop("_fmlp_adapters", None)
        _warn_once(id(self), f"fmlp: {type(self).__name__} runs unfused (its Hugging Face "
                   f"forward, calling the projections): {reason}")

    def fused(self, x: torch.Tensor, params: List[torch.Tensor],
              memory_policy: Optional[policy.MemoryPolicy] = None,
              precision: Optional[str] = None) -> torch.Tensor:
        """The block over `params` (plain tensors: this module's weights, or
        one tensor-parallel shard of them); under torch.autocast in its
        dtype, as Hugging Face's forward would run (autocast_inputs)."""
        x, params = autocast_inputs(x, params)
        bundle = self._bundle(x, params, memory_policy, precision)
        return self._run(x, bundle, ops.parameters(params), (x, *params),
                         torch.ops.fmlp.forward, torch.ops.fmlp.forward_nograd)

    def fused_lora(self, x: torch.Tensor, params: List[torch.Tensor],
                   found: List[guard.Projection],
                   memory_policy: Optional[policy.MemoryPolicy] = None,
                   precision: Optional[str] = None) -> torch.Tensor:
        """fused(), with the terms of the LoRA adapters the guard `found`:
        the bundle for their ranks is found first (so that a block fmlp
        has no kernels for is refused before any work), then (A_cat, Bg,
        Bu, Ad, Bd) are built by lora.py from the adapters' weights with
        torch operations, so that autograd takes the op's gradients of
        them back to each adapter. The guard checked that the adapters
        are on the base weights' device, of their dtype or of one cast to
        it (float32 over 16-bit weights), or that torch.autocast casts
        them all: then the matrices are cast to the block's dtype (the
        weights', autocast's under autocast_inputs), differentiably, so
        that float32 adapters get float32 gradients. Where autograd records
        nothing, the matrices of the last call are reused while the
        adapters are unchanged (_adapter_matrices)."""
        x, params = autocast_inputs(x, params)
        bundle = self._bundle(x, params, memory_policy, precision, self._lora_ranks(found))
        adapters = self._adapter_matrices(found, params[0].dtype)
        present = [a for a in adapters if a is not None]
        return self._run(x, bundle, ops.parameters(params, adapters), (x, *params, *present),
                         torch.ops.fmlp.forward_lora, torch.ops.fmlp.forward_nograd_lora)

    def _adapter_matrices(self, found: List[guard.Projection], dtype: torch.dtype
                          ) -> List[Optional[torch.Tensor]]:
        """(A_cat, Bg, Bu, Ad, Bd) of the adapters the guard `found` (None
        for a group without), in `dtype`: _adapters(found), each cast where
        it is of another dtype. Under torch.compile, where autograd records
        (with grad enabled, an adapter weight that requires grad) or with
        reuse_adapters False (the default), built anew (and, in eager
        calls, any kept ones dropped); else the last call's, kept in the
        module's __dict__, while _adapter_key's key is the same (see there
        what it holds, and which writes it does not see)."""
        if torch.compiler.is_compiling():
            return self._cast_adapters(found, dtype)
        keyed = _adapter_key(self, found, dtype) if self.reuse_adapters else None
        if keyed is None:
            self.__dict__.pop("_fmlp_adapters", None)
            return self._cast_adapters(found, dtype)
        key, kept = keyed
        cached = self.__dict__.get("_fmlp_adapters")
        if cached is not None and cached[0] == key:
            return cached[2]
        matrices = self._cast_adapters(found, dtype)
        self.__dict__["_fmlp_adapters"] = (key, kept, matrices)
        return matrices

    def _cast_adapters(self, found: List[guard.Projection], dtype: torch.dtype
                       ) -> List[Optional[torch.Tensor]]:
        """_adapters(found), each cast to `dtype` where it is of another
        (differentiably)."""
        return [a if a is None or a.dtype == dtype else a.to(dtype)
                for a in self._adapters(found)]

    def _run(self, x: torch.Tensor, bundle: str, arguments, differentiable, forward,
             forward_nograd) -> torch.Tensor:
        """y of the block: `forward` (which saves for a backward) when
        autograd may ask for one of `differentiable`'s gradients, else
        `forward_nograd`, which keeps nothing; x's rows as [T, D]."""
        rows = x.reshape(-1, self.hidden_size)
        if not rows.is_contiguous():
            rows = rows.contiguous()
        if torch.is_grad_enabled() and any([t.requires_grad for t in differentiable]):
            y, _ = forward(bundle, rows, *arguments)
        else:
            y = forward_nograd(bundle, rows, *arguments)
        return y.view(*x.shape[:-1], self.hidden_size)

    def _bundle(self, x: torch.Tensor, params: List[torch.Tensor],
                memory_policy: Optional[policy.MemoryPolicy] = None,
                precision: Optional[str] = None, lora_ranks: Tuple[int, int] = (0, 0)) -> str:
        """The bundle's path for x and params: block_spec's checks and the
        bundle found (or compiled) once, then, in eager calls, reused while
        everything the spec is made of is the same: x's dtype and device,
        H and the parameter count, the module's widths, activation and
        multipliers, the memory policy and fp32 precision the call
        resolves to, and `lora_ranks` (R, Rd: the block with LoRA adapters
        of those ranks, fused_lora's; (0, 0) without) (the key, compared at
        every call); and every parameter's dtype and device equal x's
        (checked at every call, as block_spec does). Under torch.compile
        the spec is traced as before (dynamo guards on what it reads)."""
        if torch.compiler.is_compiling():
            return str(_bundle_for(self.block_spec(x, params, memory_policy, precision,
                                                   lora_ranks)))
        dtype, device = x.dtype, x.get_device()
        chosen = policy.resolve(memory_policy, self.memory_policy)
        fp32 = self._precision(dtype, precision)
        key = (dtype, device, x.shape[-1], params[0].shape[0], len(params), self.hidden_size,
               self.activation, self.gate_multiplier, self.down_multiplier, chosen, fp32,
               lora_ranks)
        cached = self.__dict__.get("_fmlp_bundle")
        if cached is not None and cached[0] == key:
            for p in params:
                if p.dtype is not dtype or p.get_device() != device:
                    break
            else:
                return cached[1]
        bundle = str(_bundle_for(self.block_spec(x, params, chosen, fp32, lora_ranks)))
        self.__dict__["_fmlp_bundle"] = (key, bundle)
        return bundle


# The adapters' weights whose matrices may be kept: plain tensors (not
# FakeTensor or FunctionalTensor, the tracing stand-ins the guard takes).
_KEPT_TYPES = frozenset({torch.Tensor, nn.Parameter})


def _adapter_key(module: nn.Module, found: List[guard.Projection], dtype: torch.dtype):
    """(key, kept): what fused_lora's matrices of the adapters `found` in
    `dtype` are a function of, compared at every call by _adapter_matrices,
    and the objects the key names by id (kept with the matrices, so that
    no id in it is reused while they are); None where the matrices must be
    built anew: autograd records (grad enabled and a weight requires grad:
    the matrices carry its graph back to the weights), or a weight is not a
    plain tensor (then no version counter says it is unchanged).

    The invariant: the matrices are _adapters(found) cast to `dtype`, a
    function of the block's widths and dtype, the adapters on each
    projection in order, their scales, and the values, dtype, shape and
    strides of their lora_A and lora_B weights. The key holds all of these
    but the values, which it stands for by what a write moves: each
    weight's identity, `_version` (moved by an in-place write through the
    tensor or a view of it, autograd's own check of saved tensors: p.add_,
    p.copy_ and load_state_dict under no_grad, nn.init, the for-loop and
    foreach optimizers), address, dtype, shape and strides (`p.data = t`
    replaces them and keeps the version). Not every write moves a version:
    writes through `.data` (p.data.add_, PEFT's hotswap_adapter's
    old.data.copy_(new)) and PyTorch's fused optimizers (AdamW(fused=True),
    transformers' default "adamw_torch_fused": a step leaves the version
    as it was, torch 2.15 on the CPU) change the values under the same key.
    Hence FusedGatedMLP.reuse_adapters is off by default, and the kept
    matrices are dropped at every eager call where autograd records or the
    module falls back, so that an evaluation between training steps
    through this module builds them anew; compiled calls neither use nor
    drop them, so training through compiled code between eager no-grad
    calls is outside what reuse_adapters promises (serving fixed
    adapters). Inference mode is in the key: matrices made under it
    cannot be saved for a backward. While a CUDA graph is captured
    nothing is kept (the graph must hold the matrices' building, or its
    replays would read the matrices of its capture); kept matrices are
    for the stream that made them."""
    if torch.cuda.is_available() and torch.cuda.is_current_stream_capturing():
        return None  # a graph replays its own building of them
    grad = torch.is_grad_enabled()
    key = [dtype, module.hidden_size, found[0].linear.out_features,
           torch.is_inference_mode_enabled()]
    kept = []
    try:
        for projection in found:
            key.append(len(projection.adapters))
            for adapter in projection.adapters:
                key.append(adapter.scaling)
                for w in (adapter.lora_A.weight, adapter.lora_B.weight):
                    if type(w) not in _KEPT_TYPES or (grad and w.requires_grad):
                        return None
                    key += _weight_key(w)
                    # The Parameter (its id stays unique) and its memory (its
                    # address is not reused: p.data = t1; p.data = t2 could
                    # put t2 where the weights were).
                    kept += [w, w.detach()]
    except RuntimeError:  # an inference tensor: it has no version counter
        return None
    return tuple(key), kept


def _weight_key(w: torch.Tensor) -> tuple:
    """An adapter weight's part of _adapter_key: its identity, version,
    address, dtype, shape and strides."""
    return id(w), w._version, w.data_ptr(), w.dtype, w.shape, w.stride()


class UnfusedWarning(UserWarning):
    """A fused module runs its original forward; the message says why."""


_warned = {}  # id of a module -> the messages it has warned


def _nonstrict(function):
    """Dynamo runs `function` as Python when it traces the call (under
    torch.compile, fullgraph included, the warning is given once while
    tracing, not in the graph); torch without nonstrict_trace (< 2.7)
    graph-breaks there instead."""
    decorator = getattr(torch._dynamo, "nonstrict_trace", None)
    return decorator(function) if decorator is not None else function


@_nonstrict
def _warn_once(module_id: int, message: str) -> int:
    """warnings.warn(message) unless the module `module_id` gave it
    already. (An int result: nonstrict_trace takes no None.)"""
    messages = _warned.setdefault(module_id, set())
    if message not in messages:
        messages.add(message)
        warnings.warn(message, UnfusedWarning, stacklevel=3)
    return 0


_paths = {}


def _bundle_for(spec: specs.BlockSpec):
    """spec.find_or_compile, once per spec: a compile that failed is not
    tried again in this process (its error raised afresh each time)."""
    if spec not in _paths:
        try:
            _paths[spec] = specs.find_or_compile(spec)
        except specs.CompileFailed as failed:
            _paths[spec] = failed
    found = _paths[spec]
    if isinstance(found, specs.CompileFailed):
        raise specs.CompileFailed(str(found))
    return found


class FusedPhi3MLP(FusedGatedMLP):
    """Phi3MLP: one gate_up_proj ([2H, D], gate rows first) and down_proj.
    The gate and up weights are its two row halves (views, no copy)."""

    act_name = "activation_fn"  # Phi3MLP's

    def __init__(self, config):
        nn.Module.__init__(self)
        self.config = config
        self.hidden_size, self.intermediate_size = config.hidden_size, config.intermediate_size
        self.gate_up_proj = nn.Linear(self.hidden_size, 2 * self.intermediate_size, bias=False)
        self.down_proj = nn.Linear(self.intermediate_size, self.hidden_size, bias=False)
        self._set_activation(config)

    @staticmethod
    def _linears():
        return ("gate_up_proj", "down_proj")

    def _widths(self):
        return self.gate_up_proj.in_features, self.gate_up_proj.out_features // 2

    def _params(self, linears=None, modules=None):
        if linears is None:
            linears = modules or [self.gate_up_proj, self.down_proj]
            (w, bias), (down, down_bias) = ((l.weight, l.bias) for l in linears)
        else:
            (w, bias), (down, down_bias) = ((l._parameters["weight"], l._parameters["bias"])
                                            for l in linears)
        if parallel.is_sharded([w]):
            raise specs.UnsupportedConfig(
                "Phi3's gate_up_proj cannot be tensor-parallel in fmlp: ColwiseParallel shards "
                "its rows in p contiguous pieces, so gate and up rows would not pair on a rank")
        if bias is not None or down_bias is not None:
            raise _NotFused("Phi3's MLP with biases is not fused by fmlp")
        _dense([w, down], ("gate_up_proj's weight", "down_proj's weight"))
        # Its halves are dense where it is; up's begins h rows in (from the
        # shape: dynamo cannot trace storage_offset() of a view it made).
        h = self.intermediate_size
        if h * w.shape[1] * w.element_size() % ALIGNMENT:
            raise _NotFused(f"its gate_up_proj's up rows begin {h * w.shape[1]} elements into "
                            f"its weight, not on a {ALIGNMENT}-byte boundary, and the fused "
                            "kernels read them in place from there")
        return [w[:h], w[h:], down]

    def _adapters(self, found):
        """(A_cat, Bg, Bu, Ad, Bd) of gate_up_proj's and down_proj's
        adapters: each of gate_up_proj's adds s (x A^T) B^T with B [2 H, r],
        whose first H rows are the gate's and the others up's, so its A
        enters A_cat once, with B's halves in Bg and Bu."""
        gate_up, down = found
        h = self.intermediate_size
        terms = []
        for a in gate_up.adapters:
            b = a.lora_B.weight
            terms.append((a.lora_A.weight, a.scaling, (b[:h], b[h:])))
        a_cat, (bg, bu) = lora.stack(terms, (h, h))
        ad, (bd,) = lora.stack([(a.lora_A.weight, a.scaling, (a.lora_B.weight,))
                                for a in down.adapters], (self.hidden_size,))
        return a_cat, bg, bu, ad, bd

    def _lora_ranks(self, found):
        gate_up, down = found
        return lora.rank_of(gate_up.adapters), lora.rank_of(down.adapters)

    def unfused(self, x: torch.Tensor) -> torch.Tensor:
        """Phi3MLP.forward: gate_up_proj's output split in halves, gate
        first."""
        gate, up = self.gate_up_proj(x).chunk(2, dim=-1)
        return self.down_proj(up * getattr(self, self.act_name)(gate))


class FusedGemma2MLP(FusedGatedMLP):
    """Gemma2MLP and Gemma3MLP: LlamaMLP's block, the activation named by
    config.hidden_activation, which they read."""

    act_key = "hidden_activation"


# Hugging Face class name -> (its transformers.models package, fmlp module).
SUPPORTED = {
    "LlamaMLP": ("llama", FusedGatedMLP), "MistralMLP": ("mistral", FusedGatedMLP),
    "Qwen2MLP": ("qwen2", FusedGatedMLP), "Qwen3MLP": ("qwen3", FusedGatedMLP),
    "Qwen2MoeMLP": ("qwen2_moe", FusedGatedMLP), "Qwen3MoeMLP": ("qwen3_moe", FusedGatedMLP),
    "GraniteMLP": ("granite", FusedGatedMLP), "Llama4TextMLP": ("llama4", FusedGatedMLP),
    "GemmaMLP": ("gemma", FusedGatedMLP), "Gemma2MLP": ("gemma2", FusedGemma2MLP),
    "Gemma3MLP": ("gemma3", FusedGemma2MLP), "FalconH1MLP": ("falcon_h1", FusedGatedMLP),
    "Phi3MLP": ("phi3", FusedPhi3MLP),
}
