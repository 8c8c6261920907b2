"""The error-bound judge (lib/Numerics, through its C API Judge.h) for
tests written in Python: the float64 reference of a gated MLP block and the
elementwise bound on the error of a correct fp32-accumulating
implementation that stores every tensor in the storage type. An output
passes when it is finite and its worst |computed - exact| / bound is <= 1.

The library is libfmlp_judge.so from the same CMake build as the runtime
(FMLP_JUDGE_LIB names it; else it is looked for beside the runtime). The
judge's contractions run in float64 on the tensors' device.
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Dict, Optional, Tuple

import torch

from . import precision as precisions
from . import runtime

INPUTS = ("x", "gate", "up", "down", "dy", "gate_bias", "up_bias", "down_bias")
OUTPUTS = ("y", "dx", "d_gate", "d_up", "d_down", "d_gate_bias", "d_up_bias", "d_down_bias")
ACTIVATIONS = {"silu": 0, "gelu_tanh": 1, "relu": 2}
STORAGE = {torch.float32: 0, torch.bfloat16: 1, torch.float16: 2}
# lib/Numerics' Contraction, by the bound's name (precision.CONTRACTION gives
# each precision's).
CONTRACTIONS = {"ieee": 0, "tf32": 1, "tf32x3": 2}

_Matmul = ctypes.CFUNCTYPE(None, ctypes.c_void_p,
                           ctypes.POINTER(ctypes.c_double), ctypes.c_int64, ctypes.c_int64,
                           ctypes.c_int32, ctypes.POINTER(ctypes.c_double), ctypes.c_int64,
                           ctypes.c_int64, ctypes.c_int32, ctypes.POINTER(ctypes.c_double))


class _Block(ctypes.Structure):
    _fields_ = [("tokens", ctypes.c_int64), ("model", ctypes.c_int64),
                ("hidden", ctypes.c_int64), ("activation", ctypes.c_int32),
                ("storage", ctypes.c_int32), ("bias", ctypes.c_int32),
                ("gate_multiplier", ctypes.c_double), ("down_multiplier", ctypes.c_double),
                ("contraction", ctypes.c_int32)]


_library = None


def _load() -> ctypes.CDLL:
    global _library
    if _library is None:
        if "FMLP_JUDGE_LIB" in os.environ:
            path = Path(os.environ["FMLP_JUDGE_LIB"])
        else:
            path = Path(runtime.library()._name).with_name("libfmlp_judge.so")
        if not path.is_file():
            raise FileNotFoundError(f"fmlp's judge library {path} was not found; "
                                    "build it with the runtime or set FMLP_JUDGE_LIB")
        lib = ctypes.CDLL(str(path))
        p = ctypes.POINTER(ctypes.c_double)
        lib.fmlp_judge_reference.argtypes = [ctypes.POINTER(_Block), p * 8, _Matmul,
                                             ctypes.c_void_p, p * 8, p * 8, ctypes.c_char_p,
                                             ctypes.c_int64]
        lib.fmlp_judge_reference.restype = ctypes.c_int
        _library = lib
    return _library


def _host(t: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    return None if t is None else t.detach().to("cpu", torch.float64).contiguous()


def reference(activation: str, dtype: torch.dtype, inputs: Dict[str, torch.Tensor],
              gate_multiplier: float = 1.0, down_multiplier: float = 1.0,
              contraction: str = "ieee"
              ) -> Dict[str, Tuple[torch.Tensor, torch.Tensor]]:
    """(exact value, error bound) of every output, float64 on the inputs'
    device. `inputs` is keyed by INPUTS in the math's layout: x, dy [T, D];
    gate, up [D, H] (a Linear's weight transposed); down [H, D]; biases
    when the block has them. `dtype` is the storage type the inputs are
    representable in; outputs are laid out alike (d_gate [D, H], ...).
    `contraction` is the precision an fp32 block ran at (precision.py:
    highest, ieee, tf32x3, tf32), judged by its bound (highest's is
    ieee's; docs/precision.md)."""
    x = inputs["x"]
    t, d, h = x.shape[0], x.shape[1], inputs["gate"].shape[1]
    bias = inputs.get("gate_bias") is not None
    block = _Block(t, d, h, ACTIVATIONS[activation], STORAGE[dtype], int(bias),
                   gate_multiplier, down_multiplier,
                   CONTRACTIONS[precisions.CONTRACTION[contraction]])
    host_in = [_host(inputs.get(name)) for name in INPUTS]
    names = OUTPUTS if bias else OUTPUTS[:5]
    shapes = dict(y=(t, d), dx=(t, d), d_gate=(d, h), d_up=(d, h), d_down=(h, d),
                  d_gate_bias=(h,), d_up_bias=(h,), d_down_bias=(d,))
    exact = {n: torch.empty(shapes[n], dtype=torch.float64) for n in names}
    bound = {n: torch.empty(shapes[n], dtype=torch.float64) for n in names}
    p = ctypes.POINTER(ctypes.c_double)

    def pointer(t):
        return ctypes.cast(t.data_ptr(), p) if t is not None else None

    def matmul(_, a, a_rows, a_cols, trans_a, b, b_rows, b_cols, trans_b, c):
        def view(ptr, rows, cols):
            buffer = (ctypes.c_double * (rows * cols)).from_address(ctypes.addressof(ptr.contents))
            return torch.frombuffer(buffer, dtype=torch.float64).view(rows, cols)
        ma = view(a, a_rows, a_cols).to(x.device)
        mb = view(b, b_rows, b_cols).to(x.device)
        product = (ma.t() if trans_a else ma) @ (mb.t() if trans_b else mb)
        view(c, product.shape[0], product.shape[1]).copy_(product.cpu())

    error = ctypes.create_string_buffer(512)
    status = _load().fmlp_judge_reference(
        ctypes.byref(block), (p * 8)(*map(pointer, host_in)), _Matmul(matmul), None,
        (p * 8)(*[pointer(exact.get(n)) for n in OUTPUTS]),
        (p * 8)(*[pointer(bound.get(n)) for n in OUTPUTS]), error, len(error))
    if status != 0:
        raise ValueError(error.value.decode())
    return {n: (exact[n].to(x.device), bound[n].to(x.device)) for n in names}


def worst_ratio(computed: torch.Tensor, exact: torch.Tensor, bound: torch.Tensor
                ) -> Tuple[float, int]:
    """The worst |computed - exact| / bound over the finite elements, and
    how many are not finite (NaN or infinity)."""
    c = computed.detach().to(exact.device, torch.float64).reshape(exact.shape)
    finite = torch.isfinite(c)
    ratio = ((c - exact).abs() / bound)[finite]
    return (ratio.max().item() if ratio.numel() else 0.0), int((~finite).sum().item())


def poison_free_memory():
    """Fills the caching allocator's free blocks (small and large pools)
    with 0xFF bytes (NaN in f32, bf16 and f16), so that an output a kernel
    fails to write reads as NaN rather than as a stale right answer."""
    blocks = [torch.empty(2 ** 20 - 512, dtype=torch.uint8, device="cuda") for _ in range(16)]
    blocks.append(torch.empty(2 ** 28, dtype=torch.uint8, device="cuda"))
    for b in blocks:
        b.fill_(255)
    del blocks
