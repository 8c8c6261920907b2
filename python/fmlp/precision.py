"""How fmlp's fp32 blocks multiply (docs/precision.md has the bounds and
the measurements).

    highest IEEE fp32's accuracy (PyTorch's 'highest'): each contraction of
            at least 84 terms as tf32x3 on tensor cores (its error bound is
            within strict fp32's from there on), shorter ones as ieee
    ieee    exact products, IEEE fp32 sums (SIMT FMA), every contraction
    tf32x3  each operand split into tf32 high and low parts, three
            tensor-core products (hi hi + hi lo + lo hi): close to fp32, at
            about the speed of strict cuBLAS
    tf32    each operand rounded to tf32 (2^-11), one tensor-core product

The precision of a call, first of: the call's `precision=` argument, the
module's `precision` attribute, PyTorch's float32 matmul setting
(torch.backends.cuda.matmul.fp32_precision where set, else
torch.get_float32_matmul_precision()): highest (and fp32_precision 'ieee')
-> highest, high -> tf32, medium -> tf32. A block never runs at a lower
precision than asked; 16-bit blocks ignore it (their products are exact).
The chosen precision is in the module's repr and the bundle's manifest.
"""
from typing import Callable, Optional

PRECISIONS = ("highest", "ieee", "tf32x3", "tf32")
# torch.get_float32_matmul_precision() and torch.backends.cuda.matmul.
# fp32_precision -> fmlp's precision. PyTorch's 'ieee' asks for fp32's
# accuracy, which highest keeps at tensor-core speed.
FROM_TORCH = {"highest": "highest", "high": "tf32", "medium": "tf32",
              "ieee": "highest", "tf32": "tf32"}
# The error bound an fp32 result of each precision is judged by
# (judge.reference's contraction): highest's is strict fp32's.
CONTRACTION = {"highest": "ieee", "ieee": "ieee", "tf32x3": "tf32x3", "tf32": "tf32"}


def check(precision: Optional[str]) -> Optional[str]:
    if precision is not None and precision not in PRECISIONS:
        raise ValueError(f"fmlp: precision must be one of {PRECISIONS} (or None: "
                         f"PyTorch's float32 matmul precision), got {precision!r}")
    return precision


def of_torch_setting(matmul_precision: str, fp32_precision: Optional[str] = None) -> str:
    """fmlp's format for PyTorch's settings: torch.backends.cuda.matmul.
    fp32_precision ("ieee" or "tf32"; "none" or absent: not set) over
    torch.get_float32_matmul_precision() ("highest", "high", "medium")."""
    if fp32_precision in ("ieee", "tf32"):
        return FROM_TORCH[fp32_precision]
    return FROM_TORCH[matmul_precision]


def from_torch() -> str:
    """fmlp's format for PyTorch's current fp32 matmul settings."""
    import torch  # spec.py, which imports this module, stays torch-free
    matmul = getattr(torch.backends.cuda, "matmul", None)
    return of_torch_setting(torch.get_float32_matmul_precision(),
                            getattr(matmul, "fp32_precision", None))


def resolve(call: Optional[str] = None, module: Optional[str] = None,
            setting: Optional[Callable[[], str]] = None) -> str:
    """The precision a call runs with: its own, the module's, PyTorch's
    (`setting`, from_torch by default)."""
    for chosen in (check(call), check(module)):
        if chosen is not None:
            return chosen
    return (setting or from_torch)()
