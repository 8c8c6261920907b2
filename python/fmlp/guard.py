"""Whether a fused module may read its projections' weights instead of
calling the projections, and which LoRA adapters it must then add. No
torch needed: the types it compares against are passed in, so that the
decisions are tested without torch (python/tests/test_guard.py).

A fused module computes y = down(act(gate(x)) * up(x)) from the weights
(and biases) of gate_proj, up_proj and down_proj (Phi3: gate_up_proj and
down_proj); it never calls those modules. That equals calling them only
when each one computes x W^T + b and nothing else, which holds when:

  - its type is exactly torch.nn.Linear: a subclass (bitsandbytes'
    Linear4bit, a parametrized Linear, FSDP's per-module class) or another
    module (a PEFT tuner layer, whose base_layer is the Linear and whose
    adapters add to it) may compute something else;
  - it has no forward, forward-pre, backward or backward-pre hooks (PEFT
    adapters can be hooks too; weight_norm and spectral_norm are
    forward-pre hooks), and no forward of its own on the instance
    (accelerate's offloading hooks replace `module.forward`); except, on a
    projection whose weight is sharded, the hooks of PyTorch's
    tensor-parallel styles (distribute_module's input and output
    redistributions), which parallel.py performs itself;
  - its weight and bias are plain tensors (type exactly Tensor or
    Parameter: a tensor subclass, e.g. a quantized tensor, is not the
    matrix its storage holds), or DTensors of plain local tensors (tensor
    parallelism, python/fmlp/parallel.py).

Or, with fused LoRA (docs/LoRA.md), when it is PEFT's LoRA Linear
(exactly peft.tuners.lora.layer.Linear, passed in as LoraTypes.layer)
whose forward computes x W^T + b + sum_a s_a B_a A_a x over its active
adapters a and nothing else (peft/tuners/lora/layer.py, Linear.forward,
read for PEFT 0.21), which holds when:

  - the LoRA layer has no hooks and no forward on the instance, and its
    base_layer is a plain Linear as above with plain (not sharded)
    weights;
  - adapters disabled (disable_adapters) and none merged: PEFT computes
    the base layer alone (so does fmlp: no adapter terms); disabled while
    merged, PEFT's forward unmerges first (a change of the weights fmlp
    leaves to it: refused);
  - merged adapters: PEFT computes the base layer alone, whose weight holds
    them; fmlp does the same when every active adapter is merged, and
    refuses a mix of merged and unmerged active adapters (PEFT 0.21 adds
    nothing for the unmerged ones; not a behaviour to rely on);
  - otherwise each active adapter that the layer has (PEFT skips the
    others, so does fmlp): no LoRA variant (DoRA, aLoRA, ...: lora_variant,
    use_dora, lora_magnitude_vector), lora_A and lora_B plain Linears
    without bias, its dropout the identity (Identity, or a Dropout with
    p = 0 or in eval mode), its scaling a number, and lora_A's and lora_B's
    weights on the base weight's device, of its dtype or of one fmlp casts
    to it (LoraTypes.casts: float32 over a 16-bit base, which PEFT's
    get_peft_model keeps by default, autocast_adapter_dtype=True; PEFT
    multiplies those in float32, fmlp in the block's dtype with fp32 sums,
    docs/LoRA.md), or of any dtype under torch.autocast, which casts both
    to one dtype anyway (the caller says so: `autocast`). Adapters of a
    lower precision than the base weight are refused.

Not covered: global module hooks (torch.nn.modules.module.
register_module_forward_hook) see the fused module, not its projections.

Every check is an attribute or type comparison, so that it is cheap at
every forward (no cache to keep fresh; modules.py accepts the common
cases, plain Linears and PEFT's plain LoRA Linears, by fast paths over
nn.Module's own dicts that accept nothing this guard refuses and give
its Projections, python/tests/cpu_guard_fast_path.py: 1.9 us for three
plain Linears, about 20 us for three LoRA layers against this guard's
80) and torch.compile's dynamo traces it
into guards on what it reads, with no graph break on the fused path
(checked with torch.compile(fullgraph=True), python/tests/gpu_modules.py
and gpu_peft_guard.py). A projection replaced after compiling (PEFT
wrapping it) fails those guards: dynamo retraces. Hooks added after
compiling are not seen by compiled code, for fmlp as for any module,
while torch._dynamo.config.skip_nnmodule_hook_guards is True (PyTorch's
default): reset or recompile after adding hooks.
"""
from __future__ import annotations

