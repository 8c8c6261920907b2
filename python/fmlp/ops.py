"""fmlp's entry points as torch.library custom ops (fmlp::forward,
fmlp::forward_nograd, fmlp::backward), with fake (meta) implementations for
torch.compile and autograd through fmlp::backward.

Each op takes the bundle's directory, x as [T, D] and the parameters in the
bundle's order (gate, up, down, then gate_bias, up_bias, down_bias when the
block has them). Launches go on torch's current stream with torch-allocated
buffers: no allocation inside fmlp, no synchronization, CUDA-graph safe.

fmlp::backward writes dG and dU over the saved G and U; its schema says so
(mutates `saved`), so autograd's version counter on `saved` and
functionalization under torch.compile see it. That is also why the
runtime's own address-based check of saved activations is turned off
here: autograd tracks them, and torch.compile may pass a backward a copy.
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import torch

from . import runtime

DTYPES = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"}
_bundles: Dict[Tuple[str, int], runtime.Bundle] = {}
_manifests: Dict[str, runtime.Bundle] = {}


def _manifest(path: str) -> runtime.Bundle:
    """The bundle opened (manifest only: shapes for fake tensors)."""
    if path not in _manifests:
        _manifests[path] = runtime.Bundle(path)
    return _manifests[path]


def _loaded(path: str, device: torch.device) -> runtime.Bundle:
    key = (path, device.index if device.index is not None else torch.cuda.current_device())
    if key not in _bundles:
        with torch.cuda.device(key[1]):
            bundle = runtime.Bundle(path)
            bundle.load()
            bundle.check_saved(False)
        _bundles[key] = bundle
    return _bundles[key]


def describe(t: torch.Tensor) -> runtime.Tensor:
    """The runtime's description of `t` (address, dtype, sizes, strides)."""
    if t.dtype not in DTYPES:
        raise TypeError(f"fmlp: dtype {t.dtype} is not one of {list(DTYPES)}")
    return runtime.describe(t.data_ptr(), DTYPES[t.dtype], t.shape, t.stride())


def _allocate(bundle: runtime.Bundle, kind: str, x: torch.Tensor,
              given: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """Every argument of entry `kind`: the given ones, and empty buffers
    for the rest (outputs, saved, workspace) shaped as the manifest says
    (-1 = T)."""
    tokens = x.shape[0]
    out = {}
    for a in bundle.entry(kind).arguments:
        if a["name"] in given:
            out[a["name"]] = given[a["name"]]
        else:
            shape = [tokens if s == -1 else s for s in a["shape"]]
            out[a["name"]] = torch.empty(shape, dtype=x.dtype, device=x.device)
    return out


_PARAMS = ("gate", "up", "down", "gate_bias", "up_bias", "down_bias")


def _named(x: torch.Tensor, params: Sequence[torch.Tensor]) -> Dict[str, torch.Tensor]:
    named = {"x": x}
    named.update(zip(_PARAMS, params))
    return named


def _launch(path: str, kind: str, args: Dict[str, torch.Tensor]) -> None:
    bundle = _loaded(path, args["x"].device)
    entry = bundle.entry(kind)
    tensors = [describe(args[name]) for name in entry.names]
    entry.launch(tensors, torch.cuda.current_stream(args["x"].device).cuda_stream)


@torch.library.custom_op("fmlp::forward", mutates_args=())
def forward(bundle: str, x: torch.Tensor, params: List[torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
    """y and the saved activations for backward."""
    args = _allocate(_manifest(bundle), "forward", x, _named(x, params))
    _launch(bundle, "forward", args)
    return args["y"], args["saved"]


@forward.register_fake
def _(bundle, x, params):
    args = _allocate(_manifest(bundle), "forward", x, _named(x, params))
    return args["y"], args["saved"]


@torch.library.custom_op("fmlp::forward_nograd", mutates_args=())
def forward_nograd(bundle: str, x: torch.Tensor, params: List[torch.Tensor]) -> torch.Tensor:
    """y alone: nothing is kept for a backward."""
    args = _allocate(_manifest(bundle), "forward_nograd", x, _named(x, params))
    _launch(bundle, "forward_nograd", args)
    return args["y"]


@forward_nograd.register_fake
def _(bundle, x, params):
    return _allocate(_manifest(bundle), "forward_nograd", x, _named(x, params))["y"]


_GRADS = ("dx", "d_gate", "d_up", "d_down", "d_gate_bias", "d_up_bias", "d_down_bias")


# Seven fixed results, not a list: torch.compile functionalizes a mutating
# custom op only when each result is a plain Tensor.
Gradients = Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor,
                  torch.Tensor, torch.Tensor, torch.Tensor]


def _no_bias(x: torch.Tensor) -> torch.Tensor:
    """The gradient of a bias the block does not have: an empty tensor."""
    return x.new_empty(0)


@torch.library.custom_op("fmlp::backward", mutates_args=("saved",))
def backward(bundle: str, x: torch.Tensor, params: List[torch.Tensor], dy: torch.Tensor,
             saved: torch.Tensor) -> Gradients:
    """dx, d_gate, d_up, d_down, d_gate_bias, d_up_bias, d_down_bias (the
    bias gradients empty when the block has no biases). Writes dG and dU
    over the saved G and U."""
    given = _named(x, params)
    given.update(dy=dy, saved=saved)
    args = _allocate(_manifest(bundle), "backward", x, given)
    _launch(bundle, "backward", args)
    return tuple(args[name] if name in args else _no_bias(x) for name in _GRADS)


@backward.register_fake
def _(bundle, x, params, dy, saved):
    grads = [torch.empty_like(x)] + [torch.empty_like(p) for p in params]
    return tuple(grads + [_no_bias(x) for _ in range(len(_GRADS) - len(grads))])


def _setup_context(ctx, inputs, output):
    bundle, x, params = inputs
    _, saved = output
    ctx.bundle = bundle
    ctx.num_params = len(params)
    ctx.save_for_backward(x, saved, *params)
    ctx.mark_non_differentiable(saved)
    # saved has no gradient: without this, autograd would hand _backward a
    # zero tensor of its size ([T, 3H]) as one.
    ctx.set_materialize_grads(False)


def _backward(ctx, dy, _dsaved):
    # Never silently wrong: the saved G and U hold dG and dU after one
    # backward, and fmlp::backward has no derivative of its own.
    if getattr(ctx, "consumed", False):
        raise RuntimeError(
            "fmlp: a second backward through the same forward (retain_graph=True) is "
            "not supported: the first backward wrote dG and dU over the saved "
            "activations. Run the forward again.")
    x, saved, *params = ctx.saved_tensors
    if dy is None:  # y's gradient is zero (not materialized)
        dy = torch.zeros_like(x)
    if torch.is_grad_enabled() and any(t.requires_grad for t in [dy, x, *params]):
        raise RuntimeError("fmlp: double backward (create_graph=True) is not supported")
    ctx.consumed = True  # from here on, saved holds dG and dU
    grads = torch.ops.fmlp.backward(ctx.bundle, x, params, dy.contiguous(), saved)
    return None, grads[0], list(grads[1:1 + ctx.num_params])


forward.register_autograd(_backward, setup_context=_setup_context)
