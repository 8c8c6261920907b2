"""Whether a fused module may read its projections' weights instead of
calling the projections. No torch needed: the types it compares against
are passed in, so that the decisions are tested without torch
(python/tests/test_guard.py).

A fused module computes y = down(act(gate(x)) * up(x)) from the weights
(and biases) of gate_proj, up_proj and down_proj (Phi3: gate_up_proj and
down_proj); it never calls those modules. That equals calling them only
when each one computes x W^T + b and nothing else, which holds when:

  - its type is exactly torch.nn.Linear: a subclass (bitsandbytes'
    Linear4bit, a parametrized Linear, FSDP's per-module class) or another
    module (PEFT's lora.Linear, whose base_layer is the Linear and whose
    adapters add s B A x) may compute something else;
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

Not covered: global module hooks (torch.nn.modules.module.
register_module_forward_hook) see the fused module, not its projections.

Every check is an attribute or type comparison, so that it is cheap at
every forward (no cache to keep fresh; modules.why_not_fusable accepts
the common case, plain Linears, by a fast path over nn.Module's own
dicts that accepts nothing this guard refuses,
python/tests/cpu_guard_fast_path.py) and torch.compile's dynamo traces it
into guards on what it reads, with no graph break on the fused path
(checked with torch.compile(fullgraph=True), python/tests/gpu_modules.py
and gpu_peft_guard.py). A projection replaced after compiling (PEFT
wrapping it) fails those guards: dynamo retraces, and the fallback is
traced. Hooks added after compiling are not seen by compiled code, for
fmlp as for any module, while torch._dynamo.config.skip_nnmodule_hook_guards
is True (PyTorch's default): reset or recompile after adding hooks.
"""
from __future__ import annotations

from typing import Iterable, Optional, Tuple

# The module of torch.distributed.tensor.distribute_module's hooks: the
# input and output redistributions of parallelize_module's styles.
TENSOR_PARALLEL_HOOKS = "torch.distributed.tensor._api"

# nn.Module's per-module hook dictionaries: any entry may change what the
# module computes or its gradients.
HOOKS = (("_forward_hooks", "forward hooks"), ("_forward_pre_hooks", "forward-pre hooks"),
         ("_backward_hooks", "backward hooks"), ("_backward_pre_hooks", "backward-pre hooks"))


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


def why_not_plain_linear(module, linear_type: type, tensor_types: Tuple[type, ...],
                         sharded_types: Tuple[type, ...] = ()) -> Optional[str]:
    """None when calling `module` computes exactly x W^T + b from its
    weight W and bias b; else why not (a phrase after the module's name)."""
    if type(module) is not linear_type:
        if getattr(module, "base_layer", None) is not None:
            adapters = getattr(module, "active_adapters", None)
            detail = f" with adapters {list(adapters)}" if isinstance(adapters, (list, tuple)) else ""
            return (f"is {_type_name(module)}, a PEFT tuner layer{detail}: fmlp does not fuse "
                    "adapters yet and would bypass them")
        if getattr(module, "parametrizations", None) is not None:
            return (f"has parametrized weights (torch.nn.utils.parametrize, "
                    f"{_type_name(module)}): fmlp would read the unparametrized ones")
        return (f"is {_type_name(module)}, not torch.nn.Linear: a subclass or another module "
                "may compute something else than x W^T + b")
    weight = getattr(module, "weight", None)
    for attribute, what in HOOKS:
        hooks = getattr(module, attribute, None)
        if hooks and not (isinstance(weight, sharded_types) and all(
                getattr(hook, "__module__", None) == TENSOR_PARALLEL_HOOKS
                for hook in hooks.values())):
            return f"has {what}: fmlp would not run them"
    if "forward" in getattr(module, "__dict__", ()):
        return "has its forward replaced on the instance (e.g. accelerate's hooks): fmlp would not run it"
    if weight is None:
        return "has no weight"
    reason = _why_not_plain_tensor("weight", weight, tensor_types, sharded_types)
    bias = getattr(module, "bias", None)
    if reason is None and bias is not None:
        reason = _why_not_plain_tensor("bias", bias, tensor_types, sharded_types)
    return reason


def why_not_fusable(projections: Iterable[Tuple[str, object]], linear_type: type,
                    tensor_types: Tuple[type, ...], sharded_types: Tuple[type, ...] = ()
                    ) -> Optional[str]:
    """None when a fused module may read the weights of `projections`
    ((attribute name, module) pairs) instead of calling them; else the
    reason, naming the first projection that fails and why. `linear_type`
    is torch.nn.Linear, `tensor_types` (torch.Tensor, torch.nn.Parameter),
    `sharded_types` (DTensor,) where torch has it."""
    for name, module in projections:
        reason = why_not_plain_linear(module, linear_type, tensor_types, sharded_types)
        if reason is not None:
            return f"{name} {reason}"
    return None