from typing import FrozenSet, Iterable, List, NamedTuple, Optional, Tuple, Union

# The module of torch.distributed.tensor.distribute_module's hooks: the
# input and output redistributions of parallelize_module's styles.
TENSOR_PARALLEL_HOOKS = "torch.distributed.tensor._api"

# nn.Module's per-module hook dictionaries: any entry may change what the
# module computes or its gradients.
HOOKS = (("_forward_hooks", "forward hooks"), ("_forward_pre_hooks", "forward-pre hooks"),
         ("_backward_hooks", "backward hooks"), ("_backward_pre_hooks", "backward-pre hooks"))


class LoraTypes(NamedTuple):
    """What a LoRA projection is made of: PEFT's LoRA Linear
    (peft.tuners.lora.layer.Linear), torch.nn.Identity and
    torch.nn.Dropout (its adapters' dropout); and the (adapter dtype, base
    weight dtype) pairs whose adapters fmlp casts to the base weight's
    dtype (empty: adapters of the base weight's dtype only)."""
    layer: type
    identity: type
    dropout: type
    casts: FrozenSet[Tuple[object, object]] = frozenset()


class Adapter(NamedTuple):
    """One adapter term s B A x that a projection adds: the lora_A and
    lora_B Linears ([r, in] and [out, r] weights) and the scale s."""
    name: str
    lora_A: object
    lora_B: object
    scaling: float


class Projection(NamedTuple):
    """A projection the fused kernels may read: the Linear whose weight and
    bias they read (a LoRA layer's base_layer), and the adapter terms it
    adds, in PEFT's order ((): none)."""
    linear: object
    adapters: Tuple[Adapter, ...] = ()


# getattr's default where None is an answer.
_MISSING = object()

def _type_name(value) -> str:
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}"


def _why_not_plain_tensor(what: str, tensor, tensor_types: Tuple[type, ...],
                          sharded_types: Tuple[type, ...]) -> Optional[str]:
    if type(tensor) in tensor_types:
        return None
    if sharded_types and isinstance(tensor, sharded_types):
        # DTensor: its shard is what fmlp reads (parallel.py, to_local()).
        local = getattr(tensor, "_local_tensor", None)
        if type(local) in tensor_types:
            return None
        return (f"has a sharded {what} whose local shard is a {_type_name(local)}, "
                "not a plain tensor")
    return (f"has a {what} of type {_type_name(tensor)}, not a plain tensor (a tensor subclass "
            "such as a quantized weight does not hold the matrix fmlp would read)")


def _why_hooked(module, weight=None, sharded_types: Tuple[type, ...] = ()) -> Optional[str]:
    """Why calling `module` may run something else than its forward (hooks,
    a forward on the instance), or None. The hooks of PyTorch's
    tensor-parallel styles are allowed on a module whose `weight` is
    sharded."""
    for attribute, what in HOOKS:
        hooks = getattr(module, attribute, None)
        if hooks and not (isinstance(weight, sharded_types) and all(
                getattr(hook, "__module__", None) == TENSOR_PARALLEL_HOOKS
                for hook in hooks.values())):
            return f"has {what}: fmlp would not run them"
    if "forward" in getattr(module, "__dict__", ()):
        return "has its forward replaced on the instance (e.g. accelerate's hooks): fmlp would not run it"
    return None


