"""Swapping Hugging Face MLPs for fmlp's: patch_model() on a loaded model
(in place, sharing its Linear modules), patch_classes() before one is
built. A module fmlp cannot run is left alone with a warning that says
why: an activation fmlp does not fuse, or a projection the fused kernels
would bypass (guard.py: PEFT's adapters other than plain LoRA, quantized
Linear classes, hooks, ...). A module whose projections are PEFT's LoRA
layers is replaced: it runs with the adapters' terms (docs/LoRA.md)."""
from __future__ import annotations

import importlib
import warnings
from typing import Dict

from torch import nn

from . import spec as specs
from .modules import SUPPORTED, why_not_fusable


def _why_not(module: nn.Module, config) -> str:
    """'' when fmlp can run `module`, else the reason: the fused module
    over it (wrap, which shares its submodules) would run unfused. Judged
    as in eval mode: training-mode dropout on LoRA adapters is a condition
    of each call (the fused module runs Hugging Face's forward then, and
    fuses in eval mode), not one to leave the module alone for; PEFT's
    get_peft_model leaves a model in training mode."""
    _, fused = SUPPORTED[type(module).__name__]
    wrapped = fused.wrap(module, config)
    modes = [(m, m.training) for m in module.modules()]
    for m, _ in modes:  # the flags alone: no module's train() runs
        m.training = False
    try:
        why = wrapped._why_not_fused_module() or why_not_fusable(module, fused._linears())
    finally:
        for m, training in modes:
            m.training = training
    if why:
        return why
    try:
        wrapped._params()
    except specs.UnsupportedConfig as error:  # its biases; Phi3's sharded gate_up_proj
        return str(error)
    return ""


def patch_model(model: nn.Module, config=None) -> int:
    """Replaces every supported MLP of `model` in place; returns how many."""
    config = config or getattr(model, "config", None)
    replaced = 0
    for path, parent in list(model.named_modules()):
        for name, child in list(parent.named_children()):
            if type(child).__name__ not in SUPPORTED:
                continue
            _, fused = SUPPORTED[type(child).__name__]
            child_config = getattr(child, "config", None) or config
            reason = _why_not(child, child_config) if child_config is not None else "no config"
            if reason:
                where = f"{path}.{name}" if path else name
                warnings.warn(f"fmlp: {type(child).__name__} at {where} left alone: {reason}")
                continue
            setattr(parent, name, fused.wrap(child, child_config))
            replaced += 1
    return replaced


def patch_classes() -> Dict[str, type]:
    """Makes transformers build fmlp's modules: replaces each supported MLP
    class in its modeling module. Returns the originals (for restore)."""
    originals = {}
    for name, (short, fused) in SUPPORTED.items():
        try:
            module = importlib.import_module(f"transformers.models.{short}.modeling_{short}")
        except ImportError:
            continue
        if hasattr(module, name):
            originals[f"{module.__name__}.{name}"] = getattr(module, name)
            setattr(module, name, fused)
    return originals


def restore_classes(originals: Dict[str, type]) -> None:
    for qualified, cls in originals.items():
        module_name, name = qualified.rsplit(".", 1)
        setattr(importlib.import_module(module_name), name, cls)
