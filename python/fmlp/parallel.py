"""Tensor parallelism through PyTorch's own engine (torch.distributed.tensor).

Shard an fmlp module with PyTorch's tensor-parallel API on the Hugging Face
attribute names, as for the original module:

    from torch.distributed.tensor.parallel import (
        ColwiseParallel, RowwiseParallel, parallelize_module)
    parallelize_module(mlp, mesh, {"gate_proj": ColwiseParallel(),
                                   "up_proj": ColwiseParallel(),
                                   "down_proj": RowwiseParallel()})

Each rank then holds H/p rows of the gate and up weights and H/p columns of
the down weight (DTensors sharded on dims 0, 0 and 1). fmlp never calls the
Linear modules (so their hooks do not run); its forward sees the DTensor
weights and does here what those styles would:

    y = all_reduce_r( fmlp_r(x) )       forward: the shards' partial sums
    dx = all_reduce_r( dx_r )           backward: through the input

fmlp_r is the block over rank r's shards (a bundle compiled for H/p), and
both all-reduces are DTensor redistributions (Partial -> Replicate), so
autograd, NCCL and the process group are PyTorch's. Gradients of the
weights stay shard-local DTensors, as the styles make them.

Supported: a 1-D device mesh; gate and up Shard(0), down Shard(1) (what
ColwiseParallel and RowwiseParallel give); biases of gate and up Shard(0)
and of down replicated (RowwiseParallel's): the down bias is added on rank
0 only, so that the sum holds it once. Phi3's fused gate_up_proj does not
shard this way (its row halves would not pair): fmlp refuses it.
"""
from __future__ import annotations

from typing import List

import torch

try:
    from torch.distributed.tensor import DTensor, Partial, Replicate, Shard
except ImportError:  # torch without distributed support
    DTensor = None


def is_sharded(params: List[torch.Tensor]) -> bool:
    return DTensor is not None and any(isinstance(p, DTensor) for p in params)


_EXPECTED = {"gate": Shard(0), "up": Shard(0), "down": Shard(1),
             "gate_bias": Shard(0), "up_bias": Shard(0), "down_bias": Replicate()} \
    if DTensor is not None else {}
_zero_biases = {}


def _local_params(params: List[torch.Tensor]):
    names = list(_EXPECTED)[:len(params)]
    mesh = None
    for name, p in zip(names, params):
        if not isinstance(p, DTensor):
            raise ValueError(f"fmlp: tensor parallelism needs every weight sharded; {name} is not "
                             "a DTensor (parallelize gate_proj, up_proj and down_proj together)")
        if p.device_mesh.ndim != 1:
            raise ValueError(f"fmlp: tensor parallelism over a {p.device_mesh.ndim}-D mesh is not "
                             "supported (use a 1-D mesh)")
        if tuple(p.placements) != (_EXPECTED[name],):
            raise ValueError(f"fmlp: {name} is placed {tuple(p.placements)}, fmlp needs "
                             f"({_EXPECTED[name]},): ColwiseParallel on gate_proj and up_proj, "
                             "RowwiseParallel on down_proj")
        mesh = mesh or p.device_mesh
        if p.device_mesh != mesh:
            raise ValueError("fmlp: the block's weights are on different device meshes")
    local = [p.to_local() for p in params]
    if len(local) > 3 and mesh.get_local_rank() != 0:
        # The replicated down bias goes into the sum once: rank 0's share.
        key = (local[5].shape, local[5].dtype, local[5].device)
        if key not in _zero_biases:
            _zero_biases[key] = torch.zeros_like(local[5])
        local[5] = _zero_biases[key]
    return mesh, local


def forward(module, x: torch.Tensor, params: List[torch.Tensor], memory_policy=None,
            precision=None) -> torch.Tensor:
    """y of `module` (an fmlp module whose weights are sharded DTensors) for
    a replicated x, as a plain tensor replicated on every rank (each
    shard's block under `memory_policy`, as module.fused takes it)."""
    mesh, local = _local_params(params)
    if isinstance(x, DTensor):
        if tuple(x.placements) != (Replicate(),):
            raise ValueError(f"fmlp: x is placed {tuple(x.placements)}; the block takes a "
                             "replicated input")
        x = x.to_local()
    # Identity forward; backward all-reduces the shards' partial dx.
    x_local = DTensor.from_local(x, mesh, [Replicate()], run_check=False).to_local(
        grad_placements=[Partial()])
    y_partial = module.fused(x_local, local, memory_policy, precision)
    # All-reduce forward; backward hands every shard the full dy.
    y = DTensor.from_local(y_partial, mesh, [Partial()], run_check=False)
    return y.redistribute(mesh, [Replicate()]).to_local()