def why_not_plain_linear(module, linear_type: type, tensor_types: Tuple[type, ...],
                         sharded_types: Tuple[type, ...] = ()) -> Optional[str]:
    """None when calling `module` computes exactly x W^T + b from its
    weight W and bias b; else why not (a phrase after the module's name)."""
    if type(module) is not linear_type:
        if getattr(module, "base_layer", None) is not None:
            adapters = getattr(module, "active_adapters", None)
            detail = f" with adapters {list(adapters)}" if isinstance(adapters, (list, tuple)) else ""
            return (f"is {_type_name(module)}, a PEFT tuner layer{detail}: fmlp fuses only "
                    "PEFT's LoRA on a plain nn.Linear (peft.tuners.lora.layer.Linear) and "
                    "would bypass these adapters")
        if getattr(module, "parametrizations", None) is not None:
            return (f"has parametrized weights (torch.nn.utils.parametrize, "
                    f"{_type_name(module)}): fmlp would read the unparametrized ones")
        return (f"is {_type_name(module)}, not torch.nn.Linear: a subclass or another module "
                "may compute something else than x W^T + b")
    weight = getattr(module, "weight", None)
    reason = _why_hooked(module, weight, sharded_types)
    if reason is not None:
        return reason
    if weight is None:
        return "has no weight"
    reason = _why_not_plain_tensor("weight", weight, tensor_types, sharded_types)
    # nn.Linear registers a bias, None when it has none; deleted (del
    # linear.bias), its own forward fails reading it, and so would fmlp.
    bias = getattr(module, "bias", _MISSING)
    if reason is None and bias is _MISSING:
        reason = "has no bias attribute (deleted): nn.Linear's forward reads it"
    elif reason is None and bias is not None:
        reason = _why_not_plain_tensor("bias", bias, tensor_types, sharded_types)
    return reason


def lora_projection(module, linear_type: type, tensor_types: Tuple[type, ...],
                    lora: LoraTypes, sharded_types: Tuple[type, ...] = (),
                    autocast: bool = False) -> Union[str, Projection]:
    """What calling `module`, a PEFT LoRA Linear (type lora.layer), computes
    as a Projection (its base Linear and the adapter terms it adds); or why
    fmlp cannot compute the same (a phrase after the module's name). See
    the module's comment for the conditions. `autocast`: torch.autocast
    casts the projections' operands to one dtype (then the adapters' need
    not be the base weight's)."""
    reason = _why_hooked(module)
    if reason is not None:
        return f"is a PEFT LoRA layer that {reason}"
    base = getattr(module, "base_layer", None)
    weight = getattr(base, "weight", None)
    if sharded_types and isinstance(weight, sharded_types):
        return ("is a PEFT LoRA layer over a sharded (tensor-parallel) weight: fmlp does not "
                "fuse adapters with tensor parallelism")
    reason = why_not_plain_linear(base, linear_type, tensor_types)
    if reason is not None:
        return f"is a PEFT LoRA layer whose base_layer {reason}"
    merged = list(getattr(module, "merged_adapters", ()))
    if getattr(module, "disable_adapters", False):
        if merged:
            return (f"is a PEFT LoRA layer with adapters disabled while {merged} are merged: "
                    "PEFT's forward unmerges them first")
        return Projection(base)
    active = getattr(module, "active_adapters", None)
    if isinstance(active, str):
        active = [active]
    if not isinstance(active, (list, tuple)):
        return f"is a PEFT LoRA layer whose active_adapters {active!r} is not a list of names"
    lora_A, lora_B = getattr(module, "lora_A", {}), getattr(module, "lora_B", {})
    present = [name for name in active if name in lora_A]  # PEFT skips the others
    if merged:
        unmerged = [name for name in present if name not in merged]
        if unmerged:
            return (f"is a PEFT LoRA layer with adapters {merged} merged and active adapters "
                    f"{unmerged} not: fmlp fuses all merged or none")
        return Projection(base)
    variants = getattr(module, "lora_variant", {})
    dora, magnitudes = getattr(module, "use_dora", {}), getattr(module, "lora_magnitude_vector", {})
    lora_bias, dropouts = getattr(module, "lora_bias", {}), getattr(module, "lora_dropout", {})
    scalings = getattr(module, "scaling", {})
    adapters = []
    for name in present:
        what = f"is a PEFT LoRA layer whose adapter {name!r}"
        if name in variants:
            return (f"{what} is a LoRA variant ({_type_name(variants[name])}): fmlp fuses "
                    "plain LoRA only")
        if dora.get(name) or name in magnitudes:
            return f"{what} uses DoRA: fmlp fuses plain LoRA only"
        if name not in lora_B:
            return f"{what} has lora_A but no lora_B"
        a, b = lora_A[name], lora_B[name]
        for part, linear in (("lora_A", a), ("lora_B", b)):
            reason = why_not_plain_linear(linear, linear_type, tensor_types)
            if reason is None and getattr(linear, "bias", None) is not None:
                reason = "has a bias (lora_bias)"
            if reason is not None:
                return f"{what}'s {part} {reason}"
        if lora_bias.get(name):
            return f"{what} has lora_bias: fmlp fuses adapters without bias"
        dropout = dropouts[name] if name in dropouts else None
        if type(dropout) is lora.dropout:
            if dropout.p != 0 and dropout.training:
                return (f"{what} has dropout p = {dropout.p} in training mode: fmlp fuses "
                        "adapters whose dropout is the identity (p = 0, or eval mode)")
        elif type(dropout) is not lora.identity:
            return (f"{what} has dropout {_type_name(dropout)}: fmlp fuses adapters whose "
                    "dropout is torch.nn.Identity or torch.nn.Dropout")
        reason = _why_hooked(dropout)
        if reason is not None:
            return f"{what}'s dropout {reason}"
        scaling = scalings.get(name)
        if type(scaling) not in (int, float):
            return f"{what} has a scaling of type {_type_name(scaling)}, not a number"
        for part, linear in (("lora_A", a), ("lora_B", b)):
            w = linear.weight
            if (not autocast and w.dtype != weight.dtype
                    and (w.dtype, weight.dtype) not in lora.casts):
                return (f"{what}'s {part} weight is {w.dtype} over a {weight.dtype} base weight: "
                        "fmlp fuses adapters of the base weight's dtype, float32 ones over a "
                        "16-bit base weight (cast to it, unless the module's cast_adapters is "
                        "False), or any under torch.autocast")
            if w.device != weight.device:
                return (f"{what}'s {part} weight is on {w.device}, the base weight on "
                        f"{weight.device}")
        adapters.append(Adapter(name, a, b, scaling))
    return Projection(base, tuple(adapters))


