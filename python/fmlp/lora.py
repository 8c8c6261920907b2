"""The LoRA adapters of a block as its op takes them (docs/LoRA.md): the
scaled, stacked matrices A_cat, Bg, Bu (the gate's and up's adapters) and
Ad, Bd (down's), built per call by torch operations that autograd
differentiates back to each adapter's lora_A and lora_B weights.

For adapters a with A_a [r_a, in], B_a [out, r_a] and scale s_a, a
projection adds sum_a s_a (x A_a^T) B_a^T (PEFT's lora.Linear). Stacked:

    A_cat = [s_1 A_1; ...; s_n A_n; 0]     [R, D]   R = sum r_a, padded
    Bg    = [B_a or 0 per adapter | 0]     [H, R]   the gate's B_a, 0 for up's
    Bu    = [B_a or 0 per adapter | 0]     [H, R]   up's B_a, 0 for the gate's

so that (x A_cat^T) Bg^T = sum over the gate's adapters of s_a (x A_a^T)
B_a^T, and the same for up; down's likewise with Ad = [s_a A_a; 0]
[Rd, H] and Bd = [B_a | 0] [D, Rd]. The scale sits on A (the op does not
care where; one multiplication of an [r, in] matrix per adapter, none when
s = 1); R and Rd are padded with zero rows of A and zero columns of B to
multiples of spec.LORA_RANK_ALIGNMENT, which add exact zeros to every sum.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F

from .spec import LORA_RANK_ALIGNMENT

# An adapter term: A [r, in], its scale, and its B [out_j, r] for each
# output j of the stack (None: the adapter does not add to output j).
Term = Tuple[torch.Tensor, float, Tuple[Optional[torch.Tensor], ...]]


def padded(rank: int) -> int:
    """`rank` rounded up to a multiple of LORA_RANK_ALIGNMENT."""
    return -(-rank // LORA_RANK_ALIGNMENT) * LORA_RANK_ALIGNMENT


def stack(terms: Sequence[Term], widths: Sequence[int]
          ) -> Tuple[Optional[torch.Tensor], List[Optional[torch.Tensor]]]:
    """A_cat [R, in] and one B [widths[j], R] per output j for the adapter
    `terms`, R the sum of their ranks padded (module comment); (None,
    [None, ...]) without terms. Few torch operations (each costs host
    time per call): a product per scale that is not 1, one cat where
    there are several parts, one pad where columns or rows are zero."""
    if not terms:
        return None, [None] * len(widths)
    ranks = [a.shape[0] for a, _, _ in terms]
    rank = sum(ranks)
    pad = padded(rank) - rank
    scaled = [a if scaling == 1 else a * scaling for a, scaling, _ in terms]
    a_cat = torch.cat(scaled) if len(scaled) > 1 else scaled[0]
    if pad:
        a_cat = F.pad(a_cat, (0, 0, 0, pad))
    bs = []
    for j, width in enumerate(widths):
        # Output j's columns: each adapter's B or r zero columns, then the
        # padding; adjacent zeros merged, those between two Bs padded onto
        # the first, the leading and trailing ones padded onto the result.
        parts, zeros, lead = [], 0, 0
        for (_, _, b), r in zip(terms, ranks):
            if b[j] is None:
                zeros += r
                continue
            if parts and zeros:
                parts[-1] = F.pad(parts[-1], (0, zeros))
            elif zeros:
                lead = zeros
            parts.append(b[j])
            zeros = 0
        zeros += pad
        if not parts:
            bs.append(terms[0][0].new_zeros(width, zeros))
            continue
        b = torch.cat(parts, dim=1) if len(parts) > 1 else parts[0]
        bs.append(F.pad(b, (lead, zeros)) if lead or zeros else b)
    return a_cat, bs


def block_adapters(gate: Sequence[Tuple[torch.Tensor, float, torch.Tensor]],
                   up: Sequence[Tuple[torch.Tensor, float, torch.Tensor]],
                   down: Sequence[Tuple[torch.Tensor, float, torch.Tensor]],
                   hidden: int, intermediate: int
                   ) -> Tuple[Optional[torch.Tensor], ...]:
    """(A_cat, Bg, Bu, Ad, Bd) of the gate's, up's and down's adapters,
    each given as (A, s, B), None for a group without adapters (R or Rd
    0)."""
    terms = [(a, s, (b, None)) for a, s, b in gate] + [(a, s, (None, b)) for a, s, b in up]
    a_cat, (bg, bu) = stack(terms, (intermediate, intermediate))
    ad, (bd,) = stack([(a, s, (b,)) for a, s, b in down], (hidden,))
    return a_cat, bg, bu, ad, bd


def rank_of(adapters) -> int:
    """The padded rank of the stack of `adapters` (guard.Adapter: their
    lora_A weights' rows), 0 for none."""
    return padded(sum(a.lora_A.weight.shape[0] for a in adapters))


def ranks(adapters: Sequence[Optional[torch.Tensor]]) -> Tuple[int, int]:
    """(R, Rd) of block_adapters' result."""
    a_cat, _, _, ad, _ = adapters
    return (0 if a_cat is None else a_cat.shape[0]), (0 if ad is None else ad.shape[0])
