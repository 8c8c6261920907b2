"""The criterion fused LoRA is held to against PEFT (test_lora.py on the
CPU, gpu_lora.py and gpu_peft_guard.py on the GPU): every tensor (y or a
loss, logits, dx, each gradient) of fmlp's run within 3x the distance of
PEFT's own run in the same dtype from a float64 run, plus 4 units of the
dtype's rounding of the tensor's largest exact element:

    max |fmlp - f64| <= 3 max |PEFT - f64| + 4 u max |f64|

PEFT's distance is what its own roundings cost at these inputs (a
projection summing over D or H, a loss over the vocabulary); the 4 u are
for a tensor PEFT happens to get nearly exact. fmlp's kernels round at
other places (one fp32 sum per augmented contraction, Z and Zd stored in
the block's dtype), so bit equality is not asked; a term left out or a
scale dropped moves a tensor by far more (the tests' controls).
"""
import math

import torch

# u, the rounding unit of a product: 2^-8 for bf16, 2^-11 for f16; 2^-21
# for f32 blocks, whose contractions of 84 terms or more run tf32x3 under
# PyTorch's default precision (highest; docs/precision.md: about 3 2^-22
# per product; gpu_lora.py measured IEEE's 2^-24 failing a T = 1
# gradient, dy^T Zd, whose Zd = A Ad^T sums over H = 2816 on tf32x3:
# 1.35e-6 of its largest element against PEFT's 3.1e-7).
UNIT = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11, torch.float32: 2.0 ** -21}


def worst_ratio(fused, theirs, reference, unit):
    """The worst over `reference`'s tensors (name -> tensor; None: no
    tensor, skipped) of fused's distance from it over the allowed one,
    and a line naming that tensor; inf where `fused` lacks a tensor or
    has one of another shape. Passing: a ratio <= 1."""
    worst, where = 0.0, ""
    for name, exact in reference.items():
        if exact is None:
            continue
        mine = fused.get(name)
        if mine is None or mine.shape != exact.shape:
            return math.inf, f"{name}: {'missing' if mine is None else tuple(mine.shape)}"
        exact = exact.double()
        scale = exact.abs().max().item()
        error = (mine.double() - exact).abs().max().item()
        peft_error = (theirs[name].double() - exact).abs().max().item()
        allowed = 3 * peft_error + 4 * unit * scale
        ratio = error / allowed if allowed else (0.0 if error == 0 else math.inf)
        if ratio >= worst:
            worst = ratio
            where = (f"{name}: fmlp {error / (scale or 1):.2e}, PEFT {peft_error / (scale or 1):.2e} "
                     f"of {scale:.3g}")
    return worst, where