def projections(items: Iterable[Tuple[str, object]], linear_type: type,
                tensor_types: Tuple[type, ...], sharded_types: Tuple[type, ...] = (),
                lora: Optional[LoraTypes] = None, autocast: bool = False
                ) -> Union[str, List[Projection]]:
    """The Projections of `items` ((attribute name, module) pairs) when a
    fused module may compute them from their weights (and adapters)
    instead of calling them; else the reason, naming the first projection
    that fails and why. `linear_type` is torch.nn.Linear, `tensor_types`
    (torch.Tensor, torch.nn.Parameter), `sharded_types` (DTensor,) where
    torch has it, `lora` PEFT's LoRA types where PEFT is imported (None:
    LoRA layers are refused as any tuner layer), `autocast` as for
    lora_projection."""
    found = []
    for name, module in items:
        if lora is not None and type(module) is lora.layer:
            projection = lora_projection(module, linear_type, tensor_types, lora, sharded_types,
                                         autocast)
            if isinstance(projection, str):
                return f"{name} {projection}"
            found.append(projection)
            continue
        reason = why_not_plain_linear(module, linear_type, tensor_types, sharded_types)
        if reason is not None:
            return f"{name} {reason}"
        found.append(Projection(module))
    return found


def why_not_fusable(items: Iterable[Tuple[str, object]], linear_type: type,
                    tensor_types: Tuple[type, ...], sharded_types: Tuple[type, ...] = (),
                    lora: Optional[LoraTypes] = None, autocast: bool = False) -> Optional[str]:
    """None when a fused module may compute the projections `items` from
    their weights (and LoRA adapters, where `lora` is given) instead of
    calling them; else the reason (see projections)."""
    found = projections(items, linear_type, tensor_types, sharded_types, lora, autocast)
    return found if isinstance(found, str) else None
